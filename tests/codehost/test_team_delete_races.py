"""Adding members and repositories to a team that a concurrent request deletes.

The add reads the team, then writes rows naming it: a deletion in between made the add
fail its foreign key at commit (500). The team is now locked by the add (and by the
deletion before it reads the members it drops from the organization): an add that comes
second answers 404 as for an unknown team, and every organization member stays in a team.
"""

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from codehost.access import Actor
from codehost.errors import NotFound
from codehost.models import OrgMembership, Repository, Team, TeamMember, TeamRepo
from codehost.services import teams
from tests.codehost.factories import UserFactory, owner_of


def make_team(api, name: str) -> int:
    response = api.post("/orgs/acme/teams", {"name": name, "units": ["repo.code"]})
    assert response.status_code == 201, response.content
    return response.json()["id"]


@pytest.mark.django_db(transaction=True)
def test_adding_to_a_team_deleted_meanwhile_is_not_found(as_user, alice, bob, acme):
    api = as_user(alice)
    stale = Team.objects.get(pk=make_team(api, "devs"))
    assert api.post("/orgs/acme/repos", {"name": "app"}).status_code == 201
    teams.delete_team(Team.objects.get(pk=stale.pk))
    actor = Actor(owner=owner_of(alice))

    with pytest.raises(NotFound):
        teams.add_team_member(stale, owner_of(bob), actor)
    with pytest.raises(NotFound):
        teams.add_team_repo(stale, Repository.objects.get(name="app"), actor)

    assert not OrgMembership.objects.filter(user=owner_of(bob)).exists()


@pytest.mark.django_db(transaction=True)
def test_clients_adding_to_teams_while_they_are_deleted(as_user, alice, acme):
    """Twelve clients add members and repositories to four teams while the owner deletes
    them: no 500, counters match the rows, and no organization member is left teamless."""
    api = as_user(alice)
    users = [UserFactory(username=f"user{number}") for number in range(12)]
    for number in range(4):
        assert api.post("/orgs/acme/repos", {"name": f"r{number}"}).status_code == 201
    team_ids = [make_team(api, f"t{number}") for number in range(4)]
    barrier = threading.Barrier(12)

    def client(number: int) -> list[int]:
        statuses = []
        try:
            barrier.wait()
            team = team_ids[number % 4]
            for round in range(4):
                user = users[(number + round) % 12].username
                statuses.append(api.put(f"/teams/{team}/members/{user}").status_code)
                statuses.append(api.put(f"/teams/{team}/repos/acme/r{round}").status_code)
                if number < 4 and round == 1:
                    statuses.append(api.delete(f"/teams/{team}").status_code)
        finally:
            connection.close()
        return statuses

    with ThreadPoolExecutor(12) as pool:
        statuses = Counter(status for got in pool.map(client, range(12)) for status in got)

    assert set(statuses) <= {204, 404}, statuses
    assert statuses[204] and statuses[404]
    for team in Team.objects.all():
        assert team.num_members == TeamMember.objects.filter(team=team).count()
        assert team.num_repos == TeamRepo.objects.filter(team=team).count()
    in_a_team = set(TeamMember.objects.values_list("user_id", flat=True))
    assert set(OrgMembership.objects.values_list("user_id", flat=True)) <= in_a_team
