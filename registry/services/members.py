"""Project members: users or groups holding a role in a project."""

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from registry.errors import BadRequest, Conflict, NotFound
from registry.ldap import onboarding
from registry.ldap.client import ldap_mode
from registry.models import Project, ProjectMember, Role, UserGroup
from registry.services.project_lock import lock_project


def member_user(user_id: int | None, username: str | None):
    """The account a new member designates, by id or else by username; None when neither
    is given. Runs before add_member's transaction: it may ask the directory."""
    if user_id:
        user = get_user_model().objects.filter(pk=user_id).first()
        if user is None:
            raise BadRequest(f"Failed to get user {user_id}: user {user_id} not found")
        return user
    if username:
        # A known user, or under ldap_auth one onboarded from the directory.
        return onboarding.user_for_member(username)
    return None


def member_group(group_id: int | None, dn: str | None, name: str | None) -> UserGroup | None:
    """The group a new member designates, by id, LDAP DN or name; None when none is given."""
    if group_id:
        group = UserGroup.objects.filter(pk=group_id).first()
        if group is None:
            raise BadRequest(f"Failed to get user group {group_id}: not found")
        return group
    if dn and ldap_mode():
        # A known LDAP group, or one onboarded from the directory.
        return onboarding.group_for_member(dn)
    if dn or name:
        groups = (
            UserGroup.objects.filter(ldap_group_dn=dn)
            if dn
            else UserGroup.objects.filter(group_name=name)
        )
        group = groups.first()
        if group is None:
            raise NotFound(f"resource not found: group name:{name or ''}, group DN:{dn or ''}")
        return group
    return None


def _check_role(role: int) -> None:
    if role not in Role.values:
        raise BadRequest("Failed to update project member, role is not in 1,2,3,4,5")


@transaction.atomic
def add_member(
    project: Project, role: int, user=None, group: UserGroup | None = None
) -> ProjectMember:
    """Add a user or a group (exactly one) to a project; Conflict when already a member."""
    if (user is None) == (group is None):
        raise BadRequest("at least one of member_user or member_group must be provided")
    lock_project(project)
    duplicate = ProjectMember.objects.filter(project=project)
    duplicate = duplicate.filter(user=user) if user is not None else duplicate.filter(group=group)
    if duplicate.exists():
        raise Conflict("The project member specified already exist")
    _check_role(role)
    try:
        with transaction.atomic():
            return ProjectMember.objects.create(project=project, user=user, group=group, role=role)
    except IntegrityError as exc:
        raise Conflict("The project member specified already exist") from exc


def update_member_role(project: Project, member_id: int, role: int) -> None:
    """Harbor answers 200 for a missing member; a role outside 1..5 is refused here."""
    _check_role(role)
    ProjectMember.objects.filter(project=project, pk=member_id).update(
        role=role, update_time=timezone.now()
    )


def remove_member(project: Project, member_id: int) -> None:
    ProjectMember.objects.filter(project=project, pk=member_id).delete()
