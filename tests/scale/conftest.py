import signal

import pytest

from tests.scale.cluster import (
    Node,
    default_database,
    deployment_env,
    deployment_stores,
    release,
    start_nodes,
)


@pytest.fixture(scope="module")
def cluster(django_db_blocker, tmp_path_factory):
    """Nodes A and B, started once for the module on a database of their own; the test
    process reads and writes it directly too (committed at once, as the nodes see it)."""
    directory = tmp_path_factory.mktemp("scale")
    shared = directory / "shared"
    shared.mkdir()
    with deployment_stores() as (database_url, redis_url):
        env = deployment_env(database_url, redis_url, shared)
        release(env, directory)
        nodes = [Node(name, directory / name, env) for name in ("node-a", "node-b")]
        try:
            start_nodes(nodes)
            with django_db_blocker.unblock(), default_database(database_url):
                yield nodes
        finally:
            for node in nodes:
                # Stopped cleanly: beat gives its lease back.
                node.kill(signal.SIGTERM)


@pytest.fixture
def nodes(cluster):
    """Both nodes running (a test that killed one gets it back here)."""
    stopped = [node for node in cluster if not node.running()]
    if stopped:
        start_nodes(stopped)
    return cluster
