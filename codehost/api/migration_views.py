"""POST /repos/migrate and POST /repos/{owner}/{repo}/mirror-sync."""

from dataclasses import fields

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from codehost import migrations_service, mirrors
from codehost.api.base import GiteaViewMixin
from codehost.api.migration_serializers import MigrateRepoOptionsSerializer, binding_error
from codehost.api.schema import GiteaErrorSerializer
from codehost.api.serializers.repos import REPOSITORY
from codehost.api.views.common import render_repo, visible_repo
from codehost.errors import BadRequest, CodehostError, Forbidden, Unprocessable

TAGS = ["repository"]


class RepositoryArchived(CodehostError):
    """Gitea's mustNotBeArchived route guard."""

    status_code = 423


REQUEST_FIELDS = {field.name for field in fields(migrations_service.MigrationRequest)}


class MigrateRepositoryView(GiteaViewMixin, APIView):
    require_signin = True
    token_scopes = ["repository"]

    @extend_schema(
        tags=TAGS,
        operation_id="repoMigrate",
        summary="Migrate a remote git repository",
        request=MigrateRepoOptionsSerializer,
        # Error answers (401, 403, 409, 422...) are added by the service's schema class;
        # 429 and 503 (with Retry-After) are the caps on migrations in flight.
        responses={
            201: REPOSITORY.serializer,
            429: GiteaErrorSerializer,
            500: GiteaErrorSerializer,
            503: GiteaErrorSerializer,
        },
    )
    def post(self, request):
        serializer = MigrateRepoOptionsSerializer(data=request.data)
        if not serializer.is_valid():
            raise Unprocessable(binding_error(serializer.errors))
        options = migrations_service.MigrationRequest(
            **{
                key: value
                for key, value in serializer.validated_data.items()
                if key in REQUEST_FIELDS and value is not None
            }
        )
        task = migrations_service.start_migration(request.user, options)
        # As Gitea, the answer comes once the migration is over (bounded by a setting).
        task = migrations_service.wait_for_migration(task, settings.CODEHOST_MIGRATION_WAIT_SECONDS)
        migrations_service.raise_if_failed(task)
        return render_repo(self.actor, task.repo, status=201)


class MirrorSyncView(GiteaViewMixin, APIView):
    require_signin = True
    token_scopes = ["repository"]

    @extend_schema(
        tags=TAGS,
        operation_id="repoMirrorSync",
        summary="Sync a mirrored repository",
        request=None,
        responses={200: OpenApiResponse(description="queued; empty body")},
    )
    def post(self, request, owner: str, repo: str):
        found, found_access = visible_repo(self.actor, owner, repo)
        if not found_access.can_write_code:
            raise Forbidden("user should have a permission to write to a repo")
        if found.is_archived:
            raise RepositoryArchived(f"{found.owner.name}/{found.name} is archived")
        if not settings.CODEHOST_MIRRORS_ENABLED:
            raise BadRequest("Mirror feature is disabled")
        mirror = mirrors.mirror_of(found)
        if mirror is None:
            raise BadRequest("Repository is not a mirror")
        # A sync already queued or running is not queued again; either way 200 at once.
        mirrors.request_sync(mirror.pk)
        return Response(status=200)
