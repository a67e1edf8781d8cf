"""Code hosting background work, and the one place that queues it. Git work runs on the
`git` queue; every task takes ids, keeps its state on our own records and may safely run
twice (acks_late redelivery).

Services never import this module: whoever calls a service that queues work (a view, the
admin, the beat task below) passes it the task's `delay`, which the service calls once
its transaction commits.
"""

from celery import shared_task

from codehost import priority
from codehost.services import migration_worker, migrations, mirrors


@shared_task(name="codehost.migrate_repository", queue="git", ignore_result=True)
def migrate_repository(task_id: int) -> None:
    migration_worker.run_migration(task_id)


# With Redis, workers take every message of priority 0 (the default) before any of a
# lower one: a migration someone waits on overtakes the syncs queued by mirror-sync or beat.
SYNC_PRIORITY = 9


@shared_task(name="codehost.sync_mirror", queue="git", ignore_result=True, priority=SYNC_PRIORITY)
def sync_mirror(mirror_id: int) -> None:
    # Nobody waits on a sync: all of it yields to web requests.
    priority.run_in_background_thread(mirrors.run_sync, mirror_id)


@shared_task(name="codehost.queue_due_mirrors", ignore_result=True)
def queue_due_mirrors() -> int:
    return mirrors.queue_due_mirrors(sync_mirror.delay)


@shared_task(name="codehost.reap_stuck_work", ignore_result=True)
def reap_stuck_work() -> int:
    return migrations.reap_stuck_migrations() + mirrors.reset_stuck_syncs()
