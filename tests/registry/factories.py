"""Factories for registry records. Projects, repositories, artifacts and tags are made
through registry.services, the same code path the API and the OCI push use."""

import hashlib

import factory
from django.contrib.auth import get_user_model
from django.db import transaction

from registry.models import Blob, Label, ProjectMember, RepositoryBlob, Role, UserGroup
from registry.services import artifacts, projects

PASSWORD = "Passw0rd1"
IMAGE_CONFIG = "application/vnd.oci.image.config.v1+json"
IMAGE_MANIFEST = "application/vnd.oci.image.manifest.v1+json"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class ProjectFactory(factory.Factory):
    """A project created by projects.create_project (its owner becomes projectAdmin)."""

    class Meta:
        model = dict

    name = factory.Sequence(lambda n: f"project{n}")
    owner = factory.SubFactory(UserFactory)
    public = False
    metadata = None

    @classmethod
    def _create(cls, model_class, **kwargs):
        return projects.create_project(
            kwargs["owner"],
            kwargs["name"],
            metadata=kwargs["metadata"],
            public=kwargs["public"],
            as_admin=True,
        )

    _build = _create


class UserGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UserGroup

    group_name = factory.Sequence(lambda n: f"group{n}")
    group_type = UserGroup.GroupType.HTTP
    ldap_group_dn = ""


class MemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProjectMember

    project = factory.SubFactory(ProjectFactory)
    user = factory.SubFactory(UserFactory)
    group = None
    role = Role.DEVELOPER


class LabelFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Label

    name = factory.Sequence(lambda n: f"label{n}")
    scope = Label.Scope.GLOBAL
    color = "#FFFFFF"


def digest_of(seed: str) -> str:
    return "sha256:" + hashlib.sha256(seed.encode()).hexdigest()


def push(project, repository: str, tag: str | None = "latest", seed: str | None = None, **kw):
    """An image pushed as the OCI API does (its manifest blob linked to the repository, then
    artifacts.record_artifact_push); `size` is the manifest blob's. Returns the Artifact."""
    seed = seed or f"{project.name}/{repository}:{tag}"
    digest = kw.pop("digest", digest_of(seed))
    size = kw.pop("size", 1000)
    full_name = (
        repository if repository.startswith(project.name + "/") else f"{project.name}/{repository}"
    )
    with transaction.atomic():
        blob, _ = Blob.objects.get_or_create(
            digest=digest, defaults={"size": size, "object_name": f"blobs/{digest}"}
        )
        RepositoryBlob.objects.get_or_create(repository_name=full_name, blob=blob)
        return artifacts.record_artifact_push(
            project,
            repository,
            digest=digest,
            media_type=kw.pop("media_type", IMAGE_CONFIG),
            manifest_media_type=kw.pop("manifest_media_type", IMAGE_MANIFEST),
            size=size,
            extra_attrs=kw.pop("extra_attrs", {"architecture": "amd64", "os": "linux"}),
            tag=tag,
            **kw,
        )
