"""POST /repos/migrate and POST /repos/{owner}/{repo}/mirror-sync."""

from dataclasses import fields

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from codehost import tasks
from codehost.api.base import GiteaViewMixin
from codehost.api.migration_serializers import MigrateRepoOptionsSerializer, binding_error
from codehost.api.schema import GiteaErrorSerializer
from codehost.api.serializers.repos import REPOSITORY
from codehost.api.views.common import render_repo, visible_repo
from codehost.errors import Invalid
from codehost.services import migrations, mirrors

TAGS = ["repository"]


REQUEST_FIELDS = {field.name for field in fields(migrations.MigrationRequest)}


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
            raise Invalid(binding_error(serializer.errors))
        options = migrations.MigrationRequest(
            **{
                key: value
                for key, value in serializer.validated_data.items()
                if key in REQUEST_FIELDS and value is not None
            }
        )
        task = migrations.start_migration(request.user, options, tasks.migrate_repository.delay)
        # As Gitea, the answer comes once the migration is over (bounded by a setting).
        task = migrations.wait_for_migration(task, settings.CODEHOST_MIGRATION_WAIT_SECONDS)
        migrations.raise_if_failed(task)
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
        # A sync already queued or running is not queued again; either way 200 at once.
        mirrors.sync_now(found, found_access, tasks.sync_mirror.delay)
        return Response(status=200)
