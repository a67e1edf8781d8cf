"""Organizations: creating one makes its Owners team with the creator in it."""

from dataclasses import dataclass

from django.db import IntegrityError, transaction

from codehost import names
from codehost.errors import Invalid
from codehost.models import AccessMode, OrgMembership, Owner, Team, TeamMember, Visibility
from codehost.services.teams import admin_units


@dataclass
class OrgOptions:
    username: str
    full_name: str = ""
    email: str = ""
    description: str = ""
    website: str = ""
    location: str = ""
    visibility: str = ""
    repo_admin_change_team_access: bool = False


def create_org(creator: Owner, options: OrgOptions) -> Owner:
    names.check_user_name(options.username, "UserName")
    if options.visibility and options.visibility not in Visibility.values:
        raise Invalid("[Visibility]: In")
    try:
        with transaction.atomic():
            org = Owner.objects.create(
                kind=Owner.Kind.ORGANIZATION,
                name=options.username,
                full_name=options.full_name,
                email=options.email,
                description=options.description,
                website=options.website,
                location=options.location,
                visibility=options.visibility or Visibility.PUBLIC,
                repo_admin_change_team_access=options.repo_admin_change_team_access,
            )
            owners = Team.objects.create(
                org=org,
                name=Team.OWNERS_NAME,
                access_mode=AccessMode.OWNER,
                includes_all_repositories=True,
                can_create_org_repo=True,
                units=admin_units(AccessMode.OWNER),
            )
            TeamMember.objects.create(team=owners, user=creator)
            owners.num_members = 1
            owners.save(update_fields=["num_members"])
            OrgMembership.objects.create(org=org, user=creator)
    except IntegrityError as exc:
        raise Invalid(f"user already exists [name: {options.username}]") from exc
    return org
