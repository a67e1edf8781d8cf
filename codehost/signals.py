"""Every account gets its code hosting namespace (a Gitea "user") when it is created; a
disabled account loses its tokens, a reset password must be changed."""

from codehost.models import AccessToken, Owner


def create_user_namespace(sender, instance, created, raw=False, **kwargs):
    if raw or not created:
        return
    ensure_user_owner(instance)


def ensure_user_owner(user) -> Owner | None:
    """The user's namespace, created on first need; None when an organization holds the name."""
    owner = Owner.objects.filter(user=user).first()
    if owner is not None:
        return owner
    name = user.get_username()
    if Owner.objects.filter(lower_name=name.lower()).exists():
        return None
    owner, _ = Owner.objects.get_or_create(
        user=user,
        defaults={"name": name, "email": user.email, "full_name": user.get_full_name()},
    )
    return owner


def revoke_tokens(sender, user, **kwargs):
    """A disabled account's access tokens are revoked (config.accounts.disable_accounts)."""
    AccessToken.objects.filter(user=user).delete()


def require_password_change(sender, user, **kwargs):
    """After an administrator's password reset the user picks their own (Gitea's rule)."""
    Owner.objects.filter(user=user).update(must_change_password=True)
