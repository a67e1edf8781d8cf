"""Domain error codes: every one has Gitea's status, and the failures stored as HTTP
statuses before the codes keep answering the same after the data migration."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from codehost import errors
from codehost.api.exceptions import WIRE
from codehost.models import MigrationTask
from codehost.services import migrations

BEFORE_CODES = ("codehost", "0005_repo_visibility_index_and_password_change")


def every_domain_error(cls=errors.DomainError):
    for sub in cls.__subclasses__():
        yield sub
        yield from every_domain_error(sub)


def test_every_domain_error_code_has_a_status_on_the_wire():
    # An error without one would be a KeyError, a bare 500, instead of Gitea's answer.
    assert {cls.code for cls in every_domain_error()} <= set(WIRE)


def test_stored_statuses_become_the_codes_that_answer_with_them(transactional_db, alice):
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE_CODES])
    try:
        old = executor.loader.project_state([BEFORE_CODES]).apps
        owner = old.get_model("codehost", "Owner").objects.get(user_id=alice.pk)
        tasks = {
            status: old.get_model("codehost", "MigrationTask")
            .objects.create(
                doer_id=alice.pk,
                owner_id=owner.pk,
                repo_name=f"r{status}",
                clone_addr="https://example.com/a.git",
                service="git",
                status="failed" if status else "succeeded",
                error_status=status,
                error=f"failed with {status}",
            )
            .pk
            for status in (0, 403, 409, 422, 500, 502)
        }
    finally:
        # Whatever happened: the next tests need the current schema.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes("codehost"))

    codes = dict(MigrationTask.objects.values_list("pk", "error_code"))
    assert {status: codes[pk] for status, pk in tasks.items()} == {
        0: "",
        403: "forbidden",
        409: "conflict",
        422: "invalid",
        500: "internal",
        502: "internal",
    }
    for status, pk in tasks.items():
        if status:
            with pytest.raises(errors.DomainError) as failed:
                migrations.raise_if_failed(MigrationTask.objects.get(pk=pk))
            assert (WIRE[failed.value.code].status, failed.value.message) == (
                500 if status == 502 else status,
                f"failed with {status}",
            )
