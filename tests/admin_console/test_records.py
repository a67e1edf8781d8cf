"""Records the system writes are read-only in the admin; deletion, where the service has a
delete operation, goes through it (git directory, usage, staged bytes)."""

import base64
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.admin.models import DELETION, LogEntry
from django.utils import timezone

from codehost.models import AccessToken as CodehostToken
from codehost.models import Activity, MigrationTask, OpType, Repository
from codehost.services import accounts as codehost_accounts
from registry.distribution import blobs, storage
from registry.distribution.models import Blob, Upload
from registry.models import Artifact, Project, Tag
from storefront.models import AccessToken as StoreToken
from storefront.models import Delivery, DeliveryAttempt
from tests.admin_console.conftest import STAFF_PASSWORD
from tests.codehost.factories import OrgFactory, owner_of
from tests.codehost_migrations.factories import MirrorFactory
from tests.registry.factories import ProjectFactory, push
from tests.storefront.factories import InstallationFactory, issue_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def records(operator):
    project = ProjectFactory(name="sys")
    artifact = push(project, "app", "v1")
    blob = Blob.objects.create(digest="sha256:" + "a" * 64, size=3)
    upload = blobs.start_upload("sys/app")
    org = OrgFactory(name="sysorg")
    mirror = MirrorFactory(repo__owner=org, repo__name="mirrored")
    token, _raw = codehost_accounts.create_token(operator, "ci", ["all"])
    activity = Activity.objects.create(
        user=owner_of(operator), act_user=owner_of(operator), op_type=OpType.CREATE_REPO
    )
    task = MigrationTask.objects.create(
        doer=operator, owner=org, repo_name="m", clone_addr="https://e.example/m", service="git"
    )
    installation = InstallationFactory()
    issue_token(installation)
    delivery = Delivery.objects.create(
        store=installation.store,
        app=installation.app,
        event="product/created",
        object_id=1,
        url="https://r.example/h",
        body="{}",
        next_attempt_at=timezone.now(),
    )
    attempt = DeliveryAttempt.objects.create(
        delivery=delivery, number=1, started_at=timezone.now(), status_code=500
    )
    return {
        "registry/blob": blob,
        "registry/upload": upload,
        "registry/artifact": artifact,
        "registry/tag": Tag.objects.get(artifact=artifact),
        "codehost/activity": activity,
        "codehost/migrationtask": task,
        "codehost/mirror": mirror,
        "codehost/accesstoken": token,
        "storefront/accesstoken": StoreToken.objects.get(installation=installation),
        "storefront/delivery": delivery,
        "storefront/deliveryattempt": attempt,
    }


SYSTEM_RECORDS = [
    "registry/blob",
    "registry/upload",
    "registry/artifact",
    "registry/tag",
    "codehost/activity",
    "codehost/migrationtask",
    "codehost/mirror",
    "codehost/accesstoken",
    "storefront/accesstoken",
    "storefront/delivery",
    "storefront/deliveryattempt",
]


@pytest.mark.parametrize("model", SYSTEM_RECORDS)
def test_system_records_cannot_be_added_or_edited(console, records, model):
    record = records[model]
    listing = console.get(f"/admin/{model}/")
    assert listing.status_code == 200
    assert f'href="/admin/{model}/add/"' not in listing.content.decode()
    assert console.get(f"/admin/{model}/add/").status_code == 403
    change_url = f"/admin/{model}/{record.pk}/change/"
    page = console.get(change_url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="_save"' not in html and "<textarea" not in html
    before = {f.attname: getattr(record, f.attname) for f in record._meta.concrete_fields}
    answer = console.post(change_url, {"size": "1", "status": "delivered", "name": "x"})
    assert answer.status_code == 403
    record.refresh_from_db()
    assert {f.attname: getattr(record, f.attname) for f in record._meta.concrete_fields} == before


@pytest.mark.parametrize(
    "model",
    [
        "registry/blob",
        "codehost/activity",
        "codehost/migrationtask",
        "storefront/delivery",
        "storefront/deliveryattempt",
    ],
)
def test_records_without_a_safe_delete_cannot_be_deleted(console, records, model):
    record = records[model]
    assert console.post(f"/admin/{model}/{record.pk}/delete/", {"post": "yes"}).status_code == 403
    assert type(record).objects.filter(pk=record.pk).exists()


def test_blob_typed_in_by_hand_is_refused(console):
    answer = console.post(
        "/admin/registry/blob/add/", {"digest": "sha256:" + "b" * 64, "size": "10"}
    )
    assert answer.status_code == 403
    assert not Blob.objects.exists()


def test_deleting_an_artifact_goes_through_the_registry(console):
    project = ProjectFactory(name="quota")
    push(project, "app", "v1", size=4000)
    doomed = push(project, "app", "v2", size=6000)
    Project.objects.filter(pk=project.pk).update(storage_used=10000)
    page = console.get(f"/admin/registry/artifact/{doomed.pk}/delete/")
    assert page.status_code == 200
    answer = console.post(f"/admin/registry/artifact/{doomed.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not Artifact.objects.filter(pk=doomed.pk).exists()
    assert not Tag.objects.filter(name="v2").exists()
    project.refresh_from_db()
    assert project.storage_used == 4000  # recomputed, as DELETE .../artifacts does
    assert LogEntry.objects.filter(object_id=str(doomed.pk), action_flag=DELETION).exists()


def test_deleting_artifacts_in_bulk_goes_through_the_registry(console):
    project = ProjectFactory(name="bulk")
    kept = push(project, "app", "v1", size=1000)
    gone = [push(project, "app", f"v{n}", size=1000) for n in (2, 3)]
    answer = console.post(
        "/admin/registry/artifact/",
        {"action": "delete_selected", "_selected_action": [a.pk for a in gone], "post": "yes"},
    )
    assert answer.status_code == 302
    assert list(Artifact.objects.values_list("pk", flat=True)) == [kept.pk]
    project.refresh_from_db()
    assert project.storage_used == 1000


def test_a_project_with_repositories_is_not_deleted(console):
    project = ProjectFactory(name="busy")
    push(project, "app", "v1")
    answer = console.post(
        f"/admin/registry/project/{project.pk}/delete/", {"post": "yes"}, follow=True
    )
    assert "the project contains repositories" in answer.content.decode()
    assert Project.objects.filter(pk=project.pk).exists()


def test_cancelling_an_upload_removes_its_staged_bytes(console):
    upload = blobs.start_upload("sys/app")
    staged = Path(storage.upload_path(upload.id))
    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_bytes(b"partial")
    answer = console.post(f"/admin/registry/upload/{upload.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not Upload.objects.filter(pk=upload.pk).exists()
    assert not staged.exists()


def _basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def test_deleting_a_repository_removes_its_git_directory(
    console, operator, django_capture_on_commit_callbacks
):
    created = console.post(
        "/api/v1/user/repos",
        {"name": "doomed", "auto_init": True},
        content_type="application/json",
        HTTP_AUTHORIZATION=_basic("operator", STAFF_PASSWORD),
    )
    assert created.status_code == 201, created.content
    repo = Repository.objects.get(name="doomed")
    path = Path(settings.CODEHOST_GIT_ROOT) / "operator" / "doomed.git"
    assert path.is_dir()
    assert owner_of(operator).num_repos == 1
    with django_capture_on_commit_callbacks(execute=True):
        answer = console.post(f"/admin/codehost/repository/{repo.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not Repository.objects.filter(pk=repo.pk).exists()
    assert not path.exists()
    assert owner_of(operator).num_repos == 0


def test_a_repository_name_cannot_be_edited_here(console):
    org = OrgFactory(name="renames")
    repo = Repository.objects.create(owner=org, name="keep")
    page = console.get(f"/admin/codehost/repository/{repo.pk}/change/").content.decode()
    assert 'name="name"' not in page and 'name="description"' in page


def test_revoking_a_token_by_deleting_it(console, operator):
    token, raw = codehost_accounts.create_token(operator, "ci", ["all"])
    auth = {"HTTP_AUTHORIZATION": f"token {raw}"}
    assert console.get("/api/v1/user", **auth).status_code == 200
    answer = console.post(f"/admin/codehost/accesstoken/{token.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not CodehostToken.objects.filter(pk=token.pk).exists()
    console.logout()
    assert console.get("/api/v1/user", **auth).status_code == 401
