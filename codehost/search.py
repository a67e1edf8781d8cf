"""GET /repos/search: Gitea's SearchRepoOptions turned into one queryset.

Keyword matching uses `lower_name LIKE '%kw%'`, `topics_index LIKE` and
`UPPER(description) LIKE`, all served by trigram GIN indexes on PostgreSQL.
"""

from dataclasses import dataclass, replace

from django.db import connection
from django.db.models import Case, Count, F, Func, IntegerField, Q, When, Window
from django.db.models.expressions import RawSQL
from django.db.models.lookups import In

from codehost.access import (
    Actor,
    visibility_condition,
    visibility_kind,
    visible_repository_counts,
)
from codehost.errors import Invalid
from codehost.models import Collaboration, Owner, Repository, Star, TeamRepo
from config.kept import MAX_SHAPES, Kept, arg
from config.vendor_sql import fts5_string

MODES = {"", "source", "fork", "mirror", "collaborative"}
# A keyword of more words than this compiles its statements for its request only: kept,
# an anonymous caller's shapes of hundreds of words each held megabytes in every process.
KEPT_WORDS = 8
SORT_FIELDS = {
    "alpha": ["owner__lower_name", "lower_name"],
    "created": ["created_at"],
    "updated": ["updated_at"],
    "size": ["size"],
    "git_size": ["size"],
    "lfs_size": ["size"],
    "stars": ["num_stars"],
    "forks": ["num_forks"],
    "id": ["id"],
}


@dataclass
class SearchOptions:
    keyword: str = ""
    topic_only: bool = False
    include_desc: bool = False
    uid: int = 0
    starred_by: int = 0
    include_private: bool = True
    mode: str = ""
    exclusive: bool = False
    sort: str = ""
    order: str = ""
    is_private: bool | None = None
    template: bool | None = None
    archived: bool | None = None
    team_id: int = 0
    # Repositories of this owner come first (Gitea's priority_owner_id).
    priority_owner_id: int = 0


def ordering(sort: str, order: str) -> list[str]:
    """Validated ORDER BY; Gitea checks the order first, then the sort mode."""
    if not sort:
        return ["lower_name", "id"]
    order = order or "asc"
    if order not in ("asc", "desc"):
        raise Invalid(f'Invalid sort order: "{order}"')
    if sort not in SORT_FIELDS:
        raise Invalid(f'Invalid sort mode: "{sort}"')
    prefix = "-" if order == "desc" else ""
    return [prefix + field for field in [*SORT_FIELDS[sort], "id"]]


class _Values:
    """A search's values written into its queryset as they are (`search_repos`)."""

    def __init__(self, values: dict):
        self.values = values

    def text(self, name: str):
        return self.values[name]

    number = text


class _Markers:
    """The same values as a kept list's markers (`search_rows`): a text, or a number
    where the field would refuse a marker."""

    text = staticmethod(arg)

    @staticmethod
    def number(name: str) -> RawSQL:
        return RawSQL("%s", (arg(name),))


@dataclass(frozen=True)
class _Shape:
    """What decides a search's SQL; its values (`_values`) are bound per run."""

    visibility: str
    words: tuple[bool, ...]  # per keyword word: written owner/name
    topic_only: bool
    include_desc: bool
    contributor: str  # "" (no uid), "collaborative", "exclusive" or "any"
    starred: bool
    team: bool
    mode: str
    is_private: bool | None
    template: bool | None
    archived: bool | None
    priority: bool
    order_by: tuple[str, ...]
    candidates: bool = False  # SQLite: the keyword's rows come from its trigram table


def _words(keyword: str) -> list[str]:
    return [word for word in (part.strip().lower() for part in keyword.split(",")) if word]


def keyword_filter(shape: _Shape, given) -> Q:
    match = Q()
    for n, qualified in enumerate(shape.words):
        if shape.topic_only:
            match |= Q(topics_index__contains=f",{given.text(f'w{n}')},")
            continue
        if qualified:
            owner = Owner.objects.filter(lower_name=given.text(f"o{n}")).values("id")
            match |= Q(owner_id__in=owner, lower_name__contains=given.text(f"w{n}"))
            continue
        word = given.text(f"w{n}")
        match |= Q(lower_name__contains=word) | Q(topics_index__contains=word)
        if shape.include_desc:
            match |= Q(description__icontains=word)
    return match


KEYWORD_CANDIDATES_SQL = (
    "SELECT rowid FROM codehost_repository_keyword_fts "
    "WHERE codehost_repository_keyword_fts MATCH %s"
)


def keyword_candidates(words: list[str], topic_only: bool, include_desc: bool) -> str:
    """SQLite's FTS5 query of the rows the trigram table (migration 0008) says may match:
    a superset of keyword_filter's (its folding of case is Unicode's, LIKE's ASCII's), so
    that filter still decides. "" when a word is under 3 characters (no trigram)."""
    phrases = []
    for word in words:
        columns = (
            "{lower_name topics_index description}"
            if include_desc
            else ("{lower_name topics_index}")
        )
        if topic_only:
            word, columns = f",{word},", "topics_index"
        elif "/" in word:
            word, columns = word.partition("/")[2], "lower_name"
        if len(word) < 3:
            return ""
        phrases.append(f"{columns} : {fts5_string(word)}")
    return " OR ".join(phrases)


def _shape_and_values(actor: Actor, options: SearchOptions) -> tuple[_Shape, dict]:
    if options.mode not in MODES:
        raise Invalid(f'Invalid search mode: "{options.mode}"')
    if "\x00" in options.keyword:
        # PostgreSQL text cannot hold a NUL; SQLite's LIKE reads it as the pattern's end
        # (a keyword of "\0" matched every repository) and FTS5 fails on it.
        raise Invalid("Invalid keyword: NUL character")
    order_by = ordering(options.sort, options.order)
    # A public-only token searches what an anonymous caller would find.
    seeker = Actor() if actor.public_only else actor
    values = {
        "me": seeker.owner.pk if seeker.signed_in else None,
        "uid": options.uid,
        "starred": options.starred_by,
        "team": options.team_id,
        "priority": options.priority_owner_id,
    }
    words = []
    for n, word in enumerate(_words(options.keyword)):
        owner_name, slash, repo_name = word.partition("/")
        qualified = bool(slash) and not options.topic_only
        if qualified:
            values[f"o{n}"], word = owner_name, repo_name
        values[f"w{n}"] = word
        words.append(qualified)
    contributor = ""
    if options.uid > 0:
        contributor = (
            "collaborative"
            if options.mode == "collaborative"
            else "exclusive"
            if options.exclusive
            else "any"
        )
    shape = _Shape(
        visibility=visibility_kind(seeker, options.include_private and seeker.signed_in),
        words=tuple(words),
        topic_only=options.topic_only,
        include_desc=options.include_desc,
        contributor=contributor,
        starred=options.starred_by > 0,
        team=options.team_id > 0,
        mode=options.mode,
        is_private=options.is_private,
        template=options.template,
        archived=options.archived,
        priority=options.priority_owner_id > 0,
        order_by=tuple(order_by),
    )
    if connection.vendor == "sqlite" and words:
        candidates = keyword_candidates(
            _words(options.keyword), options.topic_only, options.include_desc
        )
        if candidates:
            values["candidates"] = candidates
            shape = replace(shape, candidates=True)
    return shape, values


def _search(shape: _Shape, given):
    repos = Repository.objects.all()
    visible = visibility_condition(shape.visibility, given.text("me"), keyword=bool(shape.words))
    if visible is not None:
        repos = repos.filter(visible)
    if shape.words:
        repos = repos.filter(keyword_filter(shape, given))
    if shape.candidates:
        candidates = RawSQL(KEYWORD_CANDIDATES_SQL, [given.text("candidates")])
        repos = repos.filter(In(F("id"), candidates))
    if shape.contributor:
        uid = given.number("uid")
        owned = Q(owner_id=uid)
        contributed = Q(id__in=Collaboration.objects.filter(user_id=uid).values("repo_id")) | Q(
            id__in=TeamRepo.objects.filter(team__members=uid).values("repo_id")
        )
        if shape.contributor == "collaborative":
            repos = repos.filter(contributed & ~owned)
        elif shape.contributor == "exclusive":
            repos = repos.filter(owned)
        else:
            repos = repos.filter(owned | contributed)
    if shape.starred:
        starred = Star.objects.filter(user_id=given.number("starred")).values("repo_id")
        repos = repos.filter(id__in=starred)
    if shape.team:
        linked = TeamRepo.objects.filter(team_id=given.number("team")).values("repo_id")
        repos = repos.filter(id__in=linked)
    if shape.mode == "source":
        repos = repos.filter(is_fork=False, is_mirror=False)
    elif shape.mode == "fork":
        repos = repos.filter(is_fork=True)
    elif shape.mode in ("mirror",):
        repos = repos.filter(is_mirror=True)
    elif shape.mode == "collaborative":
        repos = repos.filter(is_mirror=False)
    for field, wanted in (
        ("private", shape.is_private),
        ("is_template", shape.template),
        ("is_archived", shape.archived),
    ):
        if wanted is not None:
            repos = repos.filter(**{field: wanted})
    order_by = shape.order_by
    if shape.priority:
        repos = repos.annotate(
            priority=Case(When(owner_id=given.number("priority"), then=0), default=1)
        )
        order_by = ("priority", *order_by)
    return repos.order_by(*order_by)


def search_repos(actor: Actor, options: SearchOptions):
    """The search as a queryset, its values written in."""
    shape, values = search_plan(actor, options)
    return _search(shape, _Values(values))


def search_plan(actor: Actor, options: SearchOptions) -> tuple[_Shape, dict]:
    """(shape, values) of a search: the shape decides its SQL (`kept_search`), the values
    are bound per run. Invalid for an unknown mode, sort or order."""
    return _shape_and_values(actor, options)


def kept_search(shape: _Shape):
    """The search of `shape` with markers for its values, for a kept list (see
    config.kept): composing and compiling the search's queryset on every request cost
    more than the database spent answering it."""
    return _search(shape, _Markers())


def kept_keyword_page(shape: _Shape):
    """A keyword search's page as (id, total) rows: its ids, in order, each with the count
    of every match (`COUNT(*) OVER ()`), from one pass over the keyword's matches (the
    trigram candidates on SQLite) rather than a count of them and then a walk of the name
    index, which reads every repository sorting before the first match: the work follows
    the matches, not the table. A page past the end has no row to carry the total."""
    return _search(shape, _Markers()).annotate(total=Window(Count("pk"))).values_list("pk", "total")


def _unfiltered(shape: _Shape) -> bool:
    """No filter beside who may see: its total is the visible repositories' count."""
    return not (
        shape.words
        or shape.contributor
        or shape.starred
        or shape.team
        or shape.mode
        or shape.is_private is not None
        or shape.template is not None
        or shape.archived is not None
    )


_TOTALS: dict = {}  # per visibility kind, or per SQLite keyword search shape
COUNT_ALL = Func(template="COUNT(*)", output_field=IntegerField())


def kept_total(shape: _Shape) -> Kept | None:
    """The kept statement of rows whose sum is the search's total: for a search without
    filters, codehost.access.visible_repository_counts (a few rows per owner, not a count
    of every visible repository); for SQLite's keyword searches, the count read from the
    keyword's candidates (the page reads them otherwise). None for the others."""
    if shape.candidates:
        key = shape
        build = lambda: _search(shape, _Markers()).order_by().values_list(COUNT_ALL)  # noqa: E731
    elif _unfiltered(shape):
        key = shape.visibility
        build = lambda: visible_repository_counts(key, arg("me"))  # noqa: E731
    else:
        return None
    total = _TOTALS.get(key)
    if total is None:
        total = Kept(build)
        # Shapes come from the request (a search's number of words): bounded as KeptList's,
        # and a keyword of many words compiled for its request only.
        if len(_TOTALS) < MAX_SHAPES and len(shape.words) <= KEPT_WORDS:
            _TOTALS[key] = total
    return total
