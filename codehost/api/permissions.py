"""Token scopes: a token may call a route only if it holds the route's categories
(`read:<cat>` for GET/HEAD, `write:<cat>` otherwise; every category when there are two)."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from codehost.api.authentication import Credential
from codehost.services import accounts


class TokenScopePermission(BasePermission):
    def has_permission(self, request, view):
        credential = request.auth
        if not isinstance(credential, Credential) or credential.token is None:
            return True
        categories = view.scope_categories(request)
        if not categories:
            return True
        write = request.method not in SAFE_METHODS
        scopes = credential.token.scope_list
        if accounts.scopes_allow(scopes, categories, write):
            return True
        level = "write" if write else "read"
        required = " ".join(f"{level}:{category}" for category in categories)
        self.message = (
            "token does not have at least one of required scope(s), "
            f"required=[{required}], token scope={','.join(scopes)}"
        )
        return False
