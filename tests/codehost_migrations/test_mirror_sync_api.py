"""POST /repos/{owner}/{repo}/mirror-sync rules, the queue-once guard, the periodic pass,
mirror fields on the wire and PATCH of the interval (no worker: queued work is captured)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from codehost.models import Collaboration, Mirror
from codehost.services import mirrors
from codehost.tasks import sync_mirror
from tests.codehost.factories import RepositoryFactory, UserFactory, owner_of
from tests.codehost_migrations.factories import MirrorFactory

pytestmark = pytest.mark.django_db


def sync_url(repo) -> str:
    return f"/api/v1/repos/{repo.owner.name}/{repo.name}/mirror-sync"


@pytest.fixture
def alice_mirror(alice):
    return MirrorFactory(repo__owner=owner_of(alice), repo__name="mirrored")


def test_anonymous_callers_get_401(client, alice_mirror):
    response = client.post(sync_url(alice_mirror.repo))
    assert response.status_code == 401
    assert response.json()["message"] == "token is required"


def test_unknown_or_invisible_repositories_are_404(alice_client, alice_mirror):
    assert alice_client.post("/api/v1/repos/alice/nothing/mirror-sync").status_code == 404
    hidden = MirrorFactory(repo__owner=owner_of(UserFactory(username="bob")), repo__private=True)
    assert alice_client.post(sync_url(hidden.repo)).status_code == 404


def test_readers_without_write_access_get_403(alice_client):
    public = MirrorFactory(repo__owner=owner_of(UserFactory(username="bob")))
    response = alice_client.post(sync_url(public.repo))
    assert response.status_code == 403
    assert response.json()["message"] == "user should have a permission to write to a repo"


def test_a_collaborator_with_write_access_may_sync(
    alice, alice_client, django_capture_on_commit_callbacks
):
    mirror = MirrorFactory(repo__owner=owner_of(UserFactory(username="bob")), repo__private=True)
    Collaboration.objects.create(repo=mirror.repo, user=owner_of(alice), access_mode=2)
    with django_capture_on_commit_callbacks() as queued:
        assert alice_client.post(sync_url(mirror.repo)).status_code == 200
    assert len(queued) == 1


def test_a_repository_that_is_not_a_mirror_is_400(alice, alice_client):
    repo = RepositoryFactory(owner=owner_of(alice), name="plain")
    response = alice_client.post(sync_url(repo))
    assert response.status_code == 400
    assert response.json()["message"] == "Repository is not a mirror"


def test_a_sync_is_queued_once_and_answered_at_once_with_an_empty_body(
    alice_client, alice_mirror, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as queued:
        first = alice_client.post(sync_url(alice_mirror.repo))
        second = alice_client.post(sync_url(alice_mirror.repo))
    assert (first.status_code, first.content) == (200, b"")
    assert (second.status_code, second.content) == (200, b"")
    assert len(queued) == 1
    alice_mirror.refresh_from_db()
    assert alice_mirror.sync_state == Mirror.SyncState.QUEUED


def test_a_running_sync_is_not_queued_again(
    alice_client, alice_mirror, django_capture_on_commit_callbacks
):
    Mirror.objects.filter(pk=alice_mirror.pk).update(sync_state=Mirror.SyncState.RUNNING)
    with django_capture_on_commit_callbacks() as queued:
        assert alice_client.post(sync_url(alice_mirror.repo)).status_code == 200
    assert queued == []


def test_the_periodic_pass_queues_only_due_idle_ready_mirrors(django_capture_on_commit_callbacks):
    past = timezone.now() - timedelta(minutes=1)
    due = MirrorFactory(next_update=past)
    MirrorFactory(next_update=timezone.now() + timedelta(hours=1))
    MirrorFactory(interval_seconds=0, next_update=None)
    MirrorFactory(next_update=past, sync_state=Mirror.SyncState.RUNNING)
    MirrorFactory(next_update=past, repo__status="being_migrated")
    with django_capture_on_commit_callbacks() as queued:
        assert mirrors.queue_due_mirrors(sync_mirror.delay) == 1
    assert len(queued) == 1
    assert Mirror.objects.get(pk=due.pk).sync_state == Mirror.SyncState.QUEUED


def test_the_beat_schedule_runs_the_periodic_pass_and_the_reaper(settings):
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"codehost.queue_due_mirrors", "codehost.reap_stuck_work"} <= tasks


def test_syncs_left_queued_by_a_lost_worker_become_idle_again(settings):
    old = timezone.now() - timedelta(seconds=settings.CODEHOST_MIRROR_TIMEOUT * 3)
    stuck = MirrorFactory(sync_state=Mirror.SyncState.RUNNING, sync_requested=old)
    fresh = MirrorFactory(sync_state=Mirror.SyncState.QUEUED, sync_requested=timezone.now())
    assert mirrors.reset_stuck_syncs() == 1
    assert Mirror.objects.get(pk=stuck.pk).sync_state == Mirror.SyncState.IDLE
    assert Mirror.objects.get(pk=fresh.pk).sync_state == Mirror.SyncState.QUEUED


def test_the_repository_shows_its_mirror_interval_and_last_update(alice_client, alice_mirror):
    updated = timezone.now().replace(microsecond=0)
    Mirror.objects.filter(pk=alice_mirror.pk).update(updated=updated, interval_seconds=5400)
    body = alice_client.get("/api/v1/repos/alice/mirrored").json()
    assert body["mirror"] is True
    assert body["mirror_interval"] == "1h30m0s"
    assert body["mirror_updated"] == updated.isoformat()
    plain = RepositoryFactory(owner=alice_mirror.repo.owner, name="plain")
    body = alice_client.get(f"/api/v1/repos/alice/{plain.name}").json()
    assert (body["mirror_interval"], body["mirror_updated"]) == ("", "0001-01-01T00:00:00+00:00")


@pytest.mark.parametrize(
    ("interval", "status", "seconds"),
    [("2h", 200, 7200), ("0", 200, 0), ("0s", 200, 0), ("5m", 422, None), ("x", 422, None)],
)
def test_patch_changes_the_mirror_interval(alice_client, alice_mirror, interval, status, seconds):
    response = alice_client.patch(
        "/api/v1/repos/alice/mirrored", {"mirror_interval": interval}, format="json"
    )
    assert response.status_code == status, response.content
    alice_mirror.refresh_from_db()
    if status == 200:
        assert alice_mirror.interval_seconds == seconds
        assert (alice_mirror.next_update is None) == (seconds == 0)
    else:
        assert alice_mirror.interval_seconds == 8 * 3600
        assert response.json()["message"].startswith("invalid mirror interval: ")


def test_an_archived_repository_is_423(alice, alice_client, django_capture_on_commit_callbacks):
    # Mirrors cannot be archived through the API; Gitea's route guard answers for any
    # archived repository before it looks at whether it is a mirror.
    plain = RepositoryFactory(owner=owner_of(alice), name="old", is_archived=True)
    archived_mirror = MirrorFactory(repo__owner=owner_of(alice), repo__is_archived=True)
    with django_capture_on_commit_callbacks() as queued:
        for repo in (plain, archived_mirror.repo):
            response = alice_client.post(sync_url(repo))
            assert response.status_code == 423
            assert response.json()["message"] == f"alice/{repo.name} is archived"
    assert queued == []


def test_the_mirror_feature_switched_off_is_400_and_stops_periodic_syncs(
    alice_client, alice_mirror, settings, django_capture_on_commit_callbacks
):
    settings.CODEHOST_MIRRORS_ENABLED = False
    MirrorFactory(next_update=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks() as queued:
        response = alice_client.post(sync_url(alice_mirror.repo))
        assert mirrors.queue_due_mirrors(sync_mirror.delay) == 0
    assert response.status_code == 400
    assert response.json()["message"] == "Mirror feature is disabled"
    assert queued == []
