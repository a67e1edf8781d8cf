"""The server's settings with a periodic task every half second (beat lease tests)."""

from config.settings import *  # noqa: F403

CELERY_BEAT_SCHEDULE = {"tick": {"task": "config.beat_tick", "schedule": 0.5}}
