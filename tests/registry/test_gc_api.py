"""Garbage collection API (/system/gc...): who may call it, the schedule, the history and
its paging, one run at a time, the log; harborapi's gc methods against a live server."""

import asyncio
import json
from datetime import timedelta

import pytest
from django.utils import timezone
from harborapi import HarborAsyncClient
from harborapi.exceptions import BadRequest as HarborBadRequest
from harborapi.exceptions import Conflict as HarborConflict
from harborapi.exceptions import Forbidden as HarborForbidden
from harborapi.models import Schedule, ScheduleObj

from registry.gc import services
from registry.gc.models import GCExecution, GCSchedule
from tests.conftest import wait_until
from tests.races import run_together
from tests.registry.conftest import client_for
from tests.registry.factories import PASSWORD, UserFactory

GC = "/api/v2.0/system/gc"


def manual(**parameters) -> dict:
    return {"schedule": {"type": "Manual"}, "parameters": parameters}


def finished(client, gc_id: int) -> dict:
    def done():
        record = client.get(f"{GC}/{gc_id}").json()
        return record if record["job_status"] in ("Success", "Error") else None

    return wait_until(done, 60, message=f"garbage collection {gc_id} to finish")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", GC, None),
        ("get", f"{GC}/1", None),
        ("get", f"{GC}/1/log", None),
        ("get", f"{GC}/schedule", None),
        ("post", f"{GC}/schedule", manual()),
        ("put", f"{GC}/schedule", {"schedule": {"type": "Daily"}}),
    ],
)
def test_admin_only_401_anonymous_403_user(anon, alice_client, method, path, body):
    execution = GCExecution.objects.create(status="Success", active=None, log="secret\n")
    path = path.replace("/1", f"/{execution.pk}")
    kwargs = {"data": body, "format": "json"} if body is not None else {}
    denied = getattr(anon, method)(path, **kwargs)
    assert denied.status_code == 401
    assert denied.json()["errors"][0]["code"] == "UNAUTHORIZED"
    refused = getattr(alice_client, method)(path, **kwargs)
    assert refused.status_code == 403
    assert refused.json() == {"errors": [{"code": "FORBIDDEN", "message": "alice"}]}
    assert not GCSchedule.objects.exists()
    assert GCExecution.objects.count() == 1


@pytest.mark.django_db
def test_a_system_robot_may_do_what_its_gc_permissions_grant(admin_client):
    from tests.registry.test_robots import robot_client, system_robot

    created = admin_client.post(
        "/api/v2.0/robots",
        system_robot(
            "gc-reader",
            access=(("garbage-collection", "list"), ("garbage-collection", "read")),
        ),
        format="json",
    ).json()
    robot = robot_client(created)
    execution = GCExecution.objects.create(status="Success", active=None, log="line\n")
    assert robot.get(GC).status_code == 200
    assert robot.get(f"{GC}/{execution.pk}/log").content == b"line\n"
    assert robot.get(f"{GC}/schedule").status_code == 200
    refused = robot.post(f"{GC}/schedule", manual(), format="json")
    assert refused.status_code == 403
    assert (
        robot.put(f"{GC}/schedule", {"schedule": {"type": "Daily"}}, format="json").status_code
        == 403
    )
    assert GCExecution.objects.count() == 1 and not GCSchedule.objects.exists()
    other = robot_client(
        admin_client.post(
            "/api/v2.0/robots", system_robot("ops", access=(("audit-log", "list"),)), format="json"
        ).json()
    )
    assert other.get(GC).status_code == 403


@pytest.mark.django_db
def test_unknown_run_is_404_and_a_bad_id_422(admin_client):
    missing = admin_client.get(f"{GC}/999")
    assert missing.status_code == 404
    assert missing.json()["errors"][0]["code"] == "NOT_FOUND"
    assert admin_client.get(f"{GC}/999/log").status_code == 404
    bad = admin_client.get(f"{GC}/abc")
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["message"] == (
        'validation failure list:\ngc_id in path must be of type int64: "abc"'
    )


@pytest.mark.django_db
def test_schedule_set_read_replace_and_remove(admin_client):
    assert admin_client.get(f"{GC}/schedule").json() == {}
    created = admin_client.post(
        f"{GC}/schedule",
        {"schedule": {"type": "Daily"}, "parameters": {"delete_untagged": True}},
        format="json",
    )
    assert created.status_code == 201
    # As Harbor: a schedule is not a run, its Location names id 0.
    assert created["Location"] == f"{GC}/0"
    assert created.content == b""
    record = admin_client.get(f"{GC}/schedule").json()
    assert record["schedule"]["type"] == "Daily"
    assert record["schedule"]["cron"] == "0 0 0 * * *"
    tomorrow = (timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT00:00:00.000Z")
    assert record["schedule"]["next_scheduled_time"] == tomorrow
    assert json.loads(record["job_parameters"]) == {"delete_untagged": True, "dry_run": False}
    updated = admin_client.put(
        f"{GC}/schedule",
        {"schedule": {"type": "Custom", "cron": "0 */5 * * * *"}, "parameters": {}},
        format="json",
    )
    assert updated.status_code == 200
    record = admin_client.get(f"{GC}/schedule").json()
    assert (record["schedule"]["type"], record["schedule"]["cron"]) == ("Custom", "0 */5 * * * *")
    assert GCSchedule.objects.count() == 1
    assert not GCExecution.objects.exists()
    removed = admin_client.put(f"{GC}/schedule", {"schedule": {"type": "None"}}, format="json")
    assert removed.status_code == 200
    assert admin_client.get(f"{GC}/schedule").json() == {}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        ({"type": "Custom"}, "a Custom schedule needs a cron expression"),
        ({"type": "Custom", "cron": "0 61 * * * *"}, "invalid cron: 0 61 * * * *"),
        ({"type": "Custom", "cron": "* * * *"}, "invalid cron: * * * *"),
        ({"type": "Custom", "cron": "0 1,,2 * * * *"}, "invalid cron: 0 1,,2 * * * *"),
        ({"type": "Weekly", "cron": "x 0 0 * * 0"}, "invalid cron: x 0 0 * * 0"),
        ({"type": "Schedule", "cron": "0 0 0 * * *"}, "invalid schedule type: Schedule"),
        ({}, "empty schedule type"),
    ],
)
def test_bad_schedules_are_400_and_change_nothing(admin_client, schedule, message):
    answer = admin_client.post(f"{GC}/schedule", {"schedule": schedule}, format="json")
    assert answer.status_code == 400
    assert answer.json() == {"errors": [{"code": "BAD_REQUEST", "message": message}]}
    assert not GCSchedule.objects.exists() and not GCExecution.objects.exists()


@pytest.mark.django_db
def test_schema_breaches_are_422(admin_client):
    wrong_type = admin_client.post(
        f"{GC}/schedule", {"schedule": {"type": "Yearly"}}, format="json"
    )
    assert wrong_type.status_code == 422
    assert "type" in wrong_type.json()["errors"][0]["message"]
    no_body = admin_client.post(f"{GC}/schedule")
    assert no_body.status_code == 422
    assert not GCExecution.objects.exists()


@pytest.mark.django_db
def test_a_second_run_while_one_is_active_is_409(admin_client):
    GCExecution.objects.create(status="Running")
    answer = admin_client.post(f"{GC}/schedule", manual(), format="json")
    assert answer.status_code == 409
    assert answer.json()["errors"][0] == {
        "code": "CONFLICT",
        "message": "a garbage collection is already pending or running",
    }
    assert GCExecution.objects.count() == 1


@pytest.mark.django_db
def test_a_run_without_progress_for_an_hour_is_given_up(admin_client):
    lost = GCExecution.objects.create(status="Running", log="started\n")
    GCExecution.objects.filter(pk=lost.pk).update(update_time=timezone.now() - timedelta(hours=2))
    answer = admin_client.post(f"{GC}/schedule", manual(), format="json")
    assert answer.status_code == 201
    lost.refresh_from_db()
    assert (lost.status, lost.active) == ("Error", None)
    assert lost.log == "started\n[ERROR] no progress for an hour: given up\n"
    assert admin_client.get(f"{GC}/{lost.pk}").json()["job_status"] == "Error"


@pytest.mark.django_db(transaction=True)
def test_two_racing_manual_triggers_start_one_run(live_server, admin):
    import requests

    def trigger():
        answer = requests.post(
            f"{live_server.url}{GC}/schedule", json=manual(), auth=("admin", PASSWORD)
        )
        return answer.status_code

    statuses = run_together([trigger] * 4)
    assert sorted(statuses) == [201, 409, 409, 409]
    assert GCExecution.objects.count() == 1


@pytest.mark.django_db
def test_history_paging_sort_filter_and_constant_queries(
    admin_client, django_assert_max_num_queries
):
    for n in range(12):
        GCExecution.objects.create(
            status="Error" if n % 4 == 0 else "Success", active=None, dry_run=n == 11
        )
    with django_assert_max_num_queries(8) as few:
        first = admin_client.get(GC, {"page_size": 5})
    assert first.status_code == 200
    assert first["X-Total-Count"] == "12"
    assert first["Link"] == f'<{GC}?page=2&page_size=5>; rel="next"'
    ids = [row["id"] for row in first.json()]
    assert ids == sorted(ids, reverse=True)
    newest = first.json()[0]
    assert newest["job_name"] == "GARBAGE_COLLECTION" and newest["job_kind"] == "MANUAL"
    assert json.loads(newest["job_parameters"]) == {
        "delete_untagged": False,
        "dry_run": True,
        "time_window": 2,
    }
    assert newest["schedule"] == {"type": "Manual"}
    assert set(newest) == {
        "creation_time",
        "id",
        "job_kind",
        "job_name",
        "job_parameters",
        "job_status",
        "schedule",
        "update_time",
    }
    with django_assert_max_num_queries(len(few.captured_queries)):
        last = admin_client.get(GC, {"page_size": 5, "page": 3})
    assert len(last.json()) == 2
    assert last["Link"] == f'<{GC}?page=2&page_size=5>; rel="prev"'
    oldest_first = [
        row["id"]
        for row in admin_client.get(GC, {"sort": "creation_time,id", "page_size": 100}).json()
    ]
    assert len(oldest_first) == 12 and oldest_first == sorted(oldest_first)
    errors = admin_client.get(GC, {"q": "job_status=Error"})
    assert errors["X-Total-Count"] == "3"
    assert {row["job_status"] for row in errors.json()} == {"Error"}


@pytest.mark.parametrize(
    ("q", "total"),
    [
        ("creation_time=[2020-01-01T00:00:00~2999-01-01T00:00:00]", "2"),
        ("update_time=[~2020-01-01T00:00:00]", "0"),
        # Not times: nothing matches (these were 500s: the time columns were read as text).
        ("creation_time=[2020-01-01T00:00:00~x]", "0"),
        ("creation_time={a b}", "0"),
        ("update_time=yesterday", "0"),
    ],
)
def test_history_times_filter_as_times(admin_client, q, total):
    for _ in range(2):
        GCExecution.objects.create(status="Success", active=None)
    response = admin_client.get(GC, {"q": q})
    assert response.status_code == 200, response.content
    assert response["X-Total-Count"] == total


@pytest.mark.django_db
def test_a_due_schedule_starts_one_scheduled_run(admin_client, django_capture_on_commit_callbacks):
    services.set_schedule("Hourly", "", delete_untagged=True, dry_run=True)
    schedule = GCSchedule.objects.get()
    assert schedule.cron == "0 0 * * * *"
    assert services.run_due(schedule.next_run - timedelta(seconds=1)) is None
    with django_capture_on_commit_callbacks() as queued:
        execution = services.run_due(schedule.next_run)
    assert len(queued) == 1
    assert (execution.trigger, execution.delete_untagged, execution.dry_run) == (
        "SCHEDULE",
        True,
        True,
    )
    schedule.refresh_from_db()
    assert schedule.next_run > execution.creation_time
    # Due again while that run is pending: skipped, not a second run.
    assert services.run_due(schedule.next_run) is None
    record = admin_client.get(f"{GC}/{execution.pk}").json()
    assert (record["job_kind"], record["schedule"]) == ("SCHEDULE", {"type": "Schedule"})


def test_beat_sends_the_schedule_tick_every_minute():
    from config.celery import app

    entry = app.conf.beat_schedule["registry-start-due-garbage-collection"]
    assert (entry["task"], entry["schedule"]) == ("registry.start_due_garbage_collection", 60.0)
    assert "registry.start_due_garbage_collection" in app.tasks


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_harborapi_runs_reads_and_schedules_gc(celery_worker, live_server, settings):
    settings.GC_TIME_WINDOW_HOURS = 0
    admin = UserFactory(username="admin", is_superuser=True, is_staff=True)
    UserFactory(username="alice")
    url = live_server.url + "/api/v2.0"
    client = HarborAsyncClient(url=url, username="admin", secret=PASSWORD)
    outsider = HarborAsyncClient(url=url, username="alice", secret=PASSWORD)

    async def scenario():
        location = await client.create_gc_schedule(
            Schedule(schedule=ScheduleObj(type="Manual"), parameters={"dry_run": True})
        )
        gc_id = int(location.rsplit("/", 1)[1])
        assert location == f"/api/v2.0/system/gc/{gc_id}"
        await asyncio.to_thread(finished, client_for(admin), gc_id)
        job = await client.get_gc_job(gc_id)
        assert (job.id, job.job_status, job.job_name) == (gc_id, "Success", "GARBAGE_COLLECTION")
        jobs = await client.get_gc_jobs()
        assert [j.id for j in jobs] == [gc_id]
        lines = await client.get_gc_log(gc_id)
        assert lines[0].endswith(
            "garbage collection started: delete_untagged=False, dry_run=True, time window 0 "
            f"hours (what was pushed since {lines[0][:20]} is kept)"
        )
        assert lines[-1].endswith(
            "garbage collection finished: 0 artifacts, 0 blobs and 0 uploads would be deleted, "
            "0 bytes would be freed"
        )
        await client.update_gc_schedule(
            Schedule(
                schedule=ScheduleObj(type="Weekly", cron="0 0 3 * * 6"),
                parameters={"delete_untagged": True},
            )
        )
        schedule = await client.get_gc_schedule()
        assert (schedule.schedule.type.value, schedule.schedule.cron) == ("Weekly", "0 0 3 * * 6")
        assert schedule.schedule.next_scheduled_time.weekday() == 5
        with pytest.raises(HarborBadRequest):
            await client.update_gc_schedule(
                Schedule(schedule=ScheduleObj(type="Custom", cron="nonsense"))
            )
        with pytest.raises(HarborForbidden):
            await outsider.get_gc_jobs()
        await asyncio.to_thread(GCExecution.objects.create, status="Running")
        with pytest.raises(HarborConflict):
            await client.create_gc_schedule(Schedule(schedule=ScheduleObj(type="Manual")))

    asyncio.run(scenario())


@pytest.mark.django_db
def test_a_run_redelivered_after_its_worker_was_lost_resumes_its_log():
    interrupted = GCExecution.objects.create(status="Running", log="earlier line\n")
    # Still saving progress a minute ago: another worker has it, this delivery does nothing.
    runs = GCExecution.objects.filter(pk=interrupted.pk)
    runs.update(update_time=timezone.now() - timedelta(minutes=1))
    services.run(interrupted.pk)
    assert runs.get().log == "earlier line\n"
    runs.update(update_time=timezone.now() - timedelta(minutes=3))
    services.run(interrupted.pk)
    interrupted.refresh_from_db()
    assert (interrupted.status, interrupted.active) == ("Success", None)
    assert interrupted.log.startswith("earlier line\n")
    assert "garbage collection finished" in interrupted.log.splitlines()[-1]
    # A finished run delivered again is left alone.
    services.run(interrupted.pk)
    assert GCExecution.objects.get(pk=interrupted.pk).log == interrupted.log
