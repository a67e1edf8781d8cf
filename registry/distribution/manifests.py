"""Manifests: push (through registry.services.artifacts), delete, referrers
(reading them: `manifest_reads`).

Manifest bytes are stored as blobs at their digest; the registry's artifact and tag
records say which manifests a repository holds.
"""

import json
from dataclasses import dataclass

from django.db import transaction

from config import json_shape
from registry.distribution import auth, blobs, digests, storage, usage
from registry.distribution.errors import (
    Denied,
    DigestInvalid,
    ManifestBlobUnknown,
    ManifestInvalid,
    ManifestUnknown,
    NameUnknown,
)
from registry.distribution.manifest_documents import (
    FOREIGN_LAYERS,
    IMAGE_CONFIGS,
    IMAGE_MANIFESTS,
    MAX_CONFIG_BYTES,
    OCI_INDEX,
    TAG_SHAPE,
    parse_manifest,
)
from registry.distribution.models import ArtifactBlob, Blob, Referrer
from registry.errors import NotFound, QuotaExceeded
from registry.models import Artifact, Project, Repository
from registry.services import accessories, artifacts, audit, quota


@dataclass
class Pushed:
    digest: str
    subject: str
    project_id: int = 0
    # A tag pointed at an artifact the repository already held (a new tag, no new artifact).
    retagged: bool = False


def _project(repository_name: str) -> Project:
    project = auth.project_named(auth.project_name_of(repository_name))
    if project is None:
        raise NameUnknown(detail={"name": repository_name})
    return project


def _image_details(repository_name: str, document: dict) -> tuple[int, dict | None, list[str]]:
    """Size of the blobs the manifest references, `extra_attrs` from an image config, and
    the referenced digests.

    Every referenced blob must be in the repository (foreign layers excepted).
    """
    config = document["config"]
    wanted = [config] + [
        layer for layer in document["layers"] if layer.get("mediaType") not in FOREIGN_LAYERS
    ]
    known = dict(
        Blob.objects.filter(
            digest__in=[item["digest"] for item in wanted],
            links__repository_name=repository_name,
        ).values_list("digest", "size")
    )
    for item in wanted:
        if item["digest"] not in known:
            raise ManifestBlobUnknown(detail={"digest": item["digest"]})
        _check_size(item, known[item["digest"]])
    size = sum(item["size"] for item in wanted)
    extra_attrs = None
    if config.get("mediaType") in IMAGE_CONFIGS and config["size"] <= MAX_CONFIG_BYTES:
        try:
            content = storage.read_bytes(config["digest"], MAX_CONFIG_BYTES)
        except FileNotFoundError as exc:
            # Garbage collection removed it since the query above.
            raise ManifestBlobUnknown(detail={"digest": config["digest"]}) from exc
        extra_attrs = _config_attributes(content)
    return size, extra_attrs, list(known)


def _config_attributes(content: bytes) -> dict | None:
    """Harbor's image `extra_attrs`: architecture, os, created, author, config."""
    try:
        config = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(config, dict):
        return None
    attributes = {
        key: config[key]
        for key in ("architecture", "os", "created", "author", "config")
        if key in config
    }
    # Stored and rendered as they are: none that cannot be (a NUL, nesting past reason).
    return None if json_shape.problem(attributes) else attributes


def _index_details(repository: Repository | None, document: dict) -> int:
    """Size of the children, which must all be manifests of this repository."""
    children = [child["digest"] for child in document["manifests"]]
    known = (
        dict(
            Artifact.objects.filter(repository=repository, digest__in=children).values_list(
                "digest", "size"
            )
        )
        if repository is not None
        else {}
    )
    for digest in children:
        if digest not in known:
            raise ManifestBlobUnknown("manifest unknown to registry", detail={"digest": digest})
    stored = dict(Blob.objects.filter(digest__in=children).values_list("digest", "size"))
    for child in document["manifests"]:
        _check_size(child, stored.get(child["digest"], child["size"]))
    return sum(known[digest] for digest in set(children))


def _check_size(item: dict, stored: int) -> None:
    """A descriptor's size must be the stored blob's: usage and pulls rely on it."""
    if item["size"] != stored:
        raise ManifestInvalid(
            f"{item['digest']} is {stored} bytes but the manifest says {item['size']}",
            detail={"digest": item["digest"], "size": item["size"]},
        )


def push(repository_name: str, reference: str, content: bytes, content_type: str) -> Pushed:
    project = _project(repository_name)
    document, media_type = parse_manifest(content, content_type)
    if digests.looks_like_digest(reference):
        algorithm, _ = digests.parse(reference)
        digest = digests.of_bytes(content, algorithm)
        if digest != reference:
            raise DigestInvalid(detail={"digest": reference})
        tag = None
    else:
        if not TAG_SHAPE.match(reference):
            raise ManifestInvalid("invalid tag", detail={"tag": reference})
        digest = digests.of_bytes(content)
        tag = reference
    repository = Repository.objects.filter(name=repository_name).first()
    if media_type in IMAGE_MANIFESTS:
        referenced_size, extra_attrs, blob_digests = _image_details(repository_name, document)
        config_type = document["config"].get("mediaType", "")
        artifact_media_type = config_type
        artifact_type = document.get("artifactType") or config_type
        references = ()
    else:
        referenced_size, extra_attrs, blob_digests = _index_details(repository, document), None, []
        artifact_media_type = media_type
        artifact_type = document.get("artifactType") or media_type
        references = [
            {
                key: child[key]
                for key in ("digest", "platform", "annotations", "urls")
                if key in child
            }
            for child in document["manifests"]
        ]
    subject = (document.get("subject") or {}).get("digest", "")
    tagged = "" if subject else accessories.tagged_cosign_subject(tag, document.get("layers", []))
    retagged = (
        bool(tag)
        and repository is not None
        and Artifact.objects.filter(repository=repository, digest=digest).exists()
    )
    # A push the quota refuses writes nothing (the check is made again, authoritatively,
    # under the project's lock below).
    charge_blob(repository_name, digest, len(content))
    # Its row renewed, or its bytes written and then recorded, before the transaction (no
    # request to the storage inside one): a row garbage collection removed meanwhile
    # refuses the push below, as a missing layer does.
    blobs.put(digest, len(content), lambda: storage.save_bytes(digest, content))
    with transaction.atomic():
        # The project, then the blobs: the order a completing upload takes them in
        # (quota.add_blob), so that the two never wait for each other.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        held = _hold_blobs([digest, *blob_digests])
        # The manifest and every blob it references held by the repository, in this
        # transaction: a concurrent artifact delete may have released some since they
        # were checked above (or a repository delete dropped their links).
        blobs.hold(repository_name, list(held.values()))
        try:
            artifact = artifacts.record_artifact_push(
                project,
                repository_name,
                digest=digest,
                media_type=artifact_media_type,
                manifest_media_type=media_type,
                artifact_type=artifact_type,
                size=len(content) + referenced_size,
                extra_attrs=extra_attrs,
                annotations=document.get("annotations"),
                references=references,
                tag=tag,
            )
        except QuotaExceeded as exc:
            raise Denied(exc.message) from exc
        except NotFound as exc:  # the project was deleted since the push began
            raise NameUnknown(detail={"name": repository_name}) from exc
        ArtifactBlob.objects.bulk_create(
            [ArtifactBlob(artifact=artifact, blob=held[item]) for item in blob_digests],
            ignore_conflicts=True,
        )
        held = Artifact.objects.filter(repository_id=artifact.repository_id, digest=tagged)
        if tagged and not held.exists():
            # Harbor's cosign middleware links a signature pushed by tag only to a subject
            # the repository holds (read under the project's lock, as a subject's deletion
            # takes it); else, e.g. signatures kept in a repository of their own
            # (COSIGN_REPOSITORY), it is an ordinary artifact, listed and counted.
            tagged = ""
        if subject or tagged:
            Referrer.objects.update_or_create(
                artifact=artifact,
                defaults={
                    "subject_digest": subject or tagged,
                    "media_type": media_type,
                    "artifact_type": artifact_type,
                    "size": len(content),
                    "annotations": document.get("annotations"),
                    "accessory_type": accessories.COSIGN if tagged else "",
                },
            )
    return Pushed(digest=digest, subject=subject, project_id=project.pk, retagged=retagged)


def record_push(repository_name: str, reference: str, pushed: Pushed, username: str) -> None:
    if pushed.retagged:
        resource, kind = f"{repository_name}:{reference}", "tag"
    else:
        tag = None if reference == pushed.digest else reference
        resource, kind = audit.artifact_resource(repository_name, pushed.digest, tag), "artifact"
    audit.record(pushed.project_id, "create", kind, resource, username)


def _hold_blobs(wanted: list[str]) -> dict[str, Blob]:
    """Lock the rows of the blobs a manifest is about to reference, until its transaction
    ends: a garbage collection sweep (which locks them too, in the same order) either
    waits and then sees the references, or removed them first and the push is refused.
    SQLite's IMMEDIATE transactions hold the database's write lock instead."""
    held = {
        blob.digest: blob
        for blob in Blob.objects.select_for_update().filter(digest__in=wanted).order_by("pk")
    }
    for item in wanted:
        if item not in held:
            raise ManifestBlobUnknown(detail={"digest": item})
    return held


def charge_blob(repository_name: str, digest: str, size: int) -> None:
    """Refuse early (before its body is read) a blob that cannot fit in the project; the
    charge itself is made when the upload completes, at the blob's real size."""
    project = _project(repository_name)
    if usage.held_by_project(project.name, digest):
        return
    try:
        quota.check_quota(project, size)
    except QuotaExceeded as exc:
        raise Denied(exc.message) from exc


def delete(repository_name: str, reference: str, username: str) -> None:
    """By digest: the artifact (with its tags and accessories); by tag: that tag only."""
    repository = Repository.objects.filter(name=repository_name).first()
    if repository is None:
        raise NameUnknown(detail={"name": repository_name})
    if digests.looks_like_digest(reference):
        digests.parse(reference)
        artifact = Artifact.objects.filter(repository=repository, digest=reference).first()
        if artifact is None:
            raise ManifestUnknown(detail={"reference": reference})
        try:
            accessories = artifacts.delete_artifact(artifact)
        except NotFound as exc:  # a racing delete took it first
            raise ManifestUnknown(detail={"reference": reference}) from exc
        for deleted in [*accessories, reference]:
            resource = audit.artifact_resource(repository_name, deleted)
            audit.record(repository.project_id, "delete", "artifact", resource, username)
        return
    if not TAG_SHAPE.match(reference):
        raise ManifestUnknown(detail={"reference": reference})
    try:
        artifacts.delete_tag(repository, reference)
    except NotFound as exc:  # never there, or a racing delete took it first
        raise ManifestUnknown(detail={"reference": reference}) from exc
    resource = f"{repository_name}:{reference}"
    audit.record(repository.project_id, "delete", "tag", resource, username)


def referrers(repository_name: str, digest: str, artifact_type: str = "") -> dict:
    """The image index of the manifests whose subject is `digest`, optionally filtered."""
    digests.parse(digest)
    rows = Referrer.objects.filter(
        artifact__repository__name=repository_name, subject_digest=digest
    ).select_related("artifact")
    if artifact_type:
        # No stored type holds a NUL (PostgreSQL text cannot): such a filter matches none.
        rows = rows.filter(artifact_type=artifact_type) if "\x00" not in artifact_type else []
    manifests = []
    for row in rows:
        entry = {
            "mediaType": row.media_type,
            "digest": row.artifact.digest,
            "size": row.size,
            "artifactType": row.artifact_type,
        }
        if row.annotations:
            entry["annotations"] = row.annotations
        manifests.append(entry)
    return {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": manifests}
