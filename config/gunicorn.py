"""gunicorn settings for `make run`: threads because git and blob transfers are long requests."""

import multiprocessing
import os

bind = f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = int(os.environ.get("WEB_TIMEOUT", "600"))
graceful_timeout = 10
accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s'


def post_worker_init(worker):
    """Once a worker has loaded the app, its long-lived objects leave the garbage collector's
    scans and young collections run less often: full scans of Django's few hundred thousand
    resident objects were the slow tail of large list pages (200 products: p95 180 -> 110 ms
    in-process)."""
    import gc

    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # imports every view module before the freeze
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)
