"""Garbage collection on Harbor's perf "small" data set after deleting a tenth of it.

bench_registry's seed (100 projects x 100 repositories x 10 artifacts x 5 tags), plus
what the blob store holds for it: every artifact gets its manifest, a config and a layer
of its own (1-4 KiB) and a 256 KiB base layer shared by its project, as files in the
`registry` storage with their Blob, ArtifactBlob and RepositoryBlob rows (about 300k
files and 900k rows). Then a tenth of the artifacts (one per repository) is deleted and
garbage collection runs with no time window: a dry run, then the real one. The table
gives each run's wall time, blobs deleted and bytes freed, and `du -sb` of the blob store
before and after. The data set is changed by the run, so it is always seeded afresh.
"""

import hashlib
import json
import subprocess
import time
from pathlib import Path

from benchmarks.harness import backing_services, manage, print_table, run_django

BASE_LAYER = 256 * 1024
BATCH = 5000


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def seed_blobs() -> None:
    """Files and rows of the blob store for every seeded artifact (see the module doc)."""
    from django.core.files.storage import storages
    from django.db import connection

    from registry.distribution.storage import new_object_name
    from registry.models import Artifact, ArtifactBlob, Blob, Project, RepositoryBlob

    root = Path(storages["registry"].location)
    names: dict[str, str] = {}

    def write(digest: str, data: bytes) -> None:
        names[digest] = new_object_name(digest)
        path = root / names[digest]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    bases = {}
    for project_id, name in Project.objects.values_list("pk", "name"):
        data = hashlib.sha256(name.encode()).digest() * (BASE_LAYER // 32)
        bases[project_id] = (_digest(data), len(data))
        write(bases[project_id][0], data)
    Blob.objects.bulk_create(
        Blob(digest=d, size=s, object_name=names[d]) for d, s in bases.values()
    )
    blob_ids = dict(Blob.objects.values_list("digest", "pk"))
    rows = Artifact.objects.order_by("pk").values_list(
        "pk", "digest", "project_id", "repository__name"
    )
    pending: list[tuple] = []

    def flush() -> None:
        new = Blob.objects.bulk_create(
            [
                Blob(digest=d, size=s, object_name=names.pop(d))
                for item in pending
                for d, s in item[3]
            ],
            batch_size=BATCH,
        )
        blob_ids.update((blob.digest, blob.pk) for blob in new)
        links, repository_links = [], []
        for artifact_id, repository, project_id, owned in pending:
            base = blob_ids[bases[project_id][0]]
            parts = [blob_ids[d] for d, _ in owned[1:]] + [base]
            links += [ArtifactBlob(artifact_id=artifact_id, blob_id=pk) for pk in parts]
            repository_links += [
                RepositoryBlob(repository_name=repository, blob_id=pk)
                for pk in [blob_ids[owned[0][0]], *parts]
            ]
        ArtifactBlob.objects.bulk_create(links, batch_size=BATCH)
        RepositoryBlob.objects.bulk_create(
            repository_links, batch_size=BATCH, ignore_conflicts=True
        )
        pending.clear()

    for artifact_id, digest, project_id, repository in rows.iterator(chunk_size=BATCH):
        config = json.dumps({"architecture": "amd64", "os": "linux", "author": digest}).encode()
        layer = hashlib.sha512(digest.encode()).digest() * (16 + artifact_id % 48)
        manifest = json.dumps(
            {
                "schemaVersion": 2,
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"digest": _digest(config), "size": len(config)},
                "layers": [
                    {"digest": bases[project_id][0], "size": bases[project_id][1]},
                    {"digest": _digest(layer), "size": len(layer)},
                ],
            }
        ).encode()
        # The seed's artifact digests are not their manifests' hashes; the file is stored
        # at the artifact's digest all the same (nothing here is pulled).
        write(digest, manifest)
        write(_digest(config), config)
        write(_digest(layer), layer)
        owned = [
            (digest, len(manifest)),
            (_digest(config), len(config)),
            (_digest(layer), len(layer)),
        ]
        pending.append((artifact_id, repository, project_id, owned))
        if len(pending) >= BATCH:
            flush()
    flush()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def delete_a_tenth() -> None:
    """One artifact in ten (the fourth of each repository), in bulk, leaving what
    `artifacts.delete_artifact` leaves (one at a time it reads the repository's manifests
    and takes over half an hour here): artifacts, tags and labels gone, the blobs only
    they used unlinked from their repositories, every project recounted."""
    from django.db import transaction
    from django.db.models import Q

    from registry.models import Artifact, ArtifactBlob, Blob, Project, RepositoryBlob
    from registry.services import quota

    began = time.perf_counter()
    with transaction.atomic():
        doomed = Artifact.objects.filter(size=4 * 1024)
        own = Blob.objects.filter(
            Q(digest__in=doomed.values("digest"))
            | Q(
                artifact_links__artifact__in=doomed,
                size__lt=BASE_LAYER,  # the shared base layers stay in use
            )
        )
        RepositoryBlob.objects.filter(blob__in=own.values("pk")).delete()
        ArtifactBlob.objects.filter(artifact__in=doomed).delete()
        deleted = doomed.delete()[1]["registry.Artifact"]
    for project in Project.objects.all():
        quota.recount_usage(project)
    print(json.dumps({"deleted": deleted, "seconds": time.perf_counter() - began}))


def collect(dry_run: bool) -> None:
    from registry.gc import services
    from registry.gc.models import GCExecution

    execution = GCExecution.objects.create(dry_run=dry_run, time_window_hours=0)
    began = time.perf_counter()
    services.run(execution.pk)
    seconds = time.perf_counter() - began
    execution.refresh_from_db()
    assert execution.status == "Success", execution.log[-2000:]
    print(
        json.dumps(
            {
                "seconds": seconds,
                "deleted_blobs": execution.deleted_blobs,
                "freed_bytes": execution.freed_bytes,
                "log_lines": execution.log.count("\n"),
            }
        )
    )


def _du(path: Path) -> int:
    output = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return int(output.stdout.split()[0])


def _last_json(output: str) -> dict:
    return json.loads(output.strip().splitlines()[-1])


def run() -> None:
    with backing_services() as env:
        store = Path(env["DATA_DIR"]) / "registry"
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        began = time.perf_counter()
        run_django(env, "from benchmarks.bench_registry import seed; seed()")
        run_django(env, "from benchmarks.bench_gc import seed_blobs; seed_blobs()")
        seeded = time.perf_counter() - began
        deleted = _last_json(
            run_django(env, "from benchmarks.bench_gc import delete_a_tenth; delete_a_tenth()")
        )
        rows = []
        for dry_run in (True, False):
            before = _du(store)
            result = _last_json(
                run_django(env, f"from benchmarks.bench_gc import collect; collect({dry_run})")
            )
            rows.append(
                {
                    "run": "dry run" if dry_run else "collect",
                    "seconds": result["seconds"],
                    "blobs": result["deleted_blobs"],
                    "freed MiB": result["freed_bytes"] / 2**20,
                    "freed bytes": result["freed_bytes"],
                    "du before": before,
                    "du drop": before - _du(store),
                }
            )
        print(
            f"seeded in {seeded:.0f} s; deleted {deleted['deleted']} artifacts "
            f"in {deleted['seconds']:.1f} s"
        )
        print_table("garbage collection, perf 'small' with a tenth of its artifacts deleted", rows)
