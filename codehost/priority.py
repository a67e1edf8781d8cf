"""Background work at a lower CPU priority than web requests.

On Linux the nice value belongs to a thread, and the processes a thread starts inherit it.
So a mirror sync runs in a short-lived thread that lowers its own priority: the sync's
Python and every git process it starts yield to the web processes (the database server's
share of the work is not ours to lower), and the worker process itself keeps its normal
priority for its next task (an unprivileged process cannot raise it again once lowered).
"""

import os
import threading
from collections.abc import Callable

from django.db import connections

NICENESS = 10


def lower_priority() -> None:
    """The calling thread (or a child before exec) to at least NICENESS."""
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < NICENESS:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
    except OSError:
        # Where priorities are not per thread the work still runs, at the usual priority.
        pass


def run_in_background_thread(function: Callable[..., None], *args) -> None:
    """`function(*args)` in a thread of lower priority; its exception is raised here."""
    failure: list[BaseException] = []

    def body() -> None:
        try:
            lower_priority()
            function(*args)
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)
        finally:
            # The thread's own database connection goes with it.
            connections.close_all()

    worker = threading.Thread(target=body, name="codehost-background")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
