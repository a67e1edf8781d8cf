"""The site administrator's dashboard on the admin index: one section per service.

Apps never import each other, so each app contributes its own section: its AppConfig
names a function (`dashboard = "registry.dashboard.section"`) that returns a `Section`
read from the database in a constant number of queries. This module adds the platform
section (worker, beat, broker, database, cache) and collects them in app order.
"""

import time
from dataclasses import dataclass, field

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.utils.module_loading import import_string

from config import health
from config.celery import app as celery_app
from config.tasks import BEAT_KEY, HEARTBEAT_KEY

# The queues workers consume (see `manage.py serve` and the tests' worker).
QUEUES = ("default", "git", "webhooks")


@dataclass
class Figure:
    label: str
    value: object
    # A change list (filtered) that shows what the figure counts.
    link: str = ""
    # A figure that needs the operator's attention is shown as such.
    alert: bool = False


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list]
    empty: str = "none"


@dataclass
class Section:
    title: str
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


def human_bytes(size: int | None) -> str:
    size = float(size or 0)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _age(moment: float | None) -> str:
    if moment is None:
        return "never"
    return f"{max(time.time() - moment, 0):.0f} s ago"


def _queue_depths() -> tuple[dict[str, int], str | None]:
    """Messages waiting in each queue, from the broker itself (Redis or the file broker)."""
    try:
        with celery_app.connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            channel = conn.default_channel
            # A declare is idempotent and answers the queue's message count on both brokers.
            return {
                name: channel.queue_declare(queue=name, durable=True, auto_delete=False)[1]
                for name in QUEUES
            }, None
    except Exception as exc:
        return {}, f"broker unreachable ({exc.__class__.__name__})"


def platform_section() -> Section:
    # Three missed beat ticks is an alert.
    beat_stale = 3 * settings.CELERY_BEAT_SCHEDULE["config-beat-tick"]["schedule"]
    beat = cache.get(HEARTBEAT_KEY)
    beat_seen = cache.get(BEAT_KEY)
    worker_age = time.time() - beat["at"] if beat else None
    depths, broker_error = _queue_depths()
    database_error = health.check_database()
    cache_error = health.check_cache()
    figures = [
        Figure(
            "Worker heartbeat",
            _age(beat["at"] if beat else None),
            alert=worker_age is None or worker_age > health.HEARTBEAT_FRESH_SECONDS * 2,
        ),
        Figure(
            "Beat's last run (seen by a worker)",
            _age(beat_seen),
            alert=beat_seen is None or time.time() - beat_seen > beat_stale,
        ),
        Figure("Database", database_error or "ok", alert=bool(database_error)),
        Figure("Cache", cache_error or "ok", alert=bool(cache_error)),
    ]
    if broker_error:
        figures.append(Figure("Broker", broker_error, alert=True))
    else:
        figures += [Figure(f"Queue {name!r}", depth) for name, depth in depths.items()]
    return Section("Platform", figures=figures)


def sections() -> list[Section]:
    """Every installed app's section (in INSTALLED_APPS order), then the platform's."""
    found = []
    for app_config in apps.get_app_configs():
        path = getattr(app_config, "dashboard", None)
        if path:
            found.append(import_string(path)())
    found.append(platform_section())
    return found
