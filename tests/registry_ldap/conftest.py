"""The seeded directory on the real slapd of the test setup, and servers that misbehave."""

import base64
import os
import socket
import threading

import ldap
import ldap.modlist
import pytest
from rest_framework.test import APIClient

from registry import configuration
from registry.ldap.client import DirectorySettings
from tests.registry.factories import PASSWORD, UserFactory

BASE_DN = os.environ["TEST_LDAP_BASE_DN"]
PEOPLE = f"ou=people,{BASE_DN}"
GROUPS = f"ou=groups,{BASE_DN}"
READER_DN = f"cn=reader,ou=system,{BASE_DN}"
READER_PASSWORD = "reader-secret"
DEVELOPERS_DN = f"cn=developers,{GROUPS}"
ADMINS_DN = f"cn=admins,{GROUPS}"
GUESTS_DN = f"cn=guests,{GROUPS}"
OUTSIDERS_DN = f"cn=outsiders,ou=other,{BASE_DN}"

# uid -> (cn, mail, password)
PEOPLE_ENTRIES = {
    "alice": ("Alice Liddell", "alice@example.org", "alice-secret"),
    "bob": ("Bob Builder", "bob@example.org", "bob-secret"),
    "carol": ("Carol Danvers", "", "carol-secret"),
    "dave": ("Dave Admin", "dave@example.org", "dave-secret"),
    "erin": ("Erin Nobody", "erin@example.org", "erin-secret"),
    # A directory entry named like the local admin account: it must never sign in as it.
    "admin": ("Directory Admin", "admin@example.org", "directory-admin-secret"),
}


def person_dn(uid: str) -> str:
    return f"uid={uid},{PEOPLE}"


# groupOfNames needs a member: the bind account keeps each group valid when tests take
# people out.
GROUP_ENTRIES = {
    DEVELOPERS_DN: [person_dn("alice"), person_dn("bob")],
    ADMINS_DN: [person_dn("dave"), READER_DN],
    GUESTS_DN: [person_dn("carol"), READER_DN],
    OUTSIDERS_DN: [person_dn("alice")],
}


def _add(connection, dn: str, attributes: dict) -> None:
    encoded = {
        key: [value.encode() for value in (values if isinstance(values, list) else [values])]
        for key, values in attributes.items()
    }
    connection.add_s(dn, ldap.modlist.addModlist(encoded))


def _seed(connection) -> None:
    for unit in ("people", "groups", "system", "other"):
        _add(connection, f"ou={unit},{BASE_DN}", {"objectClass": "organizationalUnit", "ou": unit})
    _add(
        connection,
        READER_DN,
        {
            "objectClass": ["organizationalRole", "simpleSecurityObject"],
            "cn": "reader",
            "userPassword": READER_PASSWORD,
        },
    )
    for uid, (cn, mail, password) in PEOPLE_ENTRIES.items():
        attributes = {
            "objectClass": "inetOrgPerson",
            "uid": uid,
            "cn": cn,
            "sn": cn.split()[-1],
            "userPassword": password,
        }
        if mail:
            attributes["mail"] = mail
        _add(connection, person_dn(uid), attributes)
    # Groups after their members: the memberof overlay then sets memberOf on the people.
    for dn, members in GROUP_ENTRIES.items():
        cn = dn.split(",")[0].split("=")[1]
        _add(
            connection,
            dn,
            {"objectClass": "groupOfNames", "cn": cn, "member": members},
        )


def admin_connection():
    connection = ldap.initialize(os.environ["TEST_LDAP_URL"])
    connection.simple_bind_s(
        os.environ["TEST_LDAP_ADMIN_DN"], os.environ["TEST_LDAP_ADMIN_PASSWORD"]
    )
    return connection


@pytest.fixture(scope="session")
def seeded_directory():
    connection = admin_connection()
    try:
        connection.search_s(PEOPLE, ldap.SCOPE_BASE)
    except ldap.NO_SUCH_OBJECT:
        _seed(connection)
    connection.unbind_s()


@pytest.fixture
def directory_admin(seeded_directory):
    """An admin connection for tests that change the directory (and put it back)."""
    connection = admin_connection()
    yield connection
    connection.unbind_s()


LDAP_CONFIGURATION = {
    "auth_mode": "ldap_auth",
    "ldap_url": os.environ["TEST_LDAP_URL"],
    "ldap_search_dn": READER_DN,
    "ldap_search_password": READER_PASSWORD,
    "ldap_base_dn": PEOPLE,
    "ldap_filter": "(objectClass=inetOrgPerson)",
    "ldap_uid": "uid",
    "ldap_scope": 2,
    "ldap_timeout": 3,
    "ldap_group_base_dn": GROUPS,
    "ldap_group_search_filter": "(objectClass=groupOfNames)",
    "ldap_group_attribute_name": "cn",
    "ldap_group_search_scope": 2,
    "ldap_group_admin_dn": ADMINS_DN,
    "ldap_group_membership_attribute": "memberof",
}


def directory_settings(**changes) -> DirectorySettings:
    return DirectorySettings.from_config(
        {**configuration.values(), **LDAP_CONFIGURATION, **changes}
    )


@pytest.fixture(autouse=True)
def fresh_configuration():
    """The cache outlives each test's rolled-back rows: start every test from the defaults."""
    configuration.invalidate()
    yield
    configuration.invalidate()


@pytest.fixture
def ldap_configured(db, seeded_directory):
    """The system configured for the seeded directory, as PUT /configurations would."""
    configuration.update(LDAP_CONFIGURATION)
    return LDAP_CONFIGURATION


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def client_as(username: str, password: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(username, password))
    return client


@pytest.fixture
def admin(db):
    return UserFactory(username="admin", is_superuser=True, is_staff=True)


@pytest.fixture
def admin_client(admin):
    return client_as("admin", PASSWORD)


@pytest.fixture
def local_user(db):
    return UserFactory(username="localuser")


@pytest.fixture
def user_client(local_user):
    return client_as("localuser", PASSWORD)


@pytest.fixture
def anon():
    return APIClient()


@pytest.fixture
def silent_server():
    """A TCP listener that accepts connections and never answers: a hung directory."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    listener.close()


@pytest.fixture
def closed_port():
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
