"""The POSTs of webhook deliveries: signed, on keep-alive connections, a batch at a time.

Each new connection goes only to an address checked as it is resolved then
(`config.outbound`); redirects are never followed; answers are not read past a limit.
The claims come from `storefront.services.webhook_delivery.claim`, which records what
`post_all` fills in.
"""

import hashlib
import hmac
import os
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_for

import requests
from django.conf import settings

from config import outbound

SIGNATURE_HEADER = "X-Linkedstore-Hmac-Sha256"
# Deliveries per task, and POSTs one worker process has in flight at once.
BATCH_SIZE = 10
# Answers are not read; up to this much is drained so that the connection can be reused.
MAX_ANSWER_BYTES = 64 * 1024


def attempt_limit() -> float:
    """The most one POST may take, answer included (a trickling endpoint is cut there)."""
    return 2 * settings.STOREFRONT_WEBHOOK_TIMEOUT + 1


def sign(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class _Sender:
    """Per process: a keep-alive session and the threads that POST a batch in parallel.

    Worker children fork, so a sender made before the fork is never reused after it.
    """

    def __init__(self):
        self.pid = os.getpid()
        self.session = requests.Session()
        self.session.trust_env = False  # no proxies from the environment for app endpoints
        # Each new connection goes only to the address checked as it is resolved then;
        # redirects are never followed (allow_redirects=False below).
        adapter = outbound.CheckedAdapter(
            lambda: settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS,
            pool_connections=32,
            pool_maxsize=BATCH_SIZE,
        )
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.threads = ThreadPoolExecutor(BATCH_SIZE, thread_name_prefix="webhook-post")


_sender: _Sender | None = None


def _current_sender() -> _Sender:
    global _sender
    if _sender is None or _sender.pid != os.getpid():
        _sender = _Sender()
    return _sender


def _post(session: requests.Session, claim_) -> tuple[int | None, str, int]:
    """POST the exact body, signed: (status code, error text, duration in ms)."""
    body = claim_.delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Storefront-Webhooks/1.0",
        SIGNATURE_HEADER: sign(body, claim_.delivery.secret),
    }
    timeout = settings.STOREFRONT_WEBHOOK_TIMEOUT
    started = time.monotonic()
    try:
        # The timeouts bound each read; the cut-off the whole answer (a trickle).
        with (
            outbound.cut_off_after(attempt_limit()),
            session.post(
                claim_.delivery.url,
                data=body,
                headers=headers,
                timeout=(timeout, timeout),
                allow_redirects=False,
                stream=True,
            ) as response,
        ):
            result = response.status_code, ""
            _drain(response)
    except requests.Timeout:
        result = None, f"no answer within {timeout} s"
    except (requests.RequestException, OSError) as error:
        if time.monotonic() - started >= attempt_limit():
            result = None, "no complete answer within the attempt limit"
        else:
            result = None, f"{type(error).__name__}: {error}"[:500]
    return *result, int((time.monotonic() - started) * 1000)


def _drain(response: requests.Response) -> None:
    """Read the answer, up to a limit: a connection whose answer was read to the end goes
    back to the pool for the next POST (one closed unread is dropped)."""
    read = 0
    try:
        for chunk in response.iter_content(16384):
            read += len(chunk)
            if read > MAX_ANSWER_BYTES:
                return
    except requests.RequestException:
        pass  # the status has come; the rest of the answer does not matter


def post_all(claims: list) -> None:
    """POST every claimed delivery at once; fills in each claim's result and attempt."""
    global _sender
    sender = _current_sender()
    started = time.monotonic()
    futures = {sender.threads.submit(_post, sender.session, item): item for item in claims}
    _, late = wait_for(futures, timeout=attempt_limit())
    for future, item in futures.items():
        if future in late:
            # An endpoint trickling its answer keeps a thread: this sender is left to it.
            item.status_code, item.error = None, "no complete answer within the attempt limit"
            item.duration_ms = int((time.monotonic() - started) * 1000)
        else:
            item.status_code, item.error, item.duration_ms = future.result()
    if late:
        sender.threads.shutdown(wait=False)
        _sender = None
