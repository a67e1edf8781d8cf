"""The storefront's models, one module per aggregate. Django finds them through this
package, and `from storefront.models import X` names any of them."""

from storefront.models.apps import SCOPES, AccessToken, App, AuthorizationCode, Installation
from storefront.models.categories import Category
from storefront.models.products import (
    SKU_CONSTRAINT,
    Product,
    ProductImage,
    ProductText,
    Variant,
    VariantQuerySet,
    product_url,
)
from storefront.models.scripts import Script
from storefront.models.stores import Store
from storefront.models.webhooks import (
    EVENTS,
    SUSPENSION_EVENTS,
    Delivery,
    DeliveryAttempt,
    Webhook,
)

__all__ = [
    "EVENTS",
    "SCOPES",
    "SKU_CONSTRAINT",
    "SUSPENSION_EVENTS",
    "AccessToken",
    "App",
    "AuthorizationCode",
    "Category",
    "Delivery",
    "DeliveryAttempt",
    "Installation",
    "Product",
    "ProductImage",
    "ProductText",
    "Script",
    "Store",
    "Variant",
    "VariantQuerySet",
    "Webhook",
    "product_url",
]
