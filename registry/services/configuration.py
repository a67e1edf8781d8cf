"""System configuration changes, with the rules Harbor applies around them."""

from collections.abc import Mapping

from django.contrib.auth import get_user_model

from registry import configuration
from registry.errors import BadRequest
from registry.ldap import signin

User = get_user_model()


def auth_mode_editable() -> bool:
    """Harbor lets the auth mode change only while no user but the admin exists."""
    return not User.objects.filter(is_superuser=False).exists()


def update_configuration(changes: Mapping) -> dict:
    """Store a subset of configuration keys after Harbor's validation; 400 on bad values."""
    try:
        typed = configuration.validate(dict(changes))
    except configuration.ConfigurationError as exc:
        raise BadRequest(str(exc)) from exc
    mode = typed.get("auth_mode")
    if mode is not None and mode != configuration.get("auth_mode") and not auth_mode_editable():
        raise BadRequest(
            "the auth mode cannot be modified as new users have been inserted into database"
        )
    before = configuration.values()
    if (
        typed.get("ldap_url", before["ldap_url"]) != before["ldap_url"]
        and "ldap_search_password" not in typed
    ):
        # The bind password was given for one directory: never send it to another.
        typed["ldap_search_password"] = ""
    stored = configuration.update(typed)
    if any(before[key] != stored[key] for key in signin.SIGN_IN_KEYS & stored.keys()):
        # Who may sign in through the directory changed: remembered sign-ins are dropped.
        signin.forget_directory_sign_ins()
    return stored
