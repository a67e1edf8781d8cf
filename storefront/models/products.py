"""Products with their images and variants (the catalogue an app reads and writes)."""

from django.conf import settings
from django.db import models

from storefront.models.categories import Category
from storefront.models.stores import Store

__all__ = [
    "SKU_CONSTRAINT",
    "Product",
    "ProductImage",
    "ProductText",
    "Variant",
    "VariantQuerySet",
    "product_url",
]


class Product(models.Model):
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="products")
    name = models.JSONField(default=dict)
    description = models.JSONField(default=dict, blank=True)
    handle = models.JSONField(default=dict, blank=True)
    # Option names (Color, Size): a list of up to three i18n objects.
    attributes = models.JSONField(default=list, blank=True)
    published = models.BooleanField(default=True)
    free_shipping = models.BooleanField(default=False)
    requires_shipping = models.BooleanField(default=True)
    video_url = models.URLField(max_length=500, null=True, blank=True)
    seo_title = models.CharField(max_length=70, blank=True)
    seo_description = models.CharField(max_length=320, blank=True)
    brand = models.CharField(max_length=200, null=True, blank=True)
    # Comma-separated, as on the wire: "summer, sale".
    tags = models.CharField(max_length=1000, blank=True)
    categories = models.ManyToManyField(Category, blank=True, related_name="products")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Raised by database triggers on every write to the product, its variants, images,
    # category links and linked categories (the ORM, the admin, raw SQL alike): a
    # `ProductText` of an older revision is never served. Whatever a save writes here,
    # the trigger sets the previous value plus one.
    revision = models.BigIntegerField(default=0, editable=False)

    class Meta:
        indexes = [
            models.Index(fields=["store", "id"]),
            # The list's default order (created_at, id): pages are read off the index.
            models.Index(fields=["store", "created_at", "id"]),
            models.Index(fields=["store", "updated_at"]),
            models.Index(fields=["store", "published"]),
        ]

    def __str__(self):
        return str(next(iter(self.name.values()), self.pk))

    @property
    def canonical_url(self) -> str:
        return product_url(self.store_id, self.pk)


class ProductText(models.Model):
    """A product's JSON text as a page lists it, kept so that a page is read, not written,
    while its products do not change (`storefront.api.product_json`). It is the text of
    `revision` in `form` (the rendering's SQL, the store's languages, the external URL):
    any other revision or form is written again."""

    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    revision = models.BigIntegerField()
    form = models.CharField(max_length=64)
    body = models.BinaryField()

    def __str__(self):
        return f"product {self.product_id} at revision {self.revision}"


def product_url(store_id: int, product_id: int) -> str:
    """A product's page in the store front (served under /stores/{store_id}/)."""
    return f"{settings.EXTERNAL_URL}/stores/{store_id}/products/{product_id}/"


class ProductImage(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="images")
    src = models.URLField(max_length=1000)
    position = models.PositiveIntegerField(default=1)
    alt = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["product", "position"])]

    def __str__(self):
        return self.src


SKU_CONSTRAINT = "storefront_unique_sku_per_store"


class VariantQuerySet(models.QuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for variant in objs:
            variant.fill_store()
        return super().bulk_create(objs, *args, **kwargs)


class Variant(models.Model):
    AGE_GROUPS = ("newborn", "infant", "toddler", "kids", "adult")
    GENDERS = ("female", "male", "unisex")

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="variants")
    # The product's store, repeated so that the database keeps SKUs unique per store
    # (two concurrent creates of one SKU: one wins, the other fails the constraint).
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+", editable=False)
    image = models.ForeignKey(
        ProductImage, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    position = models.PositiveIntegerField(default=1)
    # null price: a "contact us" product.
    price = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    compare_at_price = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    promotional_price = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    # null stock: not managed (infinite).
    stock = models.IntegerField(null=True, blank=True)
    weight = models.DecimalField(max_digits=12, decimal_places=3, default=0)
    width = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    height = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    depth = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    sku = models.CharField(max_length=100, null=True, blank=True)
    # One i18n object per product attribute.
    values = models.JSONField(default=list, blank=True)
    barcode = models.CharField(max_length=100, null=True, blank=True)
    mpn = models.CharField(max_length=100, null=True, blank=True)
    age_group = models.CharField(max_length=10, null=True, blank=True)
    gender = models.CharField(max_length=10, null=True, blank=True)
    cost = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = VariantQuerySet.as_manager()

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["product", "position"])]
        constraints = [
            # NULL (no SKU) is never equal to another NULL: SKU-less variants may repeat.
            models.UniqueConstraint(fields=["store", "sku"], name=SKU_CONSTRAINT),
        ]

    def __str__(self):
        return self.sku or f"variant {self.pk}"

    def save(self, *args, **kwargs):
        self.fill_store()
        super().save(*args, **kwargs)

    def fill_store(self) -> None:
        if self.store_id is None:
            self.store_id = self.product.store_id
