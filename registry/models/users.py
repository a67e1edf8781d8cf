"""Harbor's user fields and user groups; Django's User is Harbor's user (`is_superuser`
is the sysadmin flag)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

__all__ = ["UserGroup", "UserProfile"]


class UserProfile(models.Model):
    """Harbor user fields Django's User has no place for."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="harbor_profile"
    )
    realname = models.CharField(max_length=255, blank=True)
    comment = models.CharField(max_length=30, blank=True)
    # Granted by an LDAP/HTTP/OIDC admin group, distinct from the stored sysadmin flag.
    admin_role_in_auth = models.BooleanField(default=False)

    def __str__(self):
        return f"profile of {self.user}"


class UserGroup(models.Model):
    class GroupType(models.IntegerChoices):
        LDAP = 1, "LDAP"
        HTTP = 2, "HTTP"
        OIDC = 3, "OIDC"

    group_name = models.CharField(max_length=255, db_index=True)
    group_type = models.PositiveSmallIntegerField(choices=GroupType.choices)
    # Empty for HTTP and OIDC groups; unique among LDAP groups.
    ldap_group_dn = models.CharField(max_length=512, blank=True)
    # Users currently in the group (filled by the LDAP/HTTP/OIDC sign-in); group members of a
    # project grant their role to these users.
    users = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="harbor_groups", blank=True
    )
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["group_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["ldap_group_dn"],
                condition=~Q(ldap_group_dn=""),
                name="registry_usergroup_unique_dn",
            ),
            models.UniqueConstraint(
                fields=["group_name", "group_type"],
                condition=Q(ldap_group_dn=""),
                name="registry_usergroup_unique_name_without_dn",
            ),
        ]

    def __str__(self):
        return self.group_name
