"""Users (Django accounts seen as Harbor users) and user groups."""

from datetime import datetime

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config import signin_throttle
from config.filters import Param, QueryFilters
from registry import access, selectors
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import PAGING, Column, QuerySpec, listing, optional
from registry.api.permissions import require_login, require_sysadmin
from registry.api.serializers.projects import USER_GROUP, USER_GROUP_SEARCH_ITEM
from registry.api.serializers.users import (
    USER,
    USER_SEARCH_ITEM,
    PasswordReqSerializer,
    UserCreationReqSerializer,
    UserGroupReqSerializer,
    UserGroupUpdateSerializer,
    UserProfileSerializer,
    UserSysAdminFlagSerializer,
)
from registry.errors import Forbidden, PreconditionFailed
from registry.models import UserGroup
from registry.services import usergroups, users

USER_QUERY = QuerySpec(
    columns={
        "user_id": Column("pk", int),
        "username": Column("username"),
        "email": Column("email"),
        "realname": Column("harbor_profile__realname"),
        "comment": Column("harbor_profile__comment"),
        "sysadmin_flag": Column("is_superuser", bool),
        "creation_time": Column("date_joined", datetime),
        "update_time": Column("date_joined", datetime),
    },
    default_order=("username", "pk"),
)
USER_LISTING = listing(USER_QUERY)


def user_record(user) -> dict:
    """`user` (from selectors.get_user) as Harbor's UserResp."""
    return USER.render(selectors.active_users().filter(pk=user.pk).values(*USER.columns).get())


class UserListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listUsers",
        parameters=USER_LISTING.parameters,
        responses=schema.responses(USER.serializer(many=True), 401, 403),
    )
    def get(self, request):
        require_sysadmin(request)
        params = request.query_params
        queryset = selectors.user_list(
            params.get("username", ""),
            params.get("email", ""),
            # Harbor lists the built-in admin only when the query asks for a user id.
            with_admin="user_id" in (params.get("q") or ""),
        )
        return self.records_page(USER_LISTING.filter(queryset, params), USER)

    @extend_schema(
        operation_id="createUser",
        request=UserCreationReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        users.check_local_creation(by_sysadmin=access.is_sysadmin(request.user))
        require_sysadmin(request)
        body = self.body(UserCreationReqSerializer)
        user = users.create_user(
            body["username"],
            body["email"],
            body["password"],
            realname=body.get("realname", ""),
            comment=body.get("comment", ""),
        )
        return self.empty(201, f"{request.path.rstrip('/')}/{user.pk}")


class CurrentUserView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getCurrentUserInfo",
        responses=schema.responses(USER.serializer, 401, 412),
    )
    def get(self, request):
        require_login(request)
        if access.robot_of(request.user):
            raise PreconditionFailed("get current user not available for security context: robot")
        return Response(user_record(selectors.get_user(request.user.pk)))


class UserSearchView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="searchUsers",
        parameters=[*schema.PAGE, schema.query("username", required=True)],
        responses=schema.responses(USER_SEARCH_ITEM.serializer(many=True), 401),
    )
    def get(self, request):
        require_login(request)
        username = self.query_required("username")
        matches = selectors.user_search(username)
        size = self.paginator.get_page_size(request)
        # Harbor ignores `page` here: always the first page_size matches, with the full count.
        rows = matches.values(*USER_SEARCH_ITEM.columns)
        rows = rows[:size] if size else rows
        response = Response([USER_SEARCH_ITEM.render(row) for row in rows])
        response["X-Total-Count"] = str(matches.count())
        return response


class UserDetailView(HarborViewMixin, APIView):
    def own_or_admin(self, request, user_id: int):
        require_login(request)
        if request.user.pk != user_id and not access.is_sysadmin(request.user):
            raise Forbidden(request.user.get_username())
        return selectors.get_user(user_id)

    @extend_schema(
        operation_id="getUser",
        responses=schema.responses(USER.serializer, 401, 403, 404),
    )
    def get(self, request, user_id):
        return Response(user_record(self.own_or_admin(request, user_id)))

    @extend_schema(
        operation_id="updateUserProfile",
        request=UserProfileSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, user_id):
        user = self.own_or_admin(request, user_id)
        body = self.body(UserProfileSerializer)
        users.update_user_profile(
            user, body.get("email"), body.get("realname"), body.get("comment")
        )
        return self.empty()

    @extend_schema(
        operation_id="deleteUser",
        responses=schema.responses(None, 401, 403, 404, 412),
    )
    def delete(self, request, user_id):
        require_sysadmin(request)
        users.delete_user(selectors.get_user(user_id), actor=request.user)
        return self.empty()


class UserPasswordView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="updateUserPassword",
        request=PasswordReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, user_id):
        require_login(request)
        by_admin = access.is_sysadmin(request.user)
        if request.user.pk != user_id and not by_admin:
            raise Forbidden(request.user.get_username())
        user = selectors.get_user(user_id)
        body = self.body(PasswordReqSerializer)
        own = request.user.pk == user_id
        if by_admin and not own:
            users.change_password(user, body["new_password"], None, by_admin=True)
            return self.empty()
        # The old password is a password check like a sign-in: throttled and counted the
        # same way, or a stolen session could guess the account's password at full speed.
        signin_throttle.check(request, user.get_username())
        try:
            users.change_password(
                user, body["new_password"], body.get("old_password"), by_admin=False
            )
        except Forbidden:
            signin_throttle.record_failure(request, user.get_username())
            raise
        return self.empty()


class UserSysAdminView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="setUserSysAdmin",
        request=UserSysAdminFlagSerializer,
        responses=schema.responses(None, 401, 403, 404),
    )
    def put(self, request, user_id):
        require_sysadmin(request)
        user = selectors.get_user(user_id)
        body = self.body(UserSysAdminFlagSerializer)
        users.set_sysadmin(user, bool(body.get("sysadmin_flag")))
        return self.empty()


# --- user groups ----------------------------------------------------------------------------


# selectors.group_list's filters (ldap_group_dn counts in LDAP mode only).
GROUP_FILTERS = QueryFilters(
    {
        **PAGING,
        "ldap_group_dn": Param(parse=optional, default=""),
        "group_name": Param(parse=optional, default=""),
    }
)


class UserGroupListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listUserGroups",
        parameters=GROUP_FILTERS.parameters,
        responses=schema.responses(USER_GROUP.serializer(many=True), 401, 403),
    )
    def get(self, request):
        require_sysadmin(request)
        filters = GROUP_FILTERS.parse(request.query_params, ("ldap_group_dn", "group_name"))
        queryset = selectors.group_list(**filters)
        return self.records_page(queryset, USER_GROUP)

    @extend_schema(
        operation_id="createUserGroup",
        request=UserGroupReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        require_sysadmin(request)
        body = self.body(UserGroupReqSerializer)
        group = usergroups.create_user_group(
            body["group_name"],
            body.get("group_type") or UserGroup.GroupType.HTTP,
            body.get("ldap_group_dn") or "",
        )
        return self.empty(201, f"{request.path.rstrip('/')}/{group.pk}")


class UserGroupSearchView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="searchUserGroups",
        parameters=[*schema.PAGE, schema.query("groupname", required=True)],
        responses=schema.responses(USER_GROUP_SEARCH_ITEM.serializer(many=True), 401),
    )
    def get(self, request):
        require_login(request)
        name = self.query_required("groupname")
        queryset = selectors.group_search(name)
        return self.records_page(queryset, USER_GROUP_SEARCH_ITEM)


class UserGroupDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getUserGroup",
        responses=schema.responses(USER_GROUP.serializer, 400, 401, 403, 404),
    )
    def get(self, request, group_id):
        require_sysadmin(request)
        data = USER_GROUP.render(USER_GROUP.row_of(selectors.get_group(group_id)))
        # Harbor's single-group answer carries no id.
        data.pop("id", None)
        return Response(data)

    @extend_schema(
        operation_id="updateUserGroup",
        request=UserGroupUpdateSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, group_id):
        require_sysadmin(request)
        group = selectors.get_group(group_id)
        body = self.body(UserGroupUpdateSerializer)
        usergroups.rename_user_group(group, body["group_name"])
        return self.empty()

    @extend_schema(
        operation_id="deleteUserGroup",
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def delete(self, request, group_id):
        require_sysadmin(request)
        selectors.get_group(group_id).delete()
        return self.empty()
