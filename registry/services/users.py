"""Users: Harbor's rules for names, e-mail addresses and passwords; sysadmin flag; deletion."""

import itertools
import re

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from config import account_deletion, account_names
from registry import configuration
from registry.errors import BadRequest, Conflict, Forbidden, PreconditionFailed
from registry.models import UserProfile

User = get_user_model()


PASSWORD_MESSAGE = (
    "the password or secret must be 8-128, inclusively, characters long with at least 1 "
    "uppercase letter, 1 lowercase letter and 1 number"
)
FORBIDDEN_NAME_CHARS = set(',"~#%$')
# At least one upper-case letter, one lower-case letter and one digit, in any order
# (written without look-aheads so that the published schema can carry the same pattern).
# ([\s\S] rather than "." so that every regex dialect reads the pattern the same way.)
PASSWORD_PATTERN = (
    r"^[\s\S]*(?:"
    + "|".join(
        r"[\s\S]*".join(order) for order in itertools.permutations(("[A-Z]", "[a-z]", "[0-9]"))
    )
    + r")[\s\S]*$"
)
# Spelled-out white space: JSON Schema validators read "\s" differently from Python.
EMAIL_PATTERN = r"^[^@ \t\n\r\f\v]+@[^@ \t\n\r\f\v]+$"


def validate_password(password: str) -> None:
    if not (8 <= len(password) <= 128 and re.fullmatch(PASSWORD_PATTERN, password)):
        raise BadRequest(PASSWORD_MESSAGE)


def _validate_names(username: str | None, realname: str | None, comment: str | None) -> None:
    for field, value in (("username", username), ("realname", realname)):
        if value is None:
            continue
        if not 1 <= len(value) <= 255:
            raise BadRequest(f"{field} with illegal length")
        if FORBIDDEN_NAME_CHARS & set(value):
            raise BadRequest(f"{field} contains illegal characters")
    if comment is not None and len(comment) > 30:
        raise BadRequest("comment with illegal length")


def _validate_email(email: str) -> None:
    if not re.fullmatch(EMAIL_PATTERN, email) or len(email) > 254:
        raise BadRequest("email with illegal format")


@transaction.atomic
def create_user(
    username: str, email: str, password: str, realname: str = "", comment: str = ""
) -> "User":
    _validate_names(username, realname or None, comment)
    _validate_email(email)
    validate_password(password)
    # Stricter than Harbor, whose names are case-sensitive: the account signs in to the
    # code host too, which reads names ignoring case (config.account_names).
    taken = account_names.name_taken(username)
    if taken or User.objects.filter(email__iexact=email).exists():
        raise Conflict(f"user {username} or email {email} already exists")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError as exc:
        raise Conflict(f"user {username} or email {email} already exists") from exc
    UserProfile.objects.create(user=user, realname=realname, comment=comment)
    return user


@transaction.atomic
def update_user_profile(user, email: str | None, realname: str | None, comment: str | None):
    _validate_names(None, realname or None, comment)
    if email is not None:
        _validate_email(email)
        if User.objects.filter(email__iexact=email).exclude(pk=user.pk).exists():
            raise Conflict(f"email {email} already exists")
        user.email = email
        user.save(update_fields=["email"])
    profile, _ = UserProfile.objects.get_or_create(user=user)
    if realname is not None:
        profile.realname = realname
    if comment is not None:
        profile.comment = comment
    profile.save()


def change_password(user, new_password: str, old_password: str | None, by_admin: bool) -> None:
    if not by_admin and (old_password is None or not user.check_password(old_password)):
        raise Forbidden("the old password is incorrect")
    validate_password(new_password)
    if user.check_password(new_password):
        raise BadRequest("the new password can not be same with the old one")
    user.set_password(new_password)
    user.save(update_fields=["password"])


def set_sysadmin(user, flag: bool) -> None:
    user.is_superuser = flag
    user.is_staff = flag
    user.save(update_fields=["is_superuser", "is_staff"])


def check_local_creation(by_sysadmin: bool) -> None:
    """Harbor creates local accounts only under db_auth, and self-registration never goes
    through the API (only through the sign-up page, which we do not serve)."""
    mode = configuration.get("auth_mode")
    if mode != "db_auth":
        raise Forbidden(f"creating local user is not allowed under auth mode: {mode}")
    if not by_sysadmin and configuration.get("self_registration"):
        raise Forbidden("self-registration cannot be triggered via API")


def delete_user(user, actor) -> None:
    """The account goes from all three services, or, while it still owns repositories,
    organizations or stores elsewhere, nothing changes (412, as Harbor refuses to delete
    a project that still holds repositories). Its projects stay, without an owner."""
    if user.pk == actor.pk:
        raise Forbidden("can not delete yourself")
    try:
        account_deletion.delete_account(user)
    except account_deletion.AccountStillOwns as error:
        raise PreconditionFailed(f"the user can not be deleted: {error}") from error
