"""Partner apps, their installations in stores, and the OAuth codes and tokens of each."""

from django.db import models

from storefront.models.stores import Store

__all__ = ["SCOPES", "AccessToken", "App", "AuthorizationCode", "Installation"]

SCOPES = (
    "read_content",
    "write_content",
    "read_products",
    "write_products",
    "read_customers",
    "write_customers",
    "read_orders",
    "write_orders",
    "read_coupons",
    "write_coupons",
    "write_scripts",
    "write_shipping",
)


class App(models.Model):
    """A partner application; its id is the OAuth client_id."""

    name = models.CharField(max_length=100)
    # Kept readable: webhooks are signed with it (HMAC-SHA256, as Tiendanube does).
    client_secret = models.CharField(max_length=64)
    redirect_uri = models.URLField(max_length=500)
    # Comma-separated scopes the app asks for, e.g. "read_products,write_products".
    scopes = models.CharField(max_length=300, blank=True)
    # A recurring charge; an unpaid one suspends the app's installations.
    recurring_price = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.pk}: {self.name}"


class Installation(models.Model):
    """An app installed in a store by its owner, with the scopes the owner granted."""

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="installations")
    app = models.ForeignKey(App, on_delete=models.CASCADE, related_name="installations")
    scopes = models.CharField(max_length=300, blank=True)
    # Set while the app's recurring charge for this store is unpaid: the API answers 402.
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspension_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["store", "app"], name="storefront_one_install")
        ]

    def __str__(self):
        return f"app {self.app_id} in store {self.store_id}"

    @property
    def scope_set(self) -> set[str]:
        return {scope for scope in self.scopes.split(",") if scope}


class AuthorizationCode(models.Model):
    """A short-lived, single-use code handed to the app's redirect URI."""

    installation = models.ForeignKey(Installation, on_delete=models.CASCADE, related_name="codes")
    code_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"code for {self.installation}"


class AccessToken(models.Model):
    """The installation's one token (a new exchange replaces it); stored as sha256 only."""

    installation = models.OneToOneField(
        Installation, on_delete=models.CASCADE, related_name="token"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"token for {self.installation}"
