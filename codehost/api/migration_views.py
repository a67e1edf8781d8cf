"""POST /repos/migrate and POST /repos/{owner}/{repo}/mirror-sync."""

from dataclasses import fields

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAuthenticated, NotFound, ParseError, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from codehost import migrations_service, mirrors
from codehost.api.base import GiteaViewMixin
from codehost.api.migration_serializers import (
    MigratedRepositorySerializer,
    MigrateRepoOptionsSerializer,
    binding_error,
)
from codehost.models import Repository

REQUEST_FIELDS = {field.name for field in fields(migrations_service.MigrationRequest)}


def require_signed_in(request) -> None:
    if not request.user.is_authenticated:
        raise NotAuthenticated("token is required")


def interim_can_write(user, repo) -> bool:
    """Site admin or personal owner; replaced by the shared access rules when they land."""
    return user.is_superuser or repo.owner.user_id == user.pk


class MigrateRepositoryView(GiteaViewMixin, APIView):
    @extend_schema(
        operation_id="repoMigrate",
        summary="Migrate a remote git repository",
        request=MigrateRepoOptionsSerializer,
        responses={
            201: MigratedRepositorySerializer,
            401: OpenApiResponse(description="token is required"),
            403: OpenApiResponse(description="forbidden"),
            409: OpenApiResponse(description="The repository with the same name already exists."),
            422: OpenApiResponse(description="validationError"),
            500: OpenApiResponse(description="the migration failed"),
        },
    )
    def post(self, request):
        require_signed_in(request)
        serializer = MigrateRepoOptionsSerializer(data=request.data)
        if not serializer.is_valid():
            raise migrations_service.MigrationError(422, binding_error(serializer.errors))
        options = migrations_service.MigrationRequest(
            **{
                key: value
                for key, value in serializer.validated_data.items()
                if key in REQUEST_FIELDS
            }
        )
        task = migrations_service.start_migration(request.user, options)
        task = migrations_service.wait_for_migration(
            task.pk, settings.CODEHOST_MIGRATION_WAIT_SECONDS
        )
        migrations_service.raise_if_failed(task)
        repo = Repository.objects.select_related("owner", "mirror").get(pk=task.repo_id)
        return Response(MigratedRepositorySerializer(repo).data, status=201)


class MirrorSyncView(GiteaViewMixin, APIView):
    @extend_schema(
        operation_id="repoMirrorSync",
        summary="Sync a mirrored repository",
        request=None,
        responses={
            200: OpenApiResponse(description="queued; empty body"),
            400: OpenApiResponse(description="Repository is not a mirror"),
            401: OpenApiResponse(description="token is required"),
            403: OpenApiResponse(description="forbidden"),
            404: OpenApiResponse(description="not found"),
        },
    )
    def post(self, request, owner: str, repo: str):
        require_signed_in(request)
        repository = (
            Repository.objects.select_related("owner", "mirror")
            .filter(owner__lower_name=owner.lower(), lower_name=repo.lower())
            .first()
        )
        if repository is None or not interim_can_write(request.user, repository):
            if repository is None or repository.private:
                raise NotFound("not found")
            raise PermissionDenied("user should have a permission to write to a repo")
        if not repository.is_mirror:
            raise ParseError("Repository is not a mirror")
        mirrors.request_sync(repository.mirror.pk)
        return Response(status=200)
