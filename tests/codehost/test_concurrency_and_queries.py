"""Concurrent creates against PostgreSQL, and constant query counts on list endpoints."""

import pytest

from codehost.models import Activity, OrgMembership, Owner, Repository, Team, TeamMember, TeamRepo
from tests.codehost.factories import UserFactory, owner_of
from tests.races import run_together


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_creates_one_201_one_409_no_orphan_directory(as_user, git_root):
    alice = UserFactory(username="alice")
    apis = [as_user(alice) for _ in range(2)]
    body = {"name": "race", "auto_init": True}
    statuses = run_together(
        [lambda api=api: api.post("/user/repos", body).status_code for api in apis]
    )
    assert sorted(statuses) == [201, 409]
    assert Repository.objects.filter(name="race").count() == 1
    assert [p.name for p in (git_root / "alice").iterdir()] == ["race.git"]


@pytest.mark.django_db(transaction=True)
def test_concurrent_team_creates_one_201_one_422(as_user):
    alice = UserFactory(username="alice")
    as_user(alice).post("/orgs", {"username": "acme"})
    apis = [as_user(alice) for _ in range(2)]
    body = {"name": "devs", "units": ["repo.code"]}
    statuses = run_together(
        [lambda api=api: api.post("/orgs/acme/teams", body).status_code for api in apis]
    )
    assert sorted(statuses) == [201, 422]


@pytest.fixture
def big_org(db, as_user):
    """acme with 60 teams, 60 members and 60 repositories (with activity) in team t00."""
    alice = UserFactory(username="alice")
    as_user(alice).post("/orgs", {"username": "acme"})
    org = Owner.objects.get(name="acme")
    Team.objects.bulk_create(
        [Team(org=org, name=f"t{i:02}", lower_name=f"t{i:02}", units={"repo.code": 1})
         for i in range(60)]
    )  # fmt: skip
    team = Team.objects.get(org=org, name="t00")
    users = Owner.objects.bulk_create(
        [Owner(name=f"member{i:02}", lower_name=f"member{i:02}") for i in range(60)]
    )
    TeamMember.objects.bulk_create([TeamMember(team=team, user=user) for user in users])
    OrgMembership.objects.bulk_create([OrgMembership(org=org, user=user) for user in users])
    repos = Repository.objects.bulk_create(
        [Repository(owner=org, name=f"r{i:02}", lower_name=f"r{i:02}") for i in range(60)]
    )
    TeamRepo.objects.bulk_create([TeamRepo(team=team, repo=repo) for repo in repos])
    Activity.objects.bulk_create(
        [Activity(user=org, act_user=owner_of(alice), op_type=1, repo=repo) for repo in repos]
    )
    Team.objects.filter(pk=team.pk).update(num_members=60, num_repos=60)
    # alice is in every team, so team search and /user/teams have full pages too.
    TeamMember.objects.bulk_create(
        [
            TeamMember(team=t, user=owner_of(alice))
            for t in Team.objects.filter(lower_name__startswith="t")
        ]
    )
    return alice, team


LIST_PATHS = [
    "/orgs/acme/teams", "/orgs/acme/teams/search?q=t", "/user/teams", "/teams/{id}/members",
    "/teams/{id}/repos", "/orgs/acme/members", "/orgs/acme/repos", "/teams/{id}/activities/feeds",
    "/repos/search",
]  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize("limit", [3, 50])
def test_list_endpoints_use_a_constant_number_of_queries(
    as_user, big_org, django_assert_max_num_queries, limit
):
    alice, team = big_org
    api = as_user(alice)
    for path in LIST_PATHS:
        url = path.format(id=team.pk) + ("&" if "?" in path else "?") + f"limit={limit}"
        api.get(url)  # warm the Basic-auth cache
        with django_assert_max_num_queries(9):
            response = api.get(url)
        assert response.status_code == 200, path
        body = response.json()
        items = body["data"] if isinstance(body, dict) else body
        assert len(items) == limit, path
