"""Operator actions: each through the service the API uses, each in the admin log; none
of it reachable by an account that is not staff."""

import base64
import re

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.utils import timezone

from codehost.models import AccessToken, MigrationTask, Mirror, Repository
from codehost.services import accounts as codehost_accounts
from storefront.models import Delivery, Store
from tests.admin_console.conftest import STAFF_PASSWORD
from tests.codehost.factories import OrgFactory, owner_of
from tests.codehost_migrations.factories import MirrorFactory
from tests.storefront.factories import InstallationFactory

pytestmark = pytest.mark.django_db


def act(client, model: str, action: str, objects, **extra):
    return client.post(
        f"/admin/{model}/",
        {"action": action, "_selected_action": [obj.pk for obj in objects], **extra},
        follow=True,
    )


def logged(obj, text: str) -> bool:
    return LogEntry.objects.filter(
        object_id=str(obj.pk), action_flag=CHANGE, change_message__contains=text
    ).exists()


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def failed_delivery(**fields) -> Delivery:
    installation = InstallationFactory()
    return Delivery.objects.create(
        store=installation.store,
        app=installation.app,
        event="product/created",
        object_id=7,
        url="https://r.example/hook",
        body="{}",
        status=fields.pop("status", Delivery.FAILED),
        attempts=4,
        next_attempt_at=timezone.now(),
        finished_at=timezone.now(),
        **fields,
    )


def test_retry_now_makes_a_failed_delivery_pending_and_queues_it(
    console, django_capture_on_commit_callbacks
):
    failed = failed_delivery()
    delivered = failed_delivery(status=Delivery.DELIVERED)
    with django_capture_on_commit_callbacks() as queued:
        page = act(console, "storefront/delivery", "retry_now", [failed, delivered])
    assert "Queued 1 delivery(ies) again." in page.content.decode()
    assert "1 skipped" in page.content.decode()
    assert len(queued) == 1
    failed.refresh_from_db()
    delivered.refresh_from_db()
    assert (failed.status, failed.finished_at) == (Delivery.PENDING, None)
    assert delivered.status == Delivery.DELIVERED
    assert logged(failed, "Queued a retry.") and not logged(delivered, "retry")


def test_sync_now_queues_a_mirror_once(console, django_capture_on_commit_callbacks):
    mirror = MirrorFactory(repo__owner=OrgFactory(name="mirrors"), repo__name="m")
    with django_capture_on_commit_callbacks() as queued:
        act(console, "codehost/mirror", "sync_now", [mirror])
        page = act(console, "codehost/mirror", "sync_now", [mirror])
    assert len(queued) == 1
    assert "1 archived, or already queued or running." in page.content.decode()
    mirror.refresh_from_db()
    assert mirror.sync_state == Mirror.SyncState.QUEUED
    assert logged(mirror, "Queued a sync.")


def test_cancel_fails_a_stuck_migration_and_removes_its_repository(console, operator):
    org = OrgFactory(name="moving")
    repo = Repository.objects.create(
        owner=org, name="half", status=Repository.Status.BEING_MIGRATED
    )
    task = MigrationTask.objects.create(
        doer=operator,
        owner=org,
        repo=repo,
        repo_name="half",
        clone_addr="https://e.example/half",
        service="git",
        status=MigrationTask.Status.RUNNING,
    )
    done = MigrationTask.objects.create(
        doer=operator,
        owner=org,
        repo_name="done",
        clone_addr="https://e.example/done",
        service="git",
        status=MigrationTask.Status.SUCCEEDED,
    )
    page = act(console, "codehost/migrationtask", "cancel", [task, done])
    assert "Cancelled 1 migration(s)." in page.content.decode()
    task.refresh_from_db()
    assert task.status == MigrationTask.Status.FAILED
    assert task.error == "cancelled by a site administrator"
    assert not Repository.objects.filter(pk=repo.pk).exists()
    done.refresh_from_db()
    assert done.status == MigrationTask.Status.SUCCEEDED
    assert logged(task, "Cancelled the migration.")


def test_revoke_action_revokes_codehost_tokens(console, operator):
    token, raw = codehost_accounts.create_token(operator, "ci", ["all"])
    act(console, "codehost/accesstoken", "revoke", [token])
    assert not AccessToken.objects.filter(pk=token.pk).exists()
    console.logout()
    assert console.get("/api/v1/user", HTTP_AUTHORIZATION=f"token {raw}").status_code == 401


def test_suspend_and_resume_store_are_logged(console):
    installation = InstallationFactory()
    store = installation.store
    act(console, "storefront/store", "suspend_stores", [store])
    assert Store.objects.get(pk=store.pk).suspended_at is not None
    act(console, "storefront/store", "resume_stores", [store])
    assert Store.objects.get(pk=store.pk).suspended_at is None
    assert logged(store, "Suspended the store.") and logged(store, "Resumed the store.")


def test_disabling_an_account_closes_every_service(console, operator, bystander, client):
    _token, raw = codehost_accounts.create_token(bystander, "ci", ["all"])
    own = basic("bystander", STAFF_PASSWORD)
    assert console.get("/api/v2.0/users/current", HTTP_AUTHORIZATION=own).status_code == 200
    assert console.get("/api/v1/user", HTTP_AUTHORIZATION=own).status_code == 200
    page = act(console, "auth/user", "disable_accounts", [bystander, operator])
    text = page.content.decode()
    assert "Disabled 1 account(s)." in text and "Your own account was left enabled." in text
    bystander.refresh_from_db()
    operator.refresh_from_db()
    assert not bystander.is_active and operator.is_active
    assert not AccessToken.objects.filter(user=bystander).exists()
    assert logged(bystander, "Disabled the account in every service.")
    anonymous = client.__class__()
    assert anonymous.get("/api/v2.0/users/current", HTTP_AUTHORIZATION=own).status_code == 401
    # Gitea refuses a deactivated account's right password with 403, not 401.
    assert anonymous.get("/api/v1/user", HTTP_AUTHORIZATION=own).status_code == 403
    assert anonymous.get("/api/v1/user", HTTP_AUTHORIZATION=f"token {raw}").status_code == 401

    act(console, "auth/user", "enable_accounts", [bystander])
    bystander.refresh_from_db()
    assert bystander.is_active
    assert anonymous.get("/api/v1/user", HTTP_AUTHORIZATION=own).status_code == 200


def test_disabling_ends_the_accounts_sessions(console, bystander, client):
    other = client.__class__()
    other.force_login(bystander)
    assert other.session.session_key
    act(console, "auth/user", "disable_accounts", [bystander])
    assert "_auth_user_id" not in other.session.load()


def test_reset_password_shows_a_new_one_once_and_requires_a_change(console, bystander):
    page = act(console, "auth/user", "reset_passwords", [bystander]).content.decode()
    password = re.search(r"New password of bystander: (\S+?)<", page).group(1)
    bystander.refresh_from_db()
    assert bystander.check_password(password)
    assert owner_of(bystander).must_change_password
    assert not LogEntry.objects.filter(change_message__contains=password).exists()
    assert logged(bystander, "Reset the password.")

    owner = owner_of(bystander)
    act(console, "codehost/owner", "clear_password_change", [owner])
    assert not owner_of(bystander).must_change_password
    assert logged(owner, "Cleared must_change_password.")


def test_an_account_owning_nothing_is_deleted_from_every_service(console, bystander):
    # The rule when it owns something (refused) is in tests/security/test_account_deletion.py.
    answer = console.post(f"/admin/auth/user/{bystander.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not get_user_model().objects.filter(pk=bystander.pk).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/admin/",
        "/admin/storefront/delivery/",
        "/admin/codehost/mirror/",
        "/admin/auth/user/",
        "/admin/registry/artifact/",
    ],
)
def test_an_account_that_is_not_staff_reaches_none_of_it(client, bystander, path):
    client.force_login(bystander)
    answer = client.get(path)
    assert answer.status_code == 302 and answer["Location"].startswith("/admin/login/")


def test_an_account_that_is_not_staff_cannot_run_an_action(client, bystander):
    failed = failed_delivery()
    client.force_login(bystander)
    answer = client.post(
        "/admin/storefront/delivery/",
        {"action": "retry_now", "_selected_action": [failed.pk]},
    )
    assert answer.status_code == 302 and answer["Location"].startswith("/admin/login/")
    failed.refresh_from_db()
    assert failed.status == Delivery.FAILED
    installation = InstallationFactory()
    client.post(
        "/admin/storefront/store/",
        {"action": "suspend_stores", "_selected_action": [installation.store_id]},
    )
    assert Store.objects.get(pk=installation.store_id).suspended_at is None


def test_unticking_active_in_the_user_form_disables_like_the_action(console, bystander):
    codehost_accounts.create_token(bystander, "ci", ["all"])
    page = console.get(f"/admin/auth/user/{bystander.pk}/change/")
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and name not in ("password", "groups", "user_permissions")
    }
    data.update(
        {
            "is_active": "",
            "last_login_0": "",
            "last_login_1": "",
            "date_joined_0": bystander.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": bystander.date_joined.strftime("%H:%M:%S"),
        }
    )
    data.pop("is_active")
    answer = console.post(f"/admin/auth/user/{bystander.pk}/change/", data)
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    bystander.refresh_from_db()
    assert not bystander.is_active
    assert not AccessToken.objects.filter(user=bystander).exists()


def test_suspend_and_resume_an_installation_are_logged(console):
    installation = InstallationFactory()
    act(console, "storefront/installation", "suspend_access", [installation])
    installation.refresh_from_db()
    assert installation.suspended_at is not None
    act(console, "storefront/installation", "resume_access", [installation])
    installation.refresh_from_db()
    assert installation.suspended_at is None
    assert logged(installation, "Suspended the app's access.")
    assert logged(installation, "Resumed the app's access.")


def test_token_digests_are_not_shown(console, operator):
    token, _raw = codehost_accounts.create_token(operator, "ci", ["all"])
    page = console.get(f"/admin/codehost/accesstoken/{token.pk}/change/").content.decode()
    assert token.token_last_eight in page
    assert token.token_hash not in page


def test_sync_now_follows_the_apis_refusals(console, settings, django_capture_on_commit_callbacks):
    archived = MirrorFactory(repo__owner=OrgFactory(name="old"), repo__is_archived=True)
    with django_capture_on_commit_callbacks() as queued:
        act(console, "codehost/mirror", "sync_now", [archived])
        settings.CODEHOST_MIRRORS_ENABLED = False
        fresh = MirrorFactory(repo__owner=OrgFactory(name="new"))
        page = act(console, "codehost/mirror", "sync_now", [fresh])
    assert "Mirror feature is disabled." in page.content.decode()
    assert queued == []
    assert Mirror.objects.filter(sync_state=Mirror.SyncState.IDLE).count() == 2


def test_garbage_collection_runs_from_the_console_one_at_a_time(
    console, bystander, client, django_capture_on_commit_callbacks
):
    from django.contrib.admin.models import ADDITION

    from registry.gc.models import GCExecution

    listing = console.get("/admin/registry/gcexecution/").content.decode()
    assert "Run garbage collection now" in listing
    with django_capture_on_commit_callbacks() as queued:
        page = console.post("/admin/registry/gcexecution/run/", {"dry_run": "1"}, follow=True)
    execution = GCExecution.objects.get()
    assert (execution.dry_run, execution.trigger) == (True, "MANUAL")
    assert len(queued) == 1
    assert f"Garbage collection {execution.pk} queued." in page.content.decode()
    assert LogEntry.objects.filter(
        object_id=str(execution.pk), action_flag=ADDITION, change_message__contains="dry run"
    ).exists()
    # One at a time, as through the API (409 there).
    page = console.post("/admin/registry/gcexecution/run/", {"dry_run": ""}, follow=True)
    assert "already pending or running" in page.content.decode()
    assert GCExecution.objects.count() == 1
    # A non-staff account starts nothing, nor does staff that is not a superuser (Harbor's
    # API requires the system admin).
    client.force_login(bystander)
    client.post("/admin/registry/gcexecution/run/")
    bystander.is_staff = True
    bystander.save(update_fields=["is_staff"])
    assert client.post("/admin/registry/gcexecution/run/").status_code == 403
    assert GCExecution.objects.count() == 1
