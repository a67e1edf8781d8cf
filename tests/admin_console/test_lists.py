"""Change lists usable at scale: a constant number of queries for a page of 100 rows,
related rows joined, foreign keys to large tables as raw ids, one date format."""

import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone

from codehost.models import Activity, MigrationTask, Mirror, OpType, Repository
from codehost.services import accounts as codehost_accounts
from registry.models import Artifact
from storefront.models import Delivery, DeliveryAttempt, Installation, Store
from tests.codehost.factories import OrgFactory, UserFactory, owner_of
from tests.registry.factories import ProjectFactory, push
from tests.storefront.factories import AppFactory, StoreFactory

ROWS = 100


def foreign_keys(model_admin) -> dict[str, models.Field]:
    fields = {}
    for name in model_admin.list_display:
        if not isinstance(name, str):
            continue
        try:
            field = model_admin.model._meta.get_field(name)
        except Exception:
            continue
        if isinstance(field, models.ForeignKey | models.OneToOneField):
            fields[name] = field
    return fields


@pytest.mark.parametrize(
    "model_admin",
    list(admin.site._registry.values()),
    ids=lambda model_admin: model_admin.model._meta.label,
)
def test_related_rows_in_a_list_are_joined(model_admin):
    related = foreign_keys(model_admin)
    joined = model_admin.list_select_related
    if not related or joined is True:
        return
    missing = [name for name in related if not any(j.split("__")[0] == name for j in joined)]
    assert not missing, f"{model_admin} lists {missing} without list_select_related"


@pytest.mark.parametrize(
    "model_admin",
    list(admin.site._registry.values()),
    ids=lambda model_admin: model_admin.model._meta.label,
)
def test_foreign_keys_in_forms_are_raw_ids(model_admin, rf):
    # Readonly admins never render an input; others must not render a <select> of a table.
    editable = [
        field.name
        for field in model_admin.model._meta.get_fields()
        if isinstance(field, models.ForeignKey | models.OneToOneField)
        and field.editable
        and field.name not in (model_admin.readonly_fields or ())
        and field.name not in (model_admin.exclude or ())
    ]
    widgets = set(model_admin.raw_id_fields) | set(model_admin.autocomplete_fields)
    if model_admin.has_change_permission.__func__ is not admin.ModelAdmin.has_change_permission:
        return  # read-only records
    missing = [name for name in editable if name not in widgets]
    assert not missing, f"{model_admin} edits {missing} as a <select> of the whole table"


def _many_deliveries():
    stores = [StoreFactory() for _ in range(3)]
    apps = [AppFactory() for _ in range(3)]
    now = timezone.now()
    deliveries = Delivery.objects.bulk_create(
        Delivery(
            store=stores[n % 3],
            app=apps[n % 3],
            event="product/created",
            object_id=n,
            url=f"https://r{n}.example/h",
            body="{}",
            next_attempt_at=now,
        )
        for n in range(ROWS)
    )
    DeliveryAttempt.objects.bulk_create(
        DeliveryAttempt(delivery=delivery, number=1, started_at=now, status_code=500)
        for delivery in deliveries
    )


def _many_registry_records():
    project = ProjectFactory(name="many")
    for n in range(ROWS // 5):
        push(project, f"repo{n}", f"t{n}", seed=f"s{n}")


def _many_codehost_records():
    user = UserFactory(username="many")
    owner = owner_of(user)
    orgs = [OrgFactory(name=f"org{n}") for n in range(3)]
    repos = Repository.objects.bulk_create(
        Repository(owner=orgs[n % 3], name=f"r{n}", lower_name=f"r{n}") for n in range(ROWS)
    )
    Activity.objects.bulk_create(
        Activity(user=owner, act_user=owner, repo=repo, op_type=OpType.CREATE_REPO)
        for repo in repos
    )
    MigrationTask.objects.bulk_create(
        MigrationTask(
            doer=user, owner=orgs[n % 3], repo_name=f"m{n}", clone_addr="x", service="git"
        )
        for n in range(ROWS)
    )
    Mirror.objects.bulk_create(Mirror(repo=repo, interval_seconds=3600) for repo in repos)
    for n in range(ROWS // 5):
        codehost_accounts.create_token(user, f"t{n}", ["all"])


def _many_stores():
    owners = get_user_model().objects.bulk_create(
        get_user_model()(username=f"o{n}") for n in range(ROWS)
    )
    stores = Store.objects.bulk_create(
        Store(owner=owners[n % 3], name={"es": f"T{n}"}, languages=["es"], main_language="es")
        for n in range(ROWS)
    )
    apps = [AppFactory() for _ in range(3)]
    Installation.objects.bulk_create(
        Installation(store=store, app=apps[n % 3]) for n, store in enumerate(stores)
    )


LISTS = [
    ("storefront/delivery", _many_deliveries),
    ("storefront/deliveryattempt", _many_deliveries),
    ("registry/artifact", _many_registry_records),
    ("registry/tag", _many_registry_records),
    ("registry/repository", _many_registry_records),
    ("codehost/repository", _many_codehost_records),
    ("codehost/activity", _many_codehost_records),
    ("codehost/migrationtask", _many_codehost_records),
    ("codehost/mirror", _many_codehost_records),
    ("codehost/accesstoken", _many_codehost_records),
    ("storefront/store", _many_stores),
    ("storefront/installation", _many_stores),
    ("auth/user", _many_stores),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("model", "make"), LISTS, ids=[model for model, _ in LISTS])
def test_a_page_of_rows_is_a_constant_number_of_queries(
    console, model, make, django_assert_max_num_queries
):
    make()
    console.get(f"/admin/{model}/")
    with django_assert_max_num_queries(12):
        page = console.get(f"/admin/{model}/?all=")
    assert page.status_code == 200
    changelist = page.context["cl"]
    assert len(changelist.result_list) == changelist.result_count >= ROWS // 5


@pytest.mark.django_db
def test_dates_are_shown_in_one_format(console):
    _many_registry_records()
    artifact = Artifact.objects.first()
    html = console.get("/admin/registry/artifact/").content.decode()
    assert artifact.push_time.strftime("%Y-%m-%d %H:%M:%S") in html
    assert not re.search(r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\.? \d", html)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("model", "query", "expected"),
    [
        ("storefront/delivery", "?q=r7.example", 1),
        (
            "storefront/delivery",
            "?status__exact=pending&created_at__gte=2000-01-01T00:00:00%2B00:00",
            ROWS,
        ),
        ("registry/artifact", "?q=many/repo3", 1),
        ("registry/tag", "?q=t11", 1),
        ("codehost/repository", "?q=org1", ROWS // 3),
        ("codehost/migrationtask", "?status__exact=queued&q=m42", 1),
        ("storefront/store", "?q=o1", ROWS // 3),
    ],
)
def test_operators_find_records_by_name_owner_digest_status_and_date(
    console, model, query, expected
):
    _many_deliveries()
    _many_registry_records()
    _many_codehost_records()
    _many_stores()
    page = console.get(f"/admin/{model}/{query}")
    assert page.status_code == 200
    assert page.context["cl"].result_count == expected
