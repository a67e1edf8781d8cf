"""User groups (LDAP, HTTP, OIDC) as registry records."""

from django.db import IntegrityError, transaction

from registry.errors import BadRequest, Conflict, NotFound
from registry.ldap import onboarding
from registry.ldap.client import ldap_mode
from registry.models import UserGroup


def create_user_group(group_name: str, group_type: int, ldap_group_dn: str = "") -> UserGroup:
    if group_type == UserGroup.GroupType.LDAP and ldap_mode():
        # As Harbor: an LDAP group must exist in the directory (asked before the
        # transaction opens: no network round trip holds it).
        onboarding.verify_group_dn(ldap_group_dn)
    return _create_user_group(group_name, group_type, ldap_group_dn)


@transaction.atomic
def _create_user_group(group_name: str, group_type: int, ldap_group_dn: str) -> UserGroup:
    if not group_name:
        raise BadRequest("group_name is required")
    if group_type not in UserGroup.GroupType.values:
        raise BadRequest(f"invalid group type: {group_type}")
    if group_type == UserGroup.GroupType.LDAP and not ldap_group_dn:
        raise NotFound("LDAP Group DN is not found: DN:")
    duplicate = UserGroup.objects.filter(group_type=group_type)
    duplicate = (
        duplicate.filter(ldap_group_dn=ldap_group_dn)
        if ldap_group_dn
        else duplicate.filter(group_name=group_name, ldap_group_dn="")
    )
    message = f"duplicate user group, group name:{group_name}, group type: {group_type}"
    if duplicate.exists():
        raise Conflict(message)
    try:
        with transaction.atomic():
            return UserGroup.objects.create(
                group_name=group_name, group_type=group_type, ldap_group_dn=ldap_group_dn
            )
    except IntegrityError as exc:
        raise Conflict(message) from exc


@transaction.atomic
def rename_user_group(group: UserGroup, group_name: str) -> None:
    if not group_name:
        raise BadRequest("group_name is required")
    # Locked first: a group deleted meanwhile is not found (the save failed: a 500).
    if not UserGroup.objects.select_for_update().filter(pk=group.pk).exists():
        raise NotFound(f"the user group with id {group.pk} is not found")
    group.group_name = group_name
    group.save(update_fields=["group_name", "update_time"])
