"""Code hosting API at scale: 10,000 repositories over 100 organizations on PostgreSQL.

Seeds rows in bulk (listing needs no git directories), then measures /repos/search and the
team listings at limit=50 through gunicorn: rps, p50/p95, SQL queries per request, and the
query plan of a keyword search (it must use the trigram index, not a sequential scan).
"""

import json

from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server

ORGS = 100
REPOS_PER_ORG = 100
WORDS = ["quartz", "falcon", "ember", "harbor", "nimbus", "cobalt", "willow", "tundra"]

SEED = f"""
import secrets
from django.contrib.auth import get_user_model
from codehost.access import Actor
from codehost.models import *
from config.auth import hash_token

User = get_user_model()
user = User.objects.create_user("bench", "bench@example.com", "bench-password")
me = Owner.objects.get(user=user)
words = {WORDS!r}
for o in range({ORGS}):
    org = orgs.create_org(me, orgs.OrgOptions(username=f"org{{o:03}}"))
    repos = Repository.objects.bulk_create([
        Repository(owner=org, name=f"{{words[(o + r) % len(words)]}}-service-{{o:03}}-{{r:03}}",
                   lower_name=f"{{words[(o + r) % len(words)]}}-service-{{o:03}}-{{r:03}}",
                   description=f"The {{words[r % len(words)]}} component number {{r}}",
                   private=(r % 10 == 0), size=r * 1024, topics=[words[r % len(words)]],
                   topics_index=f",{{words[r % len(words)]}},")
        for r in range({REPOS_PER_ORG})
    ])
    owners = Team.objects.get(org=org)
    devs = Team.objects.create(org=org, name="devs", units={{"repo.code": 2}})
    TeamRepo.objects.bulk_create([TeamRepo(team=owners, repo=repo) for repo in repos])
    TeamRepo.objects.bulk_create([TeamRepo(team=devs, repo=repo) for repo in repos[:60]])
    Team.objects.filter(pk=owners.pk).update(num_repos=len(repos))
    Team.objects.filter(pk=devs.pk).update(num_repos=60)
    Team.objects.bulk_create([Team(org=org, name=f"team{{t:02}}", lower_name=f"team{{t:02}}",
                                   units={{"repo.code": 1}}) for t in range(59)])
    Owner.objects.filter(pk=org.pk).update(num_repos=len(repos))
members = Owner.objects.bulk_create([Owner(name=f"member{{m:02}}", lower_name=f"member{{m:02}}")
                                     for m in range(60)])
devs = Team.objects.get(org__name="org000", name="devs")
TeamMember.objects.bulk_create([TeamMember(team=devs, user=m) for m in members])
TeamMember.objects.create(team=devs, user=me)
Team.objects.filter(pk=devs.pk).update(num_members=61)
raw = secrets.token_hex(20)
AccessToken.objects.create(user=user, name="bench", token_hash=hash_token(raw),
                           token_last_eight=raw[-8:], scopes="all")
from django.db import connection
with connection.cursor() as cursor:
    # A settled database (visibility map set, as autovacuum leaves it): counts can be
    # index-only scans.
    cursor.execute("VACUUM ANALYZE")
print(json.dumps({{"token": raw, "devs": devs.pk}}))
"""

QUERIES = """
import json
from django.db import connection, reset_queries
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client()
counts = []
for path, auth in PATHS:
    headers = {"HTTP_AUTHORIZATION": auth} if auth else {}
    client.get(path, **headers)
    # The request's start clears the query log, which would leave the capture empty.
    reset_queries()
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path, **headers)
    assert response.status_code == 200, (path, response.status_code)
    counts.append(len(captured))
print(json.dumps(counts))
"""

EXPLAIN = """
from codehost.access import Actor
from codehost.models import Owner
from codehost.search import SearchOptions, search_repos
from codehost.services import orgs
print(search_repos(Actor(), SearchOptions(keyword="quartz-service-04")).explain())
print("## signed-in visibility count")
from django.db import connection
bench = Actor(owner=Owner.objects.get(name="bench"))
sql, params = search_repos(bench, SearchOptions()).order_by().values("pk").query.sql_with_params()
with connection.cursor() as cursor:
    cursor.execute(f"EXPLAIN ANALYZE SELECT count(*) FROM ({sql}) s", params)
    print("\\n".join(row[0] for row in cursor.fetchall()))
"""


def run() -> None:
    with backing_services() as env:
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        seeded = json.loads(run_django(env, "import json\n" + SEED).strip().splitlines()[-1])
        token = f"token {seeded['token']}"
        devs = seeded["devs"]
        endpoints = [
            ("search, anonymous", "/api/v1/repos/search?limit=50", None),
            ("search, signed in", "/api/v1/repos/search?limit=50", token),
            ("search, keyword", "/api/v1/repos/search?q=quartz-service-04&limit=50", token),
            ("search, keyword+desc", "/api/v1/repos/search?q=falcon&includeDesc=true&limit=50",
             None),
            ("search, sort=updated desc", "/api/v1/repos/search?sort=updated&order=desc&limit=50",
             token),
            ("org teams", "/api/v1/orgs/org000/teams?limit=50", token),
            ("team repos", f"/api/v1/teams/{devs}/repos?limit=50", token),
            ("team members", f"/api/v1/teams/{devs}/members?limit=50", token),
            ("user teams", "/api/v1/user/teams?limit=50", token),
        ]  # fmt: skip
        paths = [(path, auth) for _, path, auth in endpoints]
        counts = json.loads(run_django(env, f"PATHS = {paths!r}\n" + QUERIES).strip())
        rows = []
        with web_server(env) as base:
            for (label, path, auth), queries in zip(endpoints, counts, strict=True):
                headers = {"Authorization": auth} if auth else None
                for concurrency in (1, 4):
                    stats = load(f"{base}{path}", 200, concurrency, headers=headers)
                    rows.append({"endpoint": label, **stats, "queries": queries})
        print_table(
            f"codehost, {ORGS * REPOS_PER_ORG} repositories / {ORGS} organizations (ms)", rows
        )
        plan = run_django(env, EXPLAIN)
        print("\n## keyword search plan\n" + plan)
        if "codehost_repo_name_trgm" not in plan:
            raise RuntimeError("keyword search does not use the trigram index")
