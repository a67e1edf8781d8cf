"""Scripts apps add to a store's pages."""

from django.db import models

from storefront.models.apps import App
from storefront.models.stores import Store

__all__ = ["Script"]


class Script(models.Model):
    """JavaScript an app adds to the store front of one store."""

    EVENTS = ("onload", "onfirstinteraction")
    PLACES = ("store", "checkout")

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="scripts")
    app = models.ForeignKey(App, on_delete=models.CASCADE, related_name="scripts")
    src = models.URLField(max_length=1000)
    event = models.CharField(max_length=20, default="onload")
    # Comma-separated subset of PLACES, e.g. "store,checkout".
    where = models.CharField(max_length=20, default="store")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["store", "app", "id"])]

    def __str__(self):
        return self.src
