"""What keeps migrations prompt and web requests responsive: mirror syncs at a lower CPU
priority (their git included, the worker's own priority untouched), the HEAD read that
saves a git process, and the Redis notice a waiting migration request wakes on."""

import os
import subprocess
import threading
import time

import pytest
import redis

from codehost import git, migration_notices, priority, tasks
from codehost.tasks import migrate_repository, sync_mirror
from tests.codehost_migrations.conftest import SourceRepo
from tests.codehost_migrations.conftest import git as run_git


def niceness_of_a_child() -> int:
    return int(subprocess.run(["nice"], capture_output=True, text=True, check=True).stdout)


def test_work_in_the_background_thread_and_its_processes_run_niced():
    seen = {}

    def work():
        seen["thread"] = os.getpriority(os.PRIO_PROCESS, 0)
        seen["child"] = niceness_of_a_child()

    before = os.getpriority(os.PRIO_PROCESS, 0)
    priority.run_in_background_thread(work)
    assert seen["thread"] >= priority.NICENESS
    assert seen["child"] >= priority.NICENESS
    assert os.getpriority(os.PRIO_PROCESS, 0) == before
    assert niceness_of_a_child() == before


def test_an_error_in_the_background_thread_reaches_the_caller():
    def fail():
        raise git.GitError("fetch failed")

    with pytest.raises(git.GitError, match="fetch failed"):
        priority.run_in_background_thread(fail)


def test_the_default_branch_is_read_from_head(tmp_path):
    bare = tmp_path / "bare.git"
    run_git("init", "--bare", "--quiet", "--initial-branch=trunk", str(bare))
    # Unborn: the branch HEAD names, though no commit exists yet.
    assert git.default_branch(bare) == "trunk"
    work = SourceRepo(tmp_path / "work")
    head = work.commit()
    assert git.default_branch(work.path / ".git") == "main"
    run_git("checkout", "--quiet", "--detach", head, cwd=work.path)
    assert git.default_branch(work.path / ".git") == ""


@pytest.mark.postgres_only(reason="the notice travels through Redis (SQLite's default polls)")
def test_a_waiting_request_wakes_on_the_workers_notice(settings):
    timer = threading.Timer(0.2, migration_notices.announce, args=(424242, "succeeded"))
    began = time.monotonic()
    timer.start()
    assert migration_notices.wait(424242, 10, waited=0) == "succeeded"
    assert time.monotonic() - began < 5
    # Collected: a second wait sits out its time.
    began = time.monotonic()
    assert migration_notices.wait(424242, 0.3, waited=0) is None
    assert time.monotonic() - began >= 0.25


@pytest.mark.postgres_only(reason="Redis's per-priority lists (the filesystem broker has none)")
def test_queued_syncs_wait_behind_migrations_in_redis(settings):
    """The broker keeps a list per priority and workers empty the priority-0 list first;
    a queue no worker reads shows where each task's message goes."""
    queue = "codehost-priority-probe"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    lower = f"{queue}\x06\x16{tasks.SYNC_PRIORITY}"
    try:
        sync_mirror.apply_async((0,), queue=queue)
        migrate_repository.apply_async((0,), queue=queue)
        assert (client.llen(lower), client.llen(queue)) == (1, 1)
        assert b"codehost.sync_mirror" in client.lindex(lower, 0)
    finally:
        client.delete(queue, lower)
