from datetime import timedelta

from celery import shared_task
from django.conf import settings

from registry.distribution import blobs


@shared_task(name="registry.purge_abandoned_uploads", ignore_result=True)
def purge_abandoned_uploads() -> int:
    """Remove upload sessions (and staged bytes) untouched for REGISTRY_UPLOAD_EXPIRY_HOURS."""
    return blobs.purge_abandoned_uploads(timedelta(hours=settings.REGISTRY_UPLOAD_EXPIRY_HOURS))
