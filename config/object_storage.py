"""The S3-compatible object storage behind the `registry` (blobs) and `default` (store
images) storages, when `S3_BUCKET` is set; one function so that the settings and the test
setup build the same configuration."""

S3_BACKEND = "storages.backends.s3.S3Storage"


def s3_storages(
    bucket: str,
    endpoint_url: str = "",
    access_key: str = "",
    secret_key: str = "",
    region: str = "",
) -> dict:
    """STORAGES entries for `registry` and `default`, two prefixes of one bucket."""
    # Imported here: a server without S3_BUCKET never loads botocore.
    from botocore.config import Config

    common = {
        "bucket_name": bucket,
        # Empty: AWS itself (its endpoint from the region); otherwise any S3-compatible
        # service, addressed by path (no per-bucket DNS name needed).
        "endpoint_url": endpoint_url or None,
        "addressing_style": "path" if endpoint_url else None,
        "region_name": region or None,
        # Empty keys: boto3's own chain (instance role, AWS_* variables, ~/.aws).
        "access_key": access_key or None,
        "secret_key": secret_key or None,
        # An opened file spills to disk past this: store images stay out of memory.
        "max_memory_size": 1024 * 1024,
        # Request threads and each one's part in flight share the client's connections.
        "client_config": Config(max_pool_connections=64),
    }
    return {
        # Blobs are content-addressed: writing one again writes the same bytes.
        "registry": {
            "BACKEND": S3_BACKEND,
            "OPTIONS": {**common, "location": "registry", "file_overwrite": True},
        },
        "default": {
            "BACKEND": S3_BACKEND,
            "OPTIONS": {**common, "location": "media", "file_overwrite": False},
        },
    }
