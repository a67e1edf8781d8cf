"""Who may call what: a token only reaches its own store, and each resource needs a scope."""

from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission

from storefront.api.authentication import INVALID_TOKEN
from storefront.models import Installation


class InstalledInThisStore(BasePermission):
    """The token belongs to an installation in the store named by the path."""

    def has_permission(self, request, view):
        installation = request.auth
        if not isinstance(installation, Installation) or installation.store_id != view.kwargs.get(
            "store_id"
        ):
            raise NotAuthenticated(INVALID_TOKEN)
        return True


def check_scope(request, resource_scope: str | None) -> None:
    """`resource_scope` is the pair's suffix (e.g. "products"); a write scope implies read.

    Scripts have only a write scope (`write_scripts`), needed for reading too.
    """
    if resource_scope is None:
        return
    granted = request.auth.scope_set
    write = f"write_{resource_scope}"
    if resource_scope == "scripts" or request.method not in SAFE_METHODS:
        required, accepted = write, {write}
    else:
        required, accepted = f"read_{resource_scope}", {f"read_{resource_scope}", write}
    if not accepted & granted:
        raise PermissionDenied(f"This action requires the {required} scope")
