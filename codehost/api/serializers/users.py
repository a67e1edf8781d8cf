"""Gitea's User, Organization, Team and AccessToken records, rendered from model instances.

Context of a rendering: `actor` (the caller; anonymous when absent); `profile` (a User
read for itself, not as a repository's owner); a team's `with_org`;
a token's `raw_token` (shown once, in the creation answer).
"""

from rest_framework import serializers

from codehost.access import Actor
from codehost.api.serializers.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    avatar_url,
    base_url,
    gitea_time,
    settings_domain,
)
from codehost.models import AccessMode, Owner, UnitType
from config.records import Field, Record


def _actor(context) -> Actor:
    return (context or {}).get("actor") or Actor()


def _private_view(owner: Owner, context) -> bool:
    """Self-only fields are blank unless the caller is that user or an admin."""
    actor = _actor(context)
    return actor.is_admin or (actor.owner is not None and actor.owner.pk == owner.pk)


def _account(owner: Owner, context):
    """The account behind `owner`, read for the private view only (the caller's own is
    already loaded)."""
    if not owner.user_id or not _private_view(owner, context):
        return None
    actor = _actor(context)
    return (
        actor.owner.user if actor.owner is not None and actor.owner.pk == owner.pk else owner.user
    )


def _email(owner: Owner, context) -> str:
    """A User's email: the address for signed-in callers, else Gitea's placeholder. An
    organization shows its own address, even blank, to signed-in callers; to others the
    placeholder when read as a user (GET /users/{org}), nothing as a repository's owner."""
    actor = _actor(context)
    if owner.is_organization and not actor.signed_in and not (context or {}).get("profile"):
        return ""
    if actor.signed_in and (owner.email or owner.is_organization):
        return owner.email
    return f"{owner.pk}+{owner.lower_name}@noreply.{settings_domain()}"


def _org_email(org: Owner, context) -> str:
    return org.email if _actor(context).signed_in else ""


def _language(owner: Owner, context) -> str:
    # An organization never signs in, so it has no interface language.
    return "en-US" if _private_view(owner, context) and not owner.is_organization else ""


def _active(owner: Owner, context) -> bool:
    """Self-only; Gitea creates organizations active, and they stay so."""
    if owner.is_organization:
        return _private_view(owner, context)
    return _account_flag("is_active")(owner, context)


def _last_login(owner, context) -> str:
    account = _account(owner, context)
    return gitea_time(account.last_login if account else None)


def _account_flag(name: str):
    def get(owner, context) -> bool:
        account = _account(owner, context)
        return bool(account and getattr(account, name))

    return get


def _url(owner, context) -> str:
    return f"{base_url()}{owner.name}"


USER = Record(
    "User",
    {
        "id": Field(StrictIntegerField(), "pk"),
        "login": Field(StrictCharField(), "name"),
        "login_name": Field(StrictCharField(), fixed=""),
        "source_id": Field(StrictIntegerField(), fixed=0),
        "full_name": Field(StrictCharField()),
        "email": Field(StrictCharField(), get=_email),
        "avatar_url": Field(StrictCharField(), get=lambda owner, context: avatar_url(owner)),
        "html_url": Field(StrictCharField(), get=_url),
        "language": Field(StrictCharField(), get=_language),
        "is_admin": Field(StrictBooleanField(), get=_account_flag("is_superuser")),
        "last_login": Field(serializers.DateTimeField(), get=_last_login),
        "created": Field(serializers.DateTimeField(), "created_at", convert=gitea_time),
        "restricted": Field(StrictBooleanField(), fixed=False),
        "active": Field(StrictBooleanField(), get=_active),
        "prohibit_login": Field(StrictBooleanField(), fixed=False),
        "location": Field(StrictCharField()),
        "website": Field(StrictCharField()),
        "description": Field(StrictCharField()),
        "visibility": Field(StrictCharField()),
        "followers_count": Field(StrictIntegerField(), fixed=0),
        "following_count": Field(StrictIntegerField(), fixed=0),
        "starred_repos_count": Field(StrictIntegerField(), "num_stars"),
        "username": Field(StrictCharField(), "name"),
    },
    attributes=True,
)

ORGANIZATION = Record(
    "Organization",
    {
        "id": Field(StrictIntegerField(), "pk"),
        "name": Field(StrictCharField()),
        "full_name": Field(StrictCharField()),
        "email": Field(StrictCharField(), get=_org_email),
        "avatar_url": Field(StrictCharField(), get=lambda org, context: avatar_url(org)),
        "description": Field(StrictCharField()),
        "website": Field(StrictCharField()),
        "location": Field(StrictCharField()),
        "visibility": Field(StrictCharField()),
        "repo_admin_change_team_access": Field(StrictBooleanField()),
        "username": Field(StrictCharField(), "name"),
    },
    attributes=True,
)

UNIT_ORDER = {unit.label: unit.value for unit in UnitType}
MODE_NAMES = {mode.value: mode.label for mode in AccessMode}


def _units_map(team) -> dict:
    mode = MODE_NAMES[team.access_mode]
    if team.access_mode >= AccessMode.ADMIN:
        return dict.fromkeys(UNIT_ORDER, mode)
    return {key: MODE_NAMES[value] for key, value in team.units.items()}


def _organization(team, context) -> dict | None:
    return ORGANIZATION.render(team.org, context) if context.get("with_org") else None


def _units(team, context) -> list | None:
    return sorted(_units_map(team), key=lambda key: UNIT_ORDER.get(key, 99)) or None


TEAM = Record(
    "Team",
    {
        "id": Field(StrictIntegerField(), "pk"),
        "name": Field(StrictCharField()),
        "description": Field(StrictCharField()),
        "organization": Field(ORGANIZATION.serializer(allow_null=True), get=_organization),
        "includes_all_repositories": Field(StrictBooleanField()),
        "permission": Field(
            serializers.ChoiceField(choices=[m.label for m in AccessMode]),
            "access_mode",
            convert=MODE_NAMES.__getitem__,
        ),
        "units": Field(serializers.ListField(child=StrictCharField(), allow_null=True), get=_units),
        "units_map": Field(
            serializers.DictField(child=StrictCharField()),
            get=lambda team, context: dict(sorted(_units_map(team).items())),
        ),
        "can_create_org_repo": Field(StrictBooleanField()),
    },
    attributes=True,
)


class TeamSearchResultsSerializer(serializers.Serializer):
    ok = StrictBooleanField()
    data = TEAM.serializer(many=True)


ACCESS_TOKEN = Record(
    "AccessToken",
    {
        "id": Field(StrictIntegerField(), "pk"),
        "name": Field(StrictCharField()),
        # The token itself is shown once, in the creation answer only.
        "sha1": Field(
            StrictCharField(), get=lambda token, context: (context or {}).get("raw_token", "")
        ),
        "token_last_eight": Field(StrictCharField()),
        "scopes": Field(serializers.ListField(child=StrictCharField()), "scope_list"),
        "created_at": Field(serializers.DateTimeField(), convert=gitea_time),
        "last_used_at": Field(serializers.DateTimeField(), convert=gitea_time),
    },
    attributes=True,
)


# Rendered from the settings.
VERSION = Record(
    "Version", {"version": Field(StrictCharField(), "CODEHOST_GITEA_VERSION")}, attributes=True
)

# Rendered from the paginator class; what is not modelled is Gitea's default.
API_SETTINGS = Record(
    "APISettings",
    {
        "max_response_items": Field(StrictIntegerField(), "max_page_size"),
        "default_paging_num": Field(StrictIntegerField(), "default_page_size"),
        "default_git_trees_per_page": Field(StrictIntegerField(), fixed=1000),
        "default_max_blob_size": Field(StrictIntegerField(), fixed=10485760),
        "default_max_response_size": Field(StrictIntegerField(), fixed=104857600),
    },
    attributes=True,
)
