"""The system configuration store; keys, defaults and types live in registry.configuration."""

from django.db import models

__all__ = ["ConfigEntry"]


class ConfigEntry(models.Model):
    """One system configuration value; defaults and types live in registry.configuration."""

    key = models.CharField(max_length=128, unique=True)
    value = models.JSONField()
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        verbose_name_plural = "config entries"

    def __str__(self):
        return self.key
