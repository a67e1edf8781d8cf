from celery import shared_task

from registry.gc import services


@shared_task(name="registry.run_garbage_collection", ignore_result=True)
def run_garbage_collection(execution_id: int) -> None:
    services.run(execution_id)


@shared_task(name="registry.start_due_garbage_collection", ignore_result=True)
def start_due_garbage_collection() -> None:
    """Beat sends this every minute; it starts the scheduled run once it is due."""
    services.run_due()
