"""A search's and a repository list's artifact_count read per repository counts kept by
database triggers (registry.models.RepositoryArtifactCount) while no reference names a
child in the repository: the kept counts must follow every push, reference, deletion and
move, and the count shown must stay Harbor's default set (an index's untagged children
left out) whoever writes."""

import pytest
from django.db import connection
from django.db.models import Count
from django.utils.timezone import now

from registry.distribution.models import Referrer
from registry.models import (
    Artifact,
    ArtifactReference,
    Repository,
    RepositoryArtifactCount,
    Tag,
)
from registry.selectors import artifact_count, default_base, not_accessory
from registry.services import artifacts as artifact_service
from registry.services import repositories as repository_service
from tests.registry.factories import ProjectFactory, push

pytestmark = pytest.mark.django_db


def kept() -> dict[int, tuple[int, int, int]]:
    rows = RepositoryArtifactCount.objects.exclude(
        artifact_count=0, child_count=0, accessory_count=0
    )
    columns = ("repository", "artifact_count", "child_count", "accessory_count")
    return {r: (a, c, s) for r, a, c, s in rows.values_list(*columns)}


def real() -> dict[int, tuple[int, int, int]]:
    artifacts = dict(Artifact.objects.order_by().values_list("repository").annotate(n=Count("pk")))
    children = dict(
        ArtifactReference.objects.filter(child__isnull=False)
        .order_by()
        .values_list("child__repository")
        .annotate(n=Count("pk"))
    )
    accessories = dict(
        Referrer.objects.order_by().values_list("artifact__repository").annotate(n=Count("pk"))
    )
    return {
        r: (artifacts.get(r, 0), children.get(r, 0), accessories.get(r, 0))
        for r in {*artifacts, *children, *accessories}
    }


def shown() -> dict[str, int]:
    """Each repository's artifact_count as the search and the lists read it."""
    rows = Repository.objects.annotate(n=artifact_count()).values_list("name", "n")
    return dict(rows)


def counted() -> dict[str, int]:
    """Harbor's default set, accessories left out, counted artifact by artifact."""
    every = Artifact.objects.filter(default_base(), not_accessory())
    return {
        repository.name: every.filter(repository=repository).count()
        for repository in Repository.objects.all()
    }


def check() -> dict[str, int]:
    assert kept() == real()
    assert shown() == counted()
    return shown()


def test_counts_follow_pushes_references_deletions_and_moves(alice):
    project = ProjectFactory(name="team", owner=alice)
    index = push(project, "multi", tag="v1")
    amd = push(project, "multi", tag=None, seed="amd")
    arm = push(project, "multi", tag="arm", seed="arm")
    push(project, "plain", tag=None)
    assert check() == {"team/multi": 3, "team/plain": 1}

    for child in (amd, arm):
        ArtifactReference.objects.create(parent=index, child=child, child_digest=child.digest)
    # A reference naming no child yet (its manifest not pushed) changes nothing.
    ArtifactReference.objects.create(parent=index, child_digest="sha256:" + "0" * 64)
    assert check() == {"team/multi": 2, "team/plain": 1}

    Tag.objects.create(repository=amd.repository, artifact=amd, name="amd", push_time=now())
    assert check()["team/multi"] == 3
    Tag.objects.filter(artifact=amd).delete()
    assert check()["team/multi"] == 2

    # A reference pointed at another child, then at none, as raw SQL would.
    reference = ArtifactReference.objects.get(child=arm)
    ArtifactReference.objects.filter(pk=reference.pk).update(child=index)
    assert check()["team/multi"] == 2  # the index itself is now a tagged child
    ArtifactReference.objects.filter(pk=reference.pk).update(child=None)
    assert check()["team/multi"] == 2

    # An artifact moved to another repository takes the references naming it along.
    plain = Repository.objects.get(name="team/plain")
    Artifact.objects.filter(pk=amd.pk).update(repository=plain)
    assert check() == {"team/multi": 2, "team/plain": 1}

    # The index goes with its orphaned children, wherever they are.
    artifact_service.delete_artifact(Artifact.objects.get(pk=index.pk))
    check()
    repository_service.delete_repository(Repository.objects.get(name="team/multi"))
    assert "team/multi" not in check()
    project.delete()
    assert kept() == real() == {}
    assert not RepositoryArtifactCount.objects.exists()


def test_accessories_are_not_counted(alice):
    project = ProjectFactory(name="acc", owner=alice)
    subject = push(project, "signed", tag="v1")
    signature = push(project, "signed", tag=None, seed="sig")
    sbom = push(project, "signed", tag=None, seed="sbom")
    push(project, "plain", tag=None)
    assert check() == {"acc/signed": 3, "acc/plain": 1}
    for accessory in (signature, sbom):
        Referrer.objects.create(
            artifact=accessory, subject_digest=subject.digest, media_type="m", size=1
        )
    # Tagged or not, an accessory is not one of the repository's artifacts (Harbor's count).
    assert check() == {"acc/signed": 1, "acc/plain": 1}
    Tag.objects.create(repository=sbom.repository, artifact=sbom, name="s", push_time=now())
    assert check() == {"acc/signed": 1, "acc/plain": 1}
    # Moved with its referrer row; a referrer row pointed at another artifact.
    plain = Repository.objects.get(name="acc/plain")
    Artifact.objects.filter(pk=sbom.pk).update(repository=plain)
    assert check() == {"acc/signed": 1, "acc/plain": 1}
    Referrer.objects.filter(artifact=sbom).update(artifact=subject)
    assert check() == {"acc/signed": 0, "acc/plain": 2}
    # The ORM deletes the referrer row first; raw SQL may delete the artifact first.
    Artifact.objects.filter(pk=signature.pk).delete()
    assert check() == {"acc/signed": 0, "acc/plain": 2}
    signed = RepositoryArtifactCount.objects.filter(repository=subject.repository_id)
    with connection.cursor() as cursor:
        for table in ("registry_tag", "registry_artifactblob"):
            cursor.execute(f"DELETE FROM {table} WHERE artifact_id = %s", [subject.pk])
        cursor.execute("DELETE FROM registry_artifact WHERE id = %s", [subject.pk])
        assert signed.get().accessory_count == 0
        cursor.execute("DELETE FROM registry_referrer WHERE artifact_id = %s", [subject.pk])
    assert check() == {"acc/signed": 0, "acc/plain": 2}
    # A referrer row written before its artifact (a deferred key) counts once both exist.
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO registry_referrer "
            "(artifact_id, subject_digest, media_type, artifact_type, size) "
            "VALUES (%s, 'sha256:x', 'm', '', 1)",
            [10**6],
        )
    assert check() == {"acc/signed": 0, "acc/plain": 2}
    Artifact.objects.bulk_create(
        [
            Artifact(
                pk=10**6,
                repository=plain,
                project=project,
                digest="sha256:" + "f" * 64,
                media_type="m",
                manifest_media_type="m",
                push_time=now(),
            )
        ]
    )
    assert check() == {"acc/signed": 0, "acc/plain": 2}


def test_counts_follow_raw_sql_and_bulk_writes(alice):
    project = ProjectFactory(name="raw", owner=alice)
    first = push(project, "one", tag="a")
    repository = first.repository
    Artifact.objects.bulk_create(
        Artifact(
            repository=repository,
            project=project,
            digest=f"sha256:{n:064x}",
            media_type="application/vnd.oci.image.config.v1+json",
            manifest_media_type="application/vnd.oci.image.manifest.v1+json",
            extra_attrs={},
            push_time=now(),
        )
        for n in range(4)
    )
    children = list(Artifact.objects.filter(repository=repository).exclude(pk=first.pk))
    with connection.cursor() as cursor:
        for child in children[:2]:
            cursor.execute(
                "INSERT INTO registry_artifactreference (parent_id, child_id, child_digest) "
                "VALUES (%s, %s, %s)",
                [first.pk, child.pk, child.digest],
            )
    assert check() == {"raw/one": 3}
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM registry_artifactreference WHERE child_id = %s", [children[0].pk]
        )
    assert check() == {"raw/one": 4}
    Artifact.objects.filter(pk__in=[c.pk for c in children]).delete()
    assert check() == {"raw/one": 1}


def test_search_and_list_read_one_statement_per_page(
    alice, alice_client, django_assert_max_num_queries
):
    project = ProjectFactory(name="lists", owner=alice)
    for n in range(6):
        index = push(project, f"r{n}", tag="v1")
        if n % 2:
            child = push(project, f"r{n}", tag=None, seed=f"child{n}")
            ArtifactReference.objects.create(parent=index, child=child, child_digest=child.digest)
    alice_client.get("/api/v2.0/search?q=lists")
    with django_assert_max_num_queries(9):
        found = alice_client.get("/api/v2.0/search?q=lists").json()["repository"]
    assert [r["artifact_count"] for r in found] == [1] * 6
    listed = alice_client.get("/api/v2.0/projects/lists/repositories").json()
    assert {r["name"]: r["artifact_count"] for r in listed} == {f"lists/r{n}": 1 for n in range(6)}
