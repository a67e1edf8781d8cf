from django.apps import AppConfig


class ConfigConfig(AppConfig):
    """Cross-app plumbing: management commands, health checks, the heartbeat task."""

    name = "config"
    label = "config"
    verbose_name = "Site"

    def ready(self):
        from config import (
            signin_throttle,  # noqa: F401 - counts failed sign-ins
            sqlite_text,  # noqa: F401 - refuses NUL in text as PostgreSQL
        )
