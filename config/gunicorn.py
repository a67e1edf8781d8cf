"""gunicorn settings for `make run`: threads because git and blob transfers are long requests."""

import multiprocessing
import os

from gunicorn import glogging

from config.logging import REDACTED, SECRET_HEADERS, redact_query, redact_text, redact_url

bind = f"127.0.0.1:{os.environ.get('PORT', '8000')}"
# One process per core: 8 threads each cover the waits on the database and the network,
# and a third process on 2 cores added ~100 MiB under load and no requests per second.
workers = int(os.environ.get("WEB_CONCURRENCY", max(multiprocessing.cpu_count(), 2)))
worker_class = "config.gunicorn_worker.LingeringThreadWorker"
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = int(os.environ.get("WEB_TIMEOUT", "600"))
graceful_timeout = 10
accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s'


# The app is loaded once, in the master, and the workers are forked from it: they share
# its memory pages instead of each importing Django (master and 3 workers idle: 277 -> 126
# MiB PSS).
preload_app = True


def when_ready(server):
    """Before the first fork, the loaded app's long-lived objects leave the garbage
    collector's scans (gc.freeze), and young collections run less often: full scans of
    Django's few hundred thousand resident objects were the slow tail of large list pages
    (200 products: p95 180 -> 110 ms in-process). Frozen in the master, a worker's
    collections never write to the pages it shares with the master and its siblings."""
    import gc

    from django.db import connections

    load_app()
    # Nothing the workers inherit may be a live connection (none is opened at import;
    # this keeps it so).
    connections.close_all()
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)


def load_app():
    """What every web process would otherwise load on its first requests: each view
    module, and the tables of settings.PROCESS_WARM_UP. Done again, it costs nothing."""
    from django.conf import settings
    from django.urls import get_resolver
    from django.utils.module_loading import import_string

    _ = get_resolver().url_patterns
    for warm_up in settings.PROCESS_WARM_UP:
        import_string(warm_up)()


class RedactingLogger(glogging.Logger):
    """gunicorn's logger whose lines never carry a secret: the values of secret query
    parameters (?token=, ?access_token=, ...) in the request line, query and referer, a
    URL's user:password, and credential headers, are replaced by [REDACTED]
    (config.logging names them); in its error log too, where a refused request line is
    quoted whole ("Invalid request from ip=...: Invalid HTTP request line: '...'")."""

    def critical(self, msg, *args, **kwargs):
        super().critical(*_redacted(msg, args), **kwargs)

    def error(self, msg, *args, **kwargs):
        super().error(*_redacted(msg, args), **kwargs)

    def warning(self, msg, *args, **kwargs):
        super().warning(*_redacted(msg, args), **kwargs)

    def info(self, msg, *args, **kwargs):
        super().info(*_redacted(msg, args), **kwargs)

    def debug(self, msg, *args, **kwargs):
        super().debug(*_redacted(msg, args), **kwargs)

    def exception(self, msg, *args, **kwargs):
        super().exception(*_redacted(msg, args), **kwargs)

    def access(self, resp, req, environ, request_time):
        """The line of `access_log_format` above without gunicorn's every-atom dictionary
        (each request and response header, the environ, a timestamp), which cost ~0.1 ms
        of CPU per request; another format takes gunicorn's path."""
        if self.cfg.access_log_format != access_log_format or not self.access_log_enabled:
            super().access(resp, req, environ, request_time)
            return
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        request_id = next((v for k, v in resp.headers if k.lower() == "x-request-id"), "-")
        millis = request_time.seconds * 1000 + request_time.microseconds // 1000
        target = redact_url(environ.get("RAW_URI", ""))
        line = (
            f'{environ.get("REMOTE_ADDR", "-")} "{environ["REQUEST_METHOD"]} {_quoted(target)}'
            f' {environ["SERVER_PROTOCOL"]}" {status} {"-" if sent is None else sent}'
            f" {millis}ms rid={_quoted(request_id)}"
        )
        self.access_log.info("%s", line)

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        target = redact_url(environ.get("RAW_URI", ""))
        atoms["r"] = f"{environ['REQUEST_METHOD']} {target} {environ['SERVER_PROTOCOL']}"
        atoms["q"] = redact_query(atoms["q"] or "")
        atoms["f"] = redact_url(atoms["f"])
        for name in atoms:
            if name.endswith("}i") and name[1:-2] in SECRET_HEADERS:
                atoms[name] = REDACTED
        return atoms


logger_class = RedactingLogger


def _redacted(msg, args: tuple) -> tuple:
    """The message and its arguments with secrets redacted (texts only: a request's method
    and URI are arguments of "Error handling request %s %s")."""
    texts = (redact_text(arg) if isinstance(arg, str) else arg for arg in args)
    return (redact_text(msg) if isinstance(msg, str) else msg, *texts)


def _quoted(value: str) -> str:
    """As gunicorn escapes an atom: a double quote cannot end the request line early."""
    return value.replace('"', '\\"')
