"""A store: its owner, languages and currency, and its suspension (unpaid plan).

Internationalized fields (names, descriptions, handles, attribute and variant values)
are JSON objects keyed by language code, as they travel on the wire.
"""

from django.conf import settings
from django.db import models

__all__ = ["Store"]


class Store(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="stores"
    )
    name = models.JSONField(default=dict)
    description = models.JSONField(default=dict, blank=True)
    # Active language codes, e.g. ["es", "pt"]; main_language is one of them.
    languages = models.JSONField(default=list)
    main_language = models.CharField(max_length=8)
    currency = models.CharField(max_length=3, default="ARS")
    country = models.CharField(max_length=2, default="AR")
    # Set while the store's plan is unpaid: every API call answers 402.
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspension_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.pk}: {self.name.get(self.main_language, '')}"
