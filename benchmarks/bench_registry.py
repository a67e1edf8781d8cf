"""Registry listings on Harbor's perf "small" data set (goharbor/perf `small`).

100 projects x 100 repositories x 10 artifacts x 5 tags (500,000 tags), 100 users,
10 members per project, one label on every artifact. Seeded with bulk inserts by
`seed()` below (not through 100k HTTP calls), then project, repository and artifact
lists at page_size=100 are measured at 1 and 8 concurrent clients.
"""

import base64
import json

from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server

PROJECTS = 100
REPOSITORIES = 100
ARTIFACTS = 10
TAGS = 5
USERS = 100
MEMBERS = 10
ADMIN_PASSWORD = "bench-admin"
USER_PASSWORD = "Bench1234"


def seed() -> None:
    """Bulk-insert the data set; run inside a Django process (see run_django)."""
    import hashlib

    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from registry import services
    from registry.models import (
        Artifact,
        ArtifactLabel,
        Label,
        Project,
        ProjectMember,
        ProjectMetadata,
        Repository,
        Role,
        Tag,
    )

    user_model = get_user_model()
    admin = user_model.objects.get(username="admin")
    password = make_password(USER_PASSWORD)
    now = timezone.now()
    with transaction.atomic():
        users = user_model.objects.bulk_create(
            user_model(username=f"user{n:03d}", email=f"user{n:03d}@example.com", password=password)
            for n in range(USERS)
        )
        projects = Project.objects.bulk_create(
            Project(name=f"project{n:03d}", owner=admin) for n in range(PROJECTS)
        )
        ProjectMetadata.objects.bulk_create(
            ProjectMetadata(project=p, name="public", value="true" if n % 2 else "false")
            for n, p in enumerate(projects)
        )
        ProjectMember.objects.bulk_create(
            [ProjectMember(project=p, user=admin, role=Role.PROJECT_ADMIN) for p in projects]
            + [
                ProjectMember(project=p, user=users[(n + m) % USERS], role=1 + m % 5)
                for n, p in enumerate(projects)
                for m in range(MEMBERS)
            ]
        )
        label = Label.objects.create(name="bench", scope=Label.Scope.GLOBAL, color="#00FF00")
    icon = services.ICONS[Artifact.Type.IMAGE]
    for project in projects:
        with transaction.atomic():
            repositories = Repository.objects.bulk_create(
                Repository(project=project, name=f"{project.name}/repo{r:03d}")
                for r in range(REPOSITORIES)
            )
            artifacts = Artifact.objects.bulk_create(
                Artifact(
                    repository=repository,
                    project=project,
                    digest="sha256:"
                    + hashlib.sha256(f"{repository.name}@{a}".encode()).hexdigest(),
                    type=Artifact.Type.IMAGE,
                    media_type="application/vnd.oci.image.config.v1+json",
                    manifest_media_type="application/vnd.oci.image.manifest.v1+json",
                    artifact_type="application/vnd.oci.image.config.v1+json",
                    size=1024 * (a + 1),
                    icon=icon,
                    push_time=now,
                    extra_attrs={"architecture": "amd64", "os": "linux"},
                )
                for repository in repositories
                for a in range(ARTIFACTS)
            )
            Tag.objects.bulk_create(
                (
                    Tag(
                        repository_id=artifact.repository_id,
                        artifact=artifact,
                        name=f"v{i}.{t}",
                        push_time=now,
                    )
                    for i, artifact in enumerate(artifacts)
                    for t in range(TAGS)
                ),
                batch_size=5000,
            )
            ArtifactLabel.objects.bulk_create(
                (ArtifactLabel(artifact=artifact, label=label) for artifact in artifacts),
                batch_size=5000,
            )
            Project.objects.filter(pk=project.pk).update(
                storage_used=services.storage_usage(project)
            )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def count_queries(paths: list[str], authorization: str) -> str:
    """Python for run_django: SQL queries per request, measured with Django's test client."""
    return f"""
import json
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client(HTTP_AUTHORIZATION={authorization!r})
counts = {{}}
for path in {paths!r}:
    client.get(path)
    with CaptureQueriesContext(connection) as context:
        response = client.get(path)
    assert response.status_code == 200, response.content[:300]
    counts[path] = len(context)
print(json.dumps(counts))
"""


def _basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def run() -> None:
    with backing_services() as env:
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        run_django(env, "from benchmarks.bench_registry import seed; seed()")
        admin = _basic("admin", ADMIN_PASSWORD)
        member = _basic("user007", USER_PASSWORD)
        endpoints = [
            ("projects (admin)", "/api/v2.0/projects?page_size=100", admin),
            ("projects (member)", "/api/v2.0/projects?page_size=100", member),
            ("all repositories", "/api/v2.0/repositories?page_size=100", admin),
            (
                "project repositories",
                "/api/v2.0/projects/project042/repositories?page_size=100",
                admin,
            ),
            (
                "artifacts + tags + labels",
                "/api/v2.0/projects/project042/repositories/repo042/artifacts"
                "?page_size=100&with_tag=true&with_label=true",
                admin,
            ),
        ]
        queries = {}
        for _, path, authorization in endpoints:
            output = run_django(env, count_queries([path], authorization))
            queries.update(json.loads(output.strip().splitlines()[-1]))
        rows = []
        with web_server(env) as base:
            for name, path, authorization in endpoints:
                for concurrency in (1, 8):
                    stats = load(
                        base + path,
                        200 if concurrency == 1 else 400,
                        concurrency,
                        headers={"Authorization": authorization},
                    )
                    rows.append({"endpoint": name, "queries": queries[path], **stats})
        print_table(
            f"registry listings, perf 'small' ({PROJECTS}x{REPOSITORIES}x{ARTIFACTS}x{TAGS}), ms",
            rows,
        )
