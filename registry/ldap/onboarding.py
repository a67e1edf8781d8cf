"""Bringing directory users and groups into the registry: import, and members designated
by a username or a group DN that the registry does not know yet (Harbor's SearchAndOnBoard).
"""

import logging

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from registry.errors import BadRequest, NotFound
from registry.ldap import client, directory, syntax
from registry.models import UserGroup, UserProfile

logger = logging.getLogger(__name__)

# Harbor's reasons in the 404 body of POST /ldap/users/import.
EMPTY_UID = "empty_uid"
FAILED_SEARCH = "failed_search_user"
UNKNOWN_USER = "unknown_user"


def onboard_user(entry: directory.DirectoryUser):
    """The registry account of a directory user, created (without a local password, with
    e-mail and real name) when missing; an existing account is returned unchanged."""
    model = get_user_model()
    existing = model.objects.filter(username__iexact=entry.username).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            user = model(username=entry.username, email=entry.email)
            user.set_unusable_password()
            user.save()
            UserProfile.objects.create(user=user, realname=entry.realname)
            return user
    except IntegrityError:
        # A concurrent import or first sign-in created it first.
        return model.objects.get(username__iexact=entry.username)


def import_users(uids: list[str]) -> list[dict]:
    """Import each uid from the configured directory; returns the failures as
    [{"uid", "error"}]. One connection serves every uid, so a directory that is down
    fails the whole request once instead of once per uid."""
    conf = client.current_settings()
    client.require_configured(conf)
    failures = []
    found = {}
    with client.connect(conf) as connection:
        for uid in uids:
            if not uid:
                failures.append({"uid": uid, "error": EMPTY_UID})
                continue
            try:
                matches = directory.search_users_on(connection, conf, uid)
            except client.DirectoryError as exc:
                logger.warning("LDAP search for %s failed: %s", uid, exc.message)
                failures.append({"uid": uid, "error": FAILED_SEARCH})
                continue
            if not matches:
                failures.append({"uid": uid, "error": UNKNOWN_USER})
                continue
            found[uid] = matches[0]
    for uid, entry in found.items():
        try:
            onboard_user(entry)
        except Exception:
            logger.exception("importing LDAP user %s failed", uid)
            failures.append({"uid": uid, "error": f"failed to import user: {uid}"})
    return failures


def user_for_member(username: str):
    """The account a member designated by username refers to, onboarded from the
    directory under ldap_auth; NotFound (Harbor's text) when there is none."""
    model = get_user_model()
    user = model.objects.filter(username=username).first()
    if user is not None:
        return user
    if client.ldap_mode():
        entry = directory.find_user(client.current_settings(), username)
        if entry is not None:
            return onboard_user(entry)
    raise NotFound(f"user {username} is not found")


def verify_group_dn(group_dn: str) -> directory.DirectoryGroup:
    """The directory group at this DN; BadRequest with Harbor's text when there is none."""
    if not syntax.is_dn(group_dn):
        raise BadRequest(f"invalid DN syntax. DN: {group_dn}")
    found = directory.group_by_dn(client.current_settings(), group_dn)
    if found is None:
        raise BadRequest(f"LDAP Group DN is not found: DN:{group_dn}")
    return found


def group_for_member(group_dn: str) -> UserGroup:
    """The LDAP user group with this DN, onboarded from the configured directory when the
    registry does not have it yet (its name is the group's name attribute)."""
    existing = UserGroup.objects.filter(
        group_type=UserGroup.GroupType.LDAP, ldap_group_dn__iexact=group_dn
    ).first()
    if existing is not None:
        return existing
    found = verify_group_dn(group_dn)
    try:
        with transaction.atomic():
            return UserGroup.objects.create(
                group_name=found.name,
                group_type=UserGroup.GroupType.LDAP,
                ldap_group_dn=found.dn,
            )
    except IntegrityError:
        return UserGroup.objects.get(
            group_type=UserGroup.GroupType.LDAP, ldap_group_dn__iexact=found.dn
        )
