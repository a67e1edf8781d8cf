"""Race tests' threads: started together, or one paused at a chosen point while the other
runs. Each thread closes its database connection (a thread's connection is its own and
would otherwise stay open past the test, blocking the test database's flush or drop).

An exception a test expects (`expected=`) is an outcome like a return value; any other is
raised in the test once every thread is done, so a 500-to-be shows its own traceback
instead of a missing key in an outcomes table."""

import threading
from collections.abc import Callable, Sequence

from django.db import connections

TIMEOUT = 30


def run_together(
    calls: Sequence[Callable[[], object]],
    expected: tuple[type[BaseException], ...] = (),
    timeout: float = TIMEOUT,
) -> list[object]:
    """Run each call in its own thread, all released at once behind a barrier; returns
    their outcomes in the order of `calls`: a return value, or an `expected` exception."""
    barrier = threading.Barrier(len(calls), timeout=timeout)
    return _run([_after(barrier.wait, call) for call in calls], expected, timeout)


class Interleaving:
    """`first` runs until it reaches `pause()` (directly, or through a function wrapped by
    `before`/`after`), then waits while `then` runs: until `then` is done, or `grace`
    seconds if `then` blocks on something `first` holds (the race under test). Only the
    first thread pauses; `then` calling the same wrapped function goes straight through."""

    def __init__(self, grace: float = 1.0, timeout: float = TIMEOUT):
        self.grace, self.timeout = grace, timeout
        self.reached, self.started, self.done = (threading.Event() for _ in range(3))
        self.paused = False
        self._first: threading.Thread | None = None

    def pause(self) -> None:
        if threading.current_thread() is not self._first or self.paused:
            return
        self.paused = True
        self.reached.set()
        assert self.started.wait(self.timeout), "the second call never started"
        self.done.wait(self.grace)

    def before(self, function: Callable) -> Callable:
        def paused_then_called(*args, **kwargs):
            self.pause()
            return function(*args, **kwargs)

        return paused_then_called

    def after(self, function: Callable) -> Callable:
        def called_then_paused(*args, **kwargs):
            found = function(*args, **kwargs)
            self.pause()
            return found

        return called_then_paused

    def run(
        self,
        first: Callable[[], object],
        then: Callable[[], object],
        expected: tuple[type[BaseException], ...] = (),
    ) -> tuple[object, object]:
        def run_first():
            self._first = threading.current_thread()
            try:
                return first()
            finally:
                self.reached.set()  # never paused (an error before the point): go on

        def run_then():
            self.reached.wait(self.timeout)
            self.started.set()
            try:
                return then()
            finally:
                self.done.set()

        outcome_first, outcome_then = _run([run_first, run_then], expected, self.timeout)
        assert self.paused, "the first call never reached its pause"
        return outcome_first, outcome_then


def _after(wait: Callable[[], object], call: Callable[[], object]) -> Callable[[], object]:
    def waited_then_called():
        wait()
        return call()

    return waited_then_called


def _run(calls, expected, timeout) -> list[object]:
    outcomes: list[object] = [None] * len(calls)
    unexpected: list[BaseException] = []

    def thread_body(index, call):
        try:
            outcomes[index] = call()
        except expected as error:
            outcomes[index] = error
        except BaseException as error:
            unexpected.append(error)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=thread_body, args=(index, call), daemon=True)
        for index, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    stuck = sum(thread.is_alive() for thread in threads)
    assert not stuck, f"{stuck} of {len(threads)} racing calls still running after {timeout}s"
    if len(unexpected) == 1:
        raise unexpected[0]
    if unexpected:
        raise ExceptionGroup("racing calls failed", unexpected)
    return outcomes
