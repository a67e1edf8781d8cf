"""Project members: users or groups holding a role in a project."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from registry.errors import BadRequest, Conflict
from registry.models import Project, ProjectMember, Role, UserGroup


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
