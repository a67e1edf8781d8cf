"""Accessories: the artifacts of a repository whose manifest names one of its artifacts as
`subject` (recorded at push as a Referrer), typed as Harbor types them."""

import re

from django.db.models import Q, QuerySet

from registry.distribution.models import Referrer
from registry.models import Artifact

# Harbor's accessory type by the referring manifest's artifactType (or config media type).
TYPES = {
    "application/vnd.dev.cosign.artifact.sig.v1+json": "signature.cosign",
    "application/vnd.dev.sigstore.bundle.v0.3+json": "signature.cosign",
    "application/vnd.cncf.notary.signature": "signature.notation",
    "application/vnd.goharbor.harbor.sbom.v1": "sbom.harbor",
}
SUBJECT = "subject.accessory"
ICONS = {
    "signature.cosign": "sha256:20401d5b3a0f6dbc607c8d732eb08471af4ae6b19811a4efce8c6a724aed2882",
    "signature.notation": "sha256:3ac706e102bbe9362b400aa162df58135d35e66b9c3bee2165de92022d25fe34",
    "sbom.harbor": "sha256:c19f80c357cd7e90d2a01b9ae3e2eb62ce447a2662bb590a19177d72d550bdae",
}


COSIGN = "signature.cosign"
# Harbor records a cosign signature pushed the way before OCI 1.1 (no subject; tagged
# `sha256-<hex>.sig`, holding a simplesigning layer) as an accessory of sha256:<hex>.
COSIGN_TAG = re.compile(r"^sha256-([a-f0-9]{64})\.sig\Z")
COSIGN_LAYER = "application/vnd.dev.cosign.simplesigning.v1+json"


def tagged_cosign_subject(tag: str | None, layers: list) -> str:
    """The subject digest a cosign signature pushed by tag names, or ""."""
    found = COSIGN_TAG.match(tag or "")
    signed = any(
        isinstance(layer, dict) and layer.get("mediaType") == COSIGN_LAYER for layer in layers
    )
    return f"sha256:{found.group(1)}" if found and signed else ""


def type_of(artifact_type: str, accessory_type: str = "") -> str:
    return accessory_type or TYPES.get(artifact_type, SUBJECT)


def icon_of(accessory_type: str) -> str:
    return ICONS.get(accessory_type, "")


def accessories_of(artifact: Artifact) -> QuerySet:
    """The referrers of `artifact` pushed into its repository, oldest first."""
    return of_subjects(artifact.repository_id, [artifact.digest])


def of_subjects(repository_id: int, digests: list[str]) -> QuerySet:
    """The referrers pushed into a repository whose subject is one of `digests`."""
    return Referrer.objects.filter(
        artifact__repository_id=repository_id, subject_digest__in=digests
    ).order_by("pk")


def of_type(referrers: QuerySet, accessory_type: str) -> QuerySet:
    """The referrers of `referrers` that Harbor types `accessory_type`."""
    if accessory_type == SUBJECT:
        return referrers.exclude(artifact_type__in=list(TYPES)).filter(accessory_type="")
    media = [media for media, kind in TYPES.items() if kind == accessory_type]
    return referrers.filter(
        Q(accessory_type=accessory_type) | Q(artifact_type__in=media, accessory_type="")
    )
