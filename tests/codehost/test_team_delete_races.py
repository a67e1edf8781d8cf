"""Adding members and repositories to a team that a concurrent request deletes.

The add reads the team, then writes rows naming it: a deletion in between made the add
fail its foreign key at commit (500). The team is now locked by the add (and by the
deletion before it reads the members it drops from the organization): an add that comes
second answers 404 as for an unknown team, and every organization member stays in a team.
"""

from collections import Counter

import pytest

from codehost.access import Actor
from codehost.errors import NotFound
from codehost.models import OrgMembership, Repository, Team, TeamMember, TeamRepo
from codehost.services import teams
from tests.codehost.factories import UserFactory, owner_of
from tests.races import Interleaving, run_together


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
def test_a_member_added_to_a_team_as_their_only_other_team_goes_stays_in_the_org(
    monkeypatch, as_user, alice, bob, acme
):
    """Bob is added to team b while team a, his only team, is deleted: the deletion read
    bob as teamless (the addition not yet committed) and took him out of the organization,
    which left him in team b but no member. Changes of membership now take turns."""
    api = as_user(alice)
    first, second = make_team(api, "a"), make_team(api, "b")
    assert api.put(f"/teams/{first}/members/bob").status_code == 204
    interleaving = Interleaving()
    # The addition pauses once it has found bob's organization membership in place.
    found = OrgMembership.objects.get_or_create
    monkeypatch.setattr(OrgMembership.objects, "get_or_create", interleaving.after(found))

    added, deleted = interleaving.run(
        lambda: api.put(f"/teams/{second}/members/bob").status_code,
        lambda: api.delete(f"/teams/{first}").status_code,
    )

    assert (added, deleted) == (204, 204)
    assert TeamMember.objects.filter(team_id=second, user=owner_of(bob)).exists()
    assert OrgMembership.objects.filter(org=acme, user=owner_of(bob)).exists()


@pytest.mark.django_db(transaction=True)
def test_clients_adding_to_teams_while_they_are_deleted(as_user, alice, acme):
    """Twelve clients add members and repositories to four teams while the owner deletes
    them: no 500, counters match the rows, and the organization's members are those in its teams."""
    api = as_user(alice)
    users = [UserFactory(username=f"user{number}") for number in range(12)]
    for number in range(4):
        assert api.post("/orgs/acme/repos", {"name": f"r{number}"}).status_code == 201
    team_ids = [make_team(api, f"t{number}") for number in range(4)]

    def client(number: int) -> list[int]:
        statuses = []
        team = team_ids[number % 4]
        for round in range(4):
            user = users[(number + round) % 12].username
            statuses.append(api.put(f"/teams/{team}/members/{user}").status_code)
            statuses.append(api.put(f"/teams/{team}/repos/acme/r{round}").status_code)
            if number < 4 and round == 1:
                statuses.append(api.delete(f"/teams/{team}").status_code)
        return statuses

    outcomes = run_together([lambda number=number: client(number) for number in range(12)])
    statuses = Counter(status for got in outcomes for status in got)
    assert set(statuses) <= {204, 404}, statuses
    assert statuses[204] and statuses[404]
    for team in Team.objects.all():
        assert team.num_members == TeamMember.objects.filter(team=team).count()
        assert team.num_repos == TeamRepo.objects.filter(team=team).count()
    # Members of the organization are exactly those in one of its teams.
    in_a_team = set(TeamMember.objects.values_list("user_id", flat=True))
    assert set(OrgMembership.objects.values_list("user_id", flat=True)) == in_a_team
