"""A throwaway S3-compatible server on loopback: moto's standalone server (a real HTTP S3
endpoint, objects kept in its memory and temporary files), one per test session.

`s3_settings_env` gives the server settings (S3_*) for a bucket of it: the object storage
tests and any harness that starts server processes on S3 use it.
"""

import os
import sys
import uuid

from tests.services.servers import Services, free_port, wait_for_port

ACCESS_KEY = "test-access-key"
SECRET_KEY = "test-secret-key"
REGION = "us-east-1"


class S3Server:
    def __init__(self, services: Services):
        self.root = services.tempdir("test-s3-")
        self.port = free_port()
        self.log = self.root / "moto.log"
        # `moto.server` is moto's own server entry point (the `moto[server]` extra).
        self.process = services.spawn(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            self.log,
        )

    def ready(self) -> dict:
        try:
            wait_for_port(self.port, self.process, self.log, seconds=60)
        except RuntimeError as error:
            raise RuntimeError(
                "the S3 test server (moto's server, from the dev extra `moto[server]`) "
                f"did not start: {error}"
            ) from error
        return {
            "TEST_S3_ENDPOINT_URL": f"http://127.0.0.1:{self.port}",
            "TEST_S3_ACCESS_KEY_ID": ACCESS_KEY,
            "TEST_S3_SECRET_ACCESS_KEY": SECRET_KEY,
            "TEST_S3_REGION": REGION,
        }


def s3_client(environ=None):
    import boto3

    environ = os.environ if environ is None else environ
    return boto3.client(
        "s3",
        endpoint_url=environ["TEST_S3_ENDPOINT_URL"],
        aws_access_key_id=environ["TEST_S3_ACCESS_KEY_ID"],
        aws_secret_access_key=environ["TEST_S3_SECRET_ACCESS_KEY"],
        region_name=environ["TEST_S3_REGION"],
    )


def new_bucket(environ=None) -> str:
    """A fresh empty bucket on the test server; its name."""
    name = f"test-{uuid.uuid4().hex[:20]}"
    s3_client(environ).create_bucket(Bucket=name)
    return name


def s3_settings_env(bucket: str | None = None, environ=None) -> dict:
    """The server's S3_* settings for `bucket` (a new one when None) of the test server."""
    environ = os.environ if environ is None else environ
    return {
        "S3_BUCKET": bucket or new_bucket(environ),
        "S3_ENDPOINT_URL": environ["TEST_S3_ENDPOINT_URL"],
        "S3_ACCESS_KEY_ID": environ["TEST_S3_ACCESS_KEY_ID"],
        "S3_SECRET_ACCESS_KEY": environ["TEST_S3_SECRET_ACCESS_KEY"],
        "S3_REGION": environ["TEST_S3_REGION"],
    }
