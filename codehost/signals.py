"""Every account gets its code hosting namespace (a Gitea "user") when it is created; a
disabled account loses its tokens, a reset password must be changed; an account is
deleted only when it owns no repository and belongs to no organization (Gitea's rule),
and its namespace directory goes with it."""

import shutil

from codehost import git, names
from codehost.errors import Invalid
from codehost.models import AccessToken, OrgMembership, Owner, Repository, TeamMember
from config.account_deletion import Holding


def create_user_namespace(sender, instance, created, raw=False, **kwargs):
    if raw or not created:
        return
    ensure_user_owner(instance)


def ensure_user_owner(user) -> Owner | None:
    """The user's namespace, created on first need; None when another owner holds the name
    (in any case), or when Gitea could not name a user so (an account the registry created
    as Harbor allows: `a:b`, a trailing space, over 40 characters, a reserved name)."""
    owner = Owner.objects.filter(user=user).first()
    if owner is not None:
        return owner
    name = user.get_username()
    try:
        names.check_user_name(name)
    except Invalid:
        return None
    if name_held(name):
        return None
    owner, _ = Owner.objects.get_or_create(
        user=user,
        defaults={"name": name, "email": user.email, "full_name": user.get_full_name()},
    )
    return owner


def name_held(name: str) -> bool:
    """Whether a user or an organization has this name, compared as Gitea compares names
    (config.account_names)."""
    return Owner.objects.filter(lower_name=name.lower()).exists()


def revoke_tokens(sender, user, **kwargs):
    """A disabled account's access tokens are revoked (config.accounts.disable_accounts)."""
    AccessToken.objects.filter(user=user).delete()


def require_password_change(sender, user, **kwargs):
    """After an administrator's password reset the user picks their own (Gitea's rule)."""
    Owner.objects.filter(user=user).update(must_change_password=True)


def account_holdings(user) -> list[Holding]:
    """What keeps the account from being deleted, in Gitea's words (config.account_deletion)."""
    owner = Owner.objects.filter(user=user).first()
    if owner is None:
        return []
    found = []
    if Repository.objects.filter(owner=owner).exists():
        message = f"user still has ownership of repositories [uid: {owner.pk}]"
        found.append(Holding("codehost", message))
    if (
        OrgMembership.objects.filter(user=owner).exists()
        or TeamMember.objects.filter(user=owner).exists()
    ):
        message = f"user still has membership of organizations [uid: {owner.pk}]"
        found.append(Holding("codehost", message))
    return found


def account_leftovers(user):
    """The namespace's directory (with whatever an earlier failure left in it), removed once
    the account is deleted: a new account of that name starts from nothing."""
    owner = Owner.objects.filter(user=user).first()
    if owner is None:
        return lambda: None
    directory = git.root() / owner.lower_name
    return lambda: shutil.rmtree(directory, ignore_errors=True)
