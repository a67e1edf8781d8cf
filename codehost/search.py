"""GET /repos/search: Gitea's SearchRepoOptions turned into one queryset.

Keyword matching uses `lower_name LIKE '%kw%'`, `topics_index LIKE` and
`UPPER(description) LIKE`, all served by trigram GIN indexes on PostgreSQL; on SQLite an
FTS5 trigram table of those columns (migration 0008) gives the candidates first.
"""

from dataclasses import dataclass

from django.db import connection
from django.db.models import Case, Q, When
from django.db.models.expressions import RawSQL

from codehost.access import Actor, visible_repos_filter
from codehost.errors import Invalid
from codehost.models import Collaboration, Owner, Repository, Star, TeamRepo

MODES = {"", "source", "fork", "mirror", "collaborative"}
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


def keyword_filter(keyword: str, topic_only: bool, include_desc: bool) -> Q:
    match = Q()
    for word in (part.strip().lower() for part in keyword.split(",")):
        if not word:
            continue
        if topic_only:
            match |= Q(topics_index__contains=f",{word},")
            continue
        owner_name, slash, repo_name = word.partition("/")
        if slash:
            owner = Owner.objects.filter(lower_name=owner_name).values("id")
            match |= Q(owner_id__in=owner, lower_name__contains=repo_name)
            continue
        match |= Q(lower_name__contains=word) | Q(topics_index__contains=word)
        if include_desc:
            match |= Q(description__icontains=word)
    return match


KEYWORD_CANDIDATES_SQL = (
    "SELECT rowid FROM codehost_repository_keyword_fts "
    "WHERE codehost_repository_keyword_fts MATCH %s"
)


def keyword_candidates(keyword: str, topic_only: bool, include_desc: bool) -> Q:
    """SQLite: the rows the trigram table says may match, a superset of keyword_filter's
    (its folding of case is Unicode's, LIKE's ASCII's), so that filter still decides.
    A word under 3 characters has no trigram: then no candidates filter at all."""
    if connection.vendor != "sqlite":
        return Q()
    phrases = []
    for word in (part.strip().lower() for part in keyword.split(",")):
        if not word:
            continue
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
            return Q()
        phrases.append(f'{columns} : "{word.replace(chr(34), chr(34) * 2)}"')
    if not phrases:
        return Q()
    return Q(pk__in=RawSQL(KEYWORD_CANDIDATES_SQL, [" OR ".join(phrases)]))


def search_repos(actor: Actor, options: SearchOptions):
    if options.mode not in MODES:
        raise Invalid(f'Invalid search mode: "{options.mode}"')
    order_by = ordering(options.sort, options.order)
    repos = Repository.objects.all()
    # A public-only token searches what an anonymous caller would find.
    seeker = Actor() if actor.public_only else actor
    visible = visible_repos_filter(seeker, options.include_private and seeker.signed_in)
    if visible is not None:
        repos = repos.filter(visible)
    if options.keyword:
        repos = repos.filter(
            keyword_filter(options.keyword, options.topic_only, options.include_desc),
            keyword_candidates(options.keyword, options.topic_only, options.include_desc),
        )
    if options.uid > 0:
        owned = Q(owner_id=options.uid)
        contributed = Q(
            id__in=Collaboration.objects.filter(user_id=options.uid).values("repo_id")
        ) | Q(id__in=TeamRepo.objects.filter(team__members=options.uid).values("repo_id"))
        if options.mode == "collaborative":
            repos = repos.filter(contributed & ~owned)
        elif options.exclusive:
            repos = repos.filter(owned)
        else:
            repos = repos.filter(owned | contributed)
    if options.starred_by > 0:
        repos = repos.filter(
            id__in=Star.objects.filter(user_id=options.starred_by).values("repo_id")
        )
    if options.team_id > 0:
        repos = repos.filter(
            id__in=TeamRepo.objects.filter(team_id=options.team_id).values("repo_id")
        )
    if options.mode == "source":
        repos = repos.filter(is_fork=False, is_mirror=False)
    elif options.mode == "fork":
        repos = repos.filter(is_fork=True)
    elif options.mode in ("mirror",):
        repos = repos.filter(is_mirror=True)
    elif options.mode == "collaborative":
        repos = repos.filter(is_mirror=False)
    for field, value in (
        ("private", options.is_private),
        ("is_template", options.template),
        ("is_archived", options.archived),
    ):
        if value is not None:
            repos = repos.filter(**{field: value})
    if options.priority_owner_id > 0:
        repos = repos.annotate(
            priority=Case(When(owner_id=options.priority_owner_id, then=0), default=1)
        )
        order_by = ["priority", *order_by]
    return repos.order_by(*order_by)
