"""A staff account that is not a superuser holds only the permissions it was given: reading
a list runs none of its actions, and editing accounts never reaches superuser rights."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from codehost.models import Mirror
from storefront.models import Delivery, Installation, Store
from tests.admin_console.conftest import STAFF_PASSWORD
from tests.admin_console.test_actions import act, basic, failed_delivery
from tests.codehost.factories import OrgFactory, owner_of
from tests.codehost_migrations.factories import MirrorFactory
from tests.storefront.factories import InstallationFactory

pytestmark = pytest.mark.django_db


def staff_with(client, *codenames: str):
    """A signed-in staff account (not a superuser) holding exactly these permissions."""
    user = get_user_model().objects.create_user(
        "helpdesk", "helpdesk@example.com", STAFF_PASSWORD, is_staff=True
    )
    for codename in codenames:
        app_label, name = codename.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=name)
        )
    client.force_login(user)
    return user


def test_a_reader_of_accounts_cannot_reset_a_superusers_password(client, operator):
    staff_with(client, "auth.view_user")
    page = act(client, "auth/user", "reset_passwords", [operator]).content.decode()
    assert "New password of" not in page
    operator.refresh_from_db()
    assert operator.check_password(STAFF_PASSWORD)
    act(client, "auth/user", "disable_accounts", [operator])
    operator.refresh_from_db()
    assert operator.is_active


def test_readers_of_the_other_lists_run_none_of_their_actions(client, operator):
    staff_with(
        client,
        "storefront.view_store",
        "storefront.view_installation",
        "storefront.view_delivery",
        "codehost.view_mirror",
        "codehost.view_owner",
    )
    installation = InstallationFactory()
    act(client, "storefront/store", "suspend_stores", [installation.store])
    act(client, "storefront/installation", "uninstall_apps", [installation])
    assert Store.objects.get(pk=installation.store_id).suspended_at is None
    assert Installation.objects.filter(pk=installation.pk).exists()
    failed = failed_delivery()
    act(client, "storefront/delivery", "retry_now", [failed])
    failed.refresh_from_db()
    assert failed.status == Delivery.FAILED
    mirror = MirrorFactory(repo__owner=OrgFactory(name="mirrors"), repo__name="m")
    act(client, "codehost/mirror", "sync_now", [mirror])
    mirror.refresh_from_db()
    assert mirror.sync_state == Mirror.SyncState.IDLE
    act(client, "codehost/owner", "require_password_change", [owner_of(operator)])
    assert not owner_of(operator).must_change_password


def test_an_operator_given_the_change_permission_runs_the_action(client):
    staff_with(client, "storefront.view_delivery", "storefront.change_delivery")
    failed = failed_delivery()
    page = act(client, "storefront/delivery", "retry_now", [failed]).content.decode()
    assert "Queued 1 delivery(ies) again." in page


def test_an_editor_of_accounts_cannot_make_itself_a_superuser(client, operator):
    helpdesk = staff_with(client, "auth.view_user", "auth.change_user")
    page = client.get(f"/admin/auth/user/{helpdesk.pk}/change/")
    form = page.context["adminform"].form
    assert "is_superuser" not in form.fields
    assert "user_permissions" not in form.fields
    data = {
        "username": "helpdesk",
        "email": "helpdesk@example.com",
        "is_active": "on",
        "is_staff": "on",
        "is_superuser": "on",
        "user_permissions": [p.pk for p in Permission.objects.all()],
        "date_joined_0": helpdesk.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": helpdesk.date_joined.strftime("%H:%M:%S"),
    }
    answer = client.post(f"/admin/auth/user/{helpdesk.pk}/change/", data)
    assert answer.status_code == 302
    helpdesk.refresh_from_db()
    assert not helpdesk.is_superuser
    assert helpdesk.user_permissions.count() == 2


def test_an_editor_of_accounts_cannot_take_over_a_superuser(client, operator):
    staff_with(client, "auth.view_user", "auth.change_user")
    page = act(client, "auth/user", "reset_passwords", [operator]).content.decode()
    assert "New password of" not in page
    operator.refresh_from_db()
    assert operator.check_password(STAFF_PASSWORD)
    answer = client.post(
        f"/admin/auth/user/{operator.pk}/password/",
        {"password1": "Taken-0ver-pw", "password2": "Taken-0ver-pw", "usable_password": "true"},
    )
    assert answer.status_code == 403
    operator.refresh_from_db()
    assert operator.check_password(STAFF_PASSWORD)
    answer = client.post(
        f"/admin/auth/user/{operator.pk}/change/",
        {"username": "operator", "email": "mine@evil.example", "is_active": "on"},
    )
    operator.refresh_from_db()
    assert operator.email == "operator@example.com"


def test_an_account_deleter_cannot_delete_a_superuser(client, operator, bystander):
    staff_with(client, "auth.view_user", "auth.delete_user")
    answer = client.post(
        "/admin/auth/user/",
        {"action": "delete_selected", "_selected_action": [operator.pk], "post": "yes"},
    )
    assert answer.status_code == 403
    assert (
        client.post(f"/admin/auth/user/{operator.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert get_user_model().objects.filter(pk=operator.pk).exists()
    answer = client.post(f"/admin/auth/user/{bystander.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not get_user_model().objects.filter(pk=bystander.pk).exists()


def test_an_account_adder_adds_an_account_without_rights(client):
    staff_with(client, "auth.view_user", "auth.add_user", "auth.change_user")
    assert client.get("/admin/auth/user/add/").status_code == 200
    answer = client.post(
        "/admin/auth/user/add/",
        {
            "username": "newcomer",
            "password1": "Newc0mer-pass",
            "password2": "Newc0mer-pass",
            "usable_password": "true",
            "is_superuser": "on",
        },
    )
    assert answer.status_code == 302
    newcomer = get_user_model().objects.get(username="newcomer")
    assert not newcomer.is_superuser and not newcomer.is_staff


def test_an_editor_of_groups_grants_no_permission_to_a_group(client):
    from django.contrib.auth.models import Group

    helpdesk = staff_with(client, "auth.view_group", "auth.change_group", "auth.add_group")
    crew = Group.objects.create(name="crew")
    helpdesk.groups.add(crew)
    every = [p.pk for p in Permission.objects.all()]
    client.post(f"/admin/auth/group/{crew.pk}/change/", {"name": "crew", "permissions": every})
    client.post("/admin/auth/group/add/", {"name": "mighty", "permissions": every})
    assert not crew.permissions.exists()
    assert not Permission.objects.filter(group__name="mighty").exists()
    helpdesk = get_user_model().objects.get(pk=helpdesk.pk)
    assert not helpdesk.has_perm("auth.change_user")


def test_an_editor_of_registry_profiles_cannot_make_anyone_a_harbor_admin(client, operator):
    """admin_role_in_auth makes a Harbor system admin; the directory sets it at sign-in
    (membership of ldap_group_admin_dn), nobody by hand, not even a superuser."""
    from django.test import Client

    from registry.models import UserProfile

    helpdesk = staff_with(client, "registry.view_userprofile", "registry.change_userprofile")
    profile = UserProfile.objects.create(user=helpdesk, realname="Help Desk")
    superuser = Client()
    superuser.force_login(operator)
    data = {"user": helpdesk.pk, "realname": "Help Desk", "comment": "", "admin_role_in_auth": "on"}
    for signed_in in (client, superuser):
        answer = signed_in.post(f"/admin/registry/userprofile/{profile.pk}/change/", data)
        assert answer.status_code == 302
    profile.refresh_from_db()
    assert not profile.admin_role_in_auth
    directory_admin = get_user_model().objects.create_user("ldapadmin")
    theirs = UserProfile.objects.create(user=directory_admin, admin_role_in_auth=True)
    data = {"user": helpdesk.pk, "realname": "", "comment": ""}
    client.post(f"/admin/registry/userprofile/{theirs.pk}/change/", data)
    theirs.refresh_from_db()
    assert theirs.user_id == directory_admin.pk
    assert client.get("/admin/registry/userprofile/add/").status_code == 403
    answer = client.get(
        "/api/v2.0/configurations", HTTP_AUTHORIZATION=basic("helpdesk", STAFF_PASSWORD)
    )
    assert answer.status_code == 403


def test_an_editor_of_accounts_cannot_take_over_another_staff_account(client, bystander):
    from django.contrib.auth.models import Permission as Perm

    staff_with(client, "auth.view_user", "auth.change_user")
    colleague = get_user_model().objects.create_user(
        "colleague", "c@example.com", STAFF_PASSWORD, is_staff=True
    )
    colleague.user_permissions.add(Perm.objects.get(codename="change_app"))
    page = act(client, "auth/user", "reset_passwords", [colleague, bystander]).content.decode()
    assert "New password of colleague" not in page
    assert "New password of bystander" in page
    colleague.refresh_from_db()
    assert colleague.check_password(STAFF_PASSWORD)
    assert client.get(f"/admin/auth/user/{colleague.pk}/password/").status_code == 403
