"""Registry LDAP: directory searches, ping, and requests of directory users (Basic sign-in
remembered, group roles from the brief group cache) against a real slapd."""

import base64
import json

import ldap
import ldap.modlist

from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server
from tests.services.servers import Services, start_slapd

USERS = 200


def _add(connection, dn: str, attributes: dict) -> None:
    encoded = {
        key: [v.encode() for v in (value if isinstance(value, list) else [value])]
        for key, value in attributes.items()
    }
    connection.add_s(dn, ldap.modlist.addModlist(encoded))


def seed_directory(ldap_env: dict) -> dict:
    base = ldap_env["TEST_LDAP_BASE_DN"]
    connection = ldap.initialize(ldap_env["TEST_LDAP_URL"])
    connection.simple_bind_s(ldap_env["TEST_LDAP_ADMIN_DN"], ldap_env["TEST_LDAP_ADMIN_PASSWORD"])
    for unit in ("people", "groups"):
        _add(connection, f"ou={unit},{base}", {"objectClass": "organizationalUnit", "ou": unit})
    people = []
    for number in range(USERS):
        dn = f"uid=user{number},ou=people,{base}"
        _add(
            connection,
            dn,
            {
                "objectClass": "inetOrgPerson",
                "uid": f"user{number}",
                "cn": f"User {number}",
                "sn": str(number),
                "mail": f"user{number}@example.org",
                "userPassword": f"secret{number}",
            },
        )
        people.append(dn)
    group_dn = f"cn=developers,ou=groups,{base}"
    _add(
        connection, group_dn, {"objectClass": "groupOfNames", "cn": "developers", "member": people}
    )
    connection.unbind_s()
    return {
        "auth_mode": "ldap_auth",
        "ldap_url": ldap_env["TEST_LDAP_URL"],
        "ldap_search_dn": ldap_env["TEST_LDAP_ADMIN_DN"],
        "ldap_search_password": ldap_env["TEST_LDAP_ADMIN_PASSWORD"],
        "ldap_base_dn": f"ou=people,{base}",
        "ldap_uid": "uid",
        "ldap_group_base_dn": f"ou=groups,{base}",
        "ldap_group_attribute_name": "cn",
        "ldap_group_membership_attribute": "memberof",
    }, group_dn


def basic(username: str, password: str) -> dict:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def run() -> None:
    with backing_services() as env:
        slapd = Services()
        try:
            settings, group_dn = seed_directory(start_slapd(slapd))
            manage(env, "migrate", "--noinput")
            manage(env, "ensureadmin")
            run_django(
                env,
                "import json\n"
                "from django.contrib.auth.models import User\n"
                "from registry import configuration\n"
                "from registry.services import members, projects\n"
                "from registry.models import Role\n"
                "from registry.ldap.onboarding import group_for_member\n"
                f"configuration.update(json.loads({json.dumps(json.dumps(settings))}))\n"
                "admin = User.objects.get(username='admin')\n"
                "for n in range(20):\n"
                "    project = projects.create_project(admin, f'team{n}', as_admin=True)\n"
                f"    group = group_for_member({group_dn!r})\n"
                "    members.add_member(project, Role.DEVELOPER, group=group)\n",
            )
            admin = basic("admin", "bench-admin")
            member = basic("user7", "secret7")
            rows = []
            with web_server(env) as base:
                api = f"{base}/api/v2.0"
                cases = [
                    (
                        "GET /ldap/users/search?username=",
                        f"{api}/ldap/users/search?username=user42",
                        admin,
                        "GET",
                    ),
                    (
                        "GET /ldap/groups/search?groupname=",
                        f"{api}/ldap/groups/search?groupname=developers",
                        admin,
                        "GET",
                    ),
                    ("POST /ldap/ping (stored config)", f"{api}/ldap/ping", admin, "POST"),
                    ("GET /users/current as LDAP user", f"{api}/users/current", member, "GET"),
                    (
                        "GET /projects as LDAP group member",
                        f"{api}/projects?page_size=20",
                        member,
                        "GET",
                    ),
                ]
                for name, url, headers, method in cases:
                    for concurrency in (1, 8):
                        stats = load(url, 200, concurrency, headers=headers, method=method)
                        rows.append({"endpoint": name, **stats})
            print_table("registry LDAP (ms)", rows)
        finally:
            slapd.stop()
