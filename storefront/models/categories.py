"""A store's category tree."""

from django.db import models

from storefront.models.stores import Store

__all__ = ["Category"]


class Category(models.Model):
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="categories")
    name = models.JSONField(default=dict)
    description = models.JSONField(default=dict, blank=True)
    handle = models.JSONField(default=dict, blank=True)
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="children"
    )
    google_shopping_category = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "categories"
        indexes = [
            models.Index(fields=["store", "id"]),
            models.Index(fields=["store", "created_at"]),
            models.Index(fields=["store", "updated_at"]),
        ]

    def __str__(self):
        return str(next(iter(self.name.values()), self.pk))
