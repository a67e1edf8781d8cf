"""Boot the server exactly as `make run` does, with no environment: the embedded default."""

import os
import re
import subprocess
from pathlib import Path

import requests

from tests.conftest import wait_until
from tests.services.servers import free_port
from tests.services.web import serve


def test_make_run_serves_health_admin_and_worker(tmp_path):
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "DATA_DIR": str(tmp_path / "var"),
        "PORT": str(port),
    }
    log_path = tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}"
    with serve(env, log_path) as server:

        def health():
            assert server.poll() is None, log_path.read_text()[-4000:]
            try:
                response = requests.get(f"{base}/api/v2.0/health", timeout=60)
            except requests.ConnectionError:
                return None
            statuses = {c["name"]: c["status"] for c in response.json()["components"]}
            # jobservice turns healthy only once the worker ran the web process's heartbeat task.
            return response if statuses["jobservice"] == "healthy" else None

        response = wait_until(health, 90, interval=0.5, message="a healthy /api/v2.0/health")
        assert response.status_code == 200
        assert response.json()["status"] == "healthy"

        password = (tmp_path / "var" / "admin_password").read_text().strip()
        assert re.search(rf"generated password: {re.escape(password)}", log_path.read_text())

        session = requests.Session()
        session.get(f"{base}/admin/login/", timeout=60)
        login = session.post(
            f"{base}/admin/login/?next=/admin/",
            data={
                "username": "admin",
                "password": password,
                "csrfmiddlewaretoken": session.cookies["csrftoken"],
                "next": "/admin/",
            },
            headers={"Referer": f"{base}/admin/login/"},
            timeout=60,
        )
        assert login.status_code == 200
        assert login.url == f"{base}/admin/"
        assert "Site administration" in login.text

        # Sized for a small machine: web and worker are forked from the parent with Django
        # loaded (config/supervisor.py), sharing its pages rather than each importing its
        # own copy; the parent's own memory stays small; beat runs inside the worker, no
        # process of its own.
        assert title(server.pid) == "config/supervisor.py [web, worker]"
        assert private_kib(server.pid) < 40 * 1024, private_kib(server.pid)
        wait_until(
            lambda: "Sending due task config-beat-tick" in log_path.read_text(),
            60,
            message="the embedded beat sending its tick",
        )
        group = [
            int(pid)
            for pid in subprocess.run(
                ["pgrep", "-g", str(server.pid)], capture_output=True, text=True
            ).stdout.split()
        ]
        titles = {pid: title(pid) for pid in group}
        # Nothing exec'd a program of its own: every process is a fork of the parent, the
        # same interpreter with the parent's argument and environment area (where exec puts
        # a new program's own, at new addresses), only its title written over it.
        for pid in group:
            assert os.readlink(f"/proc/{pid}/exe") == os.readlink(f"/proc/{server.pid}/exe")
            assert exec_area(pid) == exec_area(server.pid), titles
        # Each names itself in `ps`: the web server's master and one worker per core (at
        # least 2), Celery's main process and its pool (one child while the queues are
        # quiet, a second one may linger after a burst of tasks).
        web = int(re.search(r"Listening at: \S+ \((\d+)\)", log_path.read_text())[1])
        (worker,) = [pid for pid in group if pid != web and parent_pid(pid) == server.pid]
        node = r"\[celeryd: celery@[^:\]]+"
        assert titles[web] == "gunicorn: master [config.wsgi]", titles
        web_workers = [pid for pid in group if parent_pid(pid) == web]
        assert len(web_workers) >= 2, titles
        assert {titles[pid] for pid in web_workers} == {"gunicorn: worker [config.wsgi]"}
        main = rf"{node}:MainProcess\] -active- \(-A config worker .*\)"
        assert re.fullmatch(main, titles[worker]), titles
        pool = [pid for pid in group if parent_pid(pid) == worker]
        assert 1 <= len(pool) <= 2, titles
        for pid in pool:
            assert re.fullmatch(rf"{node}:ForkPoolWorker-\d+\]", titles[pid]), titles
        # Nothing else: no beat process of its own.
        assert sorted(group) == sorted([server.pid, web, worker, *web_workers, *pool]), titles
        # No title shows a secret (all of them are the command lines that `ps` prints).
        secrets = [password, (tmp_path / "var" / "secret_key").read_text().strip()]
        assert not [t for t in titles.values() for s in secrets if s in t], titles
        # Beat is a thread of the worker's main process (the supervisor's child beside
        # gunicorn's master), which holds the beat lease, not a process forked for it.
        lease = (tmp_path / "var" / "beat.lock").read_text().strip()
        assert int(lease.rsplit(":", 1)[1]) == worker, (lease, group)

    # One signal to the group stopped web, worker and beat: no process of it is left. The
    # supervisor has exited; a grandchild (a pool child, a gunicorn worker) may take a
    # moment longer on a loaded machine (the whole suite once saw one past 0.5 s).
    def left() -> str:
        return subprocess.run(
            ["pgrep", "-a", "-g", str(server.pid)], capture_output=True, text=True
        ).stdout

    wait_until(lambda: not left(), 20, message="every process of the group to exit")


def private_kib(pid: int) -> int:
    fields = {
        line.split(":")[0]: int(line.split()[1])
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    }
    return fields["Private_Clean"] + fields["Private_Dirty"]


def stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat from its third field (state) on."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def parent_pid(pid: int) -> int:
    return int(stat_fields(pid)[1])


def exec_area(pid: int) -> list[str]:
    """Where exec laid out the process's arguments and environment (fields 48-51,
    arg_start to env_end): a fork keeps its parent's, an exec'd program has its own."""
    return stat_fields(pid)[45:49]


def title(pid: int) -> str:
    """What `ps -o args` prints: the command line, or the title a process wrote over it."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").replace(b"\0", b" ").decode()
