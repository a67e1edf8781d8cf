"""Accounts of the code host: users created by an admin, API tokens and their
scopes, and the namespace (Owner) of a signed-in user.
"""

import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from codehost import names
from codehost.errors import Forbidden, Invalid, NotFound, Rejected
from codehost.models import AccessToken, Owner, Visibility
from codehost.signals import ensure_user_owner
from config import account_deletion, account_names
from config.auth import hash_token
from config.limits import INT64_MAX


def create_user(
    *,
    username: str,
    email: str,
    password: str,
    full_name: str = "",
    visibility: str = "",
    must_change_password: bool = True,
) -> Owner:
    names.check_user_name(username, "UserName")
    if not password:
        raise Rejected("PasswordIsRequired")
    if len(password) < 8:
        raise Rejected("PasswordIsRequired")
    User = get_user_model()
    # Also an account of another service whose name differs only in case.
    if account_names.name_taken(username):
        raise Invalid(f"user already exists [name: {username}]")
    if User.objects.filter(email__iexact=email).exists():
        raise Invalid(f"e-mail already in use [email: {email}]")
    try:
        with transaction.atomic():
            user = User(username=username, email=email)
            user.set_password(password)
            user.save()
            owner = Owner.objects.get(user=user)
            owner.full_name = full_name
            owner.visibility = visibility or Visibility.PUBLIC
            owner.must_change_password = must_change_password
            owner.save()
    except IntegrityError as exc:
        raise Invalid(f"user already exists [name: {username}]") from exc
    return owner


SCOPE_CATEGORIES = [
    "activitypub", "admin", "misc", "notification", "organization", "package", "issue",
    "repository", "user",
]  # fmt: skip


PUBLIC_ONLY = "public-only"


def normalize_scopes(scopes: list[str]) -> list[str]:
    """Gitea's normalization: `all` swallows everything, write:X implies read:X."""
    if not scopes:
        raise Rejected("access token must have a scope")
    wanted = set()
    for raw in scopes:
        for scope in str(raw).split(","):
            scope = scope.strip()
            if not scope:
                continue
            level, _, category = scope.partition(":")
            valid = scope in ("all", PUBLIC_ONLY) or (
                level in ("read", "write") and category in SCOPE_CATEGORIES
            )
            if not valid:
                raise Rejected(f"invalid access token scope provided: {scope}")
            wanted.add(scope)
    if not wanted:
        raise Rejected("access token must have a scope")
    if "all" in wanted:
        return sorted({"all"} | ({PUBLIC_ONLY} & wanted))
    return sorted(s for s in wanted if not (s.startswith("read:") and f"write:{s[5:]}" in wanted))


def scopes_allow(scopes: list[str], categories: list[str], write: bool) -> bool:
    if "all" in scopes:
        return True
    for category in categories:
        needed = {f"write:{category}"} if write else {f"read:{category}", f"write:{category}"}
        if not needed & set(scopes):
            return False
    return True


def create_token(user, name: str, scopes: list[str]) -> tuple[AccessToken, str]:
    if not name:
        raise Invalid("[Name]: Required")
    normalized = normalize_scopes(scopes)
    if AccessToken.objects.filter(user=user, name=name).exists():
        raise Rejected("access token name has been used already")
    raw = secrets.token_hex(20)
    try:
        with transaction.atomic():
            token = AccessToken.objects.create(
                user=user,
                name=name,
                token_hash=hash_token(raw),
                token_last_eight=raw[-8:],
                scopes=",".join(normalized),
            )
    except IntegrityError as exc:
        raise Rejected("access token name has been used already") from exc
    return token, raw


def token_account(actor, target: Owner, username: str):
    """The account whose tokens `actor` lists, creates or deletes: the actor's own, or any
    user's for a site admin (Gitea's "doer should be the site admin or be same as the
    contextUser", checked first, so anybody else gets 403 for an organization too); an
    organization never signs in, so it has no tokens even for an admin."""
    if not (actor.is_admin or target.pk == actor.owner.pk):
        raise Forbidden("doer should be the site admin or be same as the contextUser")
    if target.is_organization or target.user_id is None:
        raise NotFound(f"user does not exist [name: {username}]")
    return target.user


def delete_token(user, token: str) -> None:
    """`token` is the token's id when it is all digits, its name otherwise."""
    tokens = AccessToken.objects.filter(user=user)
    # As Gitea's ParseInt: an int64 in ASCII digits is an id, anything else a name ("²"
    # passes str.isdigit but is no number; int() refuses more than 4300 digits, an int64
    # has 19). No name holds a NUL (nor can PostgreSQL).
    if token.isascii() and token.isdigit() and len(token) <= 19 and int(token) <= INT64_MAX:
        tokens = tokens.filter(pk=int(token))
    else:
        tokens = tokens.filter(name=token) if "\x00" not in token else tokens.none()
    deleted, _ = tokens.delete()
    if not deleted:
        raise NotFound()


def user_owner(user) -> Owner:
    """The namespace of a signed-in Django user (free when authentication loaded it)."""
    try:
        owner = user.codehost_owner
    except Owner.DoesNotExist:
        owner = ensure_user_owner(user)
    if owner is None:
        raise Forbidden("this account has no code hosting namespace")
    # Rendering the caller's own user object reads the account: it is this one.
    owner.user = user
    return owner


def delete_user(doer, username: str) -> None:
    """An admin deletes an account from all three services; refused while it still owns
    something anywhere (config.account_deletion asks each app)."""
    owner = Owner.objects.filter(lower_name=username.lower()).first()
    if owner is None:
        raise NotFound(f"user does not exist [name: {username}]")
    if owner.is_organization:
        raise Invalid(f"{owner.name} is an organization not a user")
    if owner.user_id == doer.pk:
        raise Invalid("you cannot delete yourself")
    try:
        account_deletion.delete_account(owner.user)
    except account_deletion.AccountStillOwns as error:
        raise Invalid(str(error)) from error
