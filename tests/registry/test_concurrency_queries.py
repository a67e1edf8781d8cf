"""Concurrent creates against PostgreSQL, and list endpoints at a constant query count."""

import time

import pytest

from registry.models import Project, ProjectMember, ProjectMetadata
from tests.races import run_together
from tests.registry.conftest import client_for
from tests.registry.factories import LabelFactory, MemberFactory, ProjectFactory, UserFactory, push


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_creates_of_one_name_give_201_and_409():
    users = [UserFactory(username=f"racer{n}") for n in range(2)]
    clients = [client_for(user) for user in users]
    body = {"project_name": "contested"}
    statuses = run_together(
        [lambda c=c: c.post("/api/v2.0/projects", body).status_code for c in clients]
    )
    assert sorted(statuses) == [201, 409]
    project = Project.objects.get(name="contested")
    # Nothing half-made: one project with its one admin member and its public flag.
    assert ProjectMember.objects.get().project == project
    assert ProjectMetadata.objects.get().project == project


def _seed_projects(owner, count):
    viewer = UserFactory(username=f"viewer{count}")
    for n in range(count):
        project = ProjectFactory(name=f"q{count}-{n:03d}", owner=owner, public=n % 2 == 0)
        MemberFactory(project=project, user=viewer, role=2)
        push(project, "img", tag="v1", seed=f"{count}-{n}")
    return viewer


@pytest.mark.django_db
@pytest.mark.parametrize("page_size", [10, 100])
def test_project_list_query_count_is_constant(page_size, alice, django_assert_max_num_queries):
    viewer = _seed_projects(alice, page_size)
    client = client_for(viewer)
    client.get("/api/v2.0/projects")  # warms the Basic-auth cache
    with django_assert_max_num_queries(8):
        response = client.get(f"/api/v2.0/projects?page_size={page_size}")
    assert len(response.json()) == page_size


@pytest.mark.django_db
@pytest.mark.parametrize("page_size", [10, 100])
def test_repository_lists_query_count_is_constant(
    page_size, alice, alice_client, django_assert_max_num_queries
):
    project = ProjectFactory(name="many", owner=alice)
    for n in range(page_size):
        push(project, f"repo{n:03d}", tag="v1")
    alice_client.get("/api/v2.0/repositories")
    with django_assert_max_num_queries(7):
        response = alice_client.get(f"/api/v2.0/projects/many/repositories?page_size={page_size}")
    assert len(response.json()) == page_size
    with django_assert_max_num_queries(7):
        response = alice_client.get(f"/api/v2.0/repositories?page_size={page_size}")
    assert len(response.json()) == page_size


@pytest.mark.django_db
@pytest.mark.parametrize("page_size", [10, 100])
def test_artifact_list_query_count_is_constant(
    page_size, alice, alice_client, django_assert_max_num_queries
):
    project = ProjectFactory(name="arts", owner=alice)
    label = LabelFactory()
    for n in range(page_size):
        artifact = push(project, "img", tag=f"t{n}", seed=f"a{n}")
        push(project, "img", tag=f"t{n}-b", seed=f"a{n}")
        artifact.label_links.create(label=label)
    alice_client.get("/api/v2.0/projects")
    url = (
        f"/api/v2.0/projects/arts/repositories/img/artifacts?page_size={page_size}&with_label=true"
    )
    with django_assert_max_num_queries(11):
        response = alice_client.get(url)
    data = response.json()
    assert len(data) == page_size
    assert all(len(a["tags"]) == 2 and a["labels"] for a in data)


@pytest.mark.django_db
@pytest.mark.parametrize("count", [5, 50])
def test_search_query_count_is_constant(count, alice, django_assert_max_num_queries):
    viewer = _seed_projects(alice, count)
    client = client_for(viewer)
    client.get("/api/v2.0/projects")
    with django_assert_max_num_queries(9):
        response = client.get(f"/api/v2.0/search?q=q{count}")
    data = response.json()
    assert len(data["project"]) == count
    assert len(data["repository"]) == count
    # go-swagger leaves false out.
    assert {r.get("project_public", False) for r in data["repository"]} == {True, False}


@pytest.mark.django_db
@pytest.mark.parametrize("count", [5, 50])
def test_member_and_user_lists_query_count_is_constant(
    count, alice, admin_client, django_assert_max_num_queries
):
    project = ProjectFactory(name=f"crowd{count}", owner=alice)
    for n in range(count):
        MemberFactory(project=project, user=UserFactory(username=f"m{count}-{n:03d}"))
    admin_client.get("/api/v2.0/projects")
    with django_assert_max_num_queries(6):
        members = admin_client.get(f"/api/v2.0/projects/crowd{count}/members?page_size=100")
    assert len(members.json()) == count + 1
    with django_assert_max_num_queries(6):
        users = admin_client.get("/api/v2.0/users?page_size=100")
    assert len(users.json()) == count + 1


def test_schema_tables_are_computed_once_by_concurrent_first_requests():
    """A web process's threads answering their first requests together parse Harbor's
    schema once, not once each."""
    from registry.api.harbor_schema import once

    calls = []

    @once
    def table():
        calls.append(1)
        time.sleep(0.05)  # a slow first computation: the other threads arrive meanwhile
        return {"ready": True}

    assert run_together([table] * 8) == [{"ready": True}] * 8
    assert len(calls) == 1
