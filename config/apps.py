from django.apps import AppConfig


class ConfigConfig(AppConfig):
    """Cross-app plumbing: management commands, health checks, the heartbeat task."""

    name = "config"
    label = "config"
    verbose_name = "Site"
