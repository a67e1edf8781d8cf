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
