"""`/v2/` routes of the OCI Distribution Specification v1.1 and the token service.

Plain Django views: request bodies are read from the WSGI input in chunks and blobs are
sent with FileResponse/StreamingHttpResponse, so memory stays flat whatever the size.
"""

import json
import logging
import re

from django.core.exceptions import SuspiciousOperation
from django.http import FileResponse, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from registry.distribution import (
    auth,
    blobs,
    digests,
    listing,
    manifest_documents,
    manifest_reads,
    manifests,
    ranges,
    socket_body,
    storage,
    token,
)
from registry.distribution.errors import (
    DistributionError,
    NameInvalid,
    RouteUnknown,
    SizeInvalid,
    TooManyParameters,
    Unsupported,
    error_response,
)

logger = logging.getLogger("registry.distribution")

NAME_COMPONENT = r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*"
# Harbor names are `<project>/<repo...>`: at least two components.
REPOSITORY_NAME = re.compile(rf"^{NAME_COMPONENT}(?:/{NAME_COMPONENT})+\Z")
API_VERSION_HEADER = ("Docker-Distribution-API-Version", "registry/2.0")


def body_length(request) -> int | None:
    """Declared body length; None for a chunked body (read to its end)."""
    declared = request.META.get("CONTENT_LENGTH", "")
    if declared:
        try:
            return int(declared)
        except ValueError as exc:
            raise SizeInvalid("invalid Content-Length") from exc
    if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        return None
    return 0


def body_stream(request, length: int | None):
    # Django's own stream stops at Content-Length; a chunked body is de-chunked by the server.
    return request.META["wsgi.input"] if length is None else request


def blob_body(request, length: int | None):
    """The body of a blob upload: see socket_body (its chunks are only valid until read on)."""
    fast = socket_body.take_over(request, length, storage.CHUNK_SIZE)
    return fast if fast is not None else body_stream(request, length)


@method_decorator(csrf_exempt, name="dispatch")
class DistributionView(View):
    """Authentication, name validation and the error format for every `/v2/` route."""

    def dispatch(self, request, *args, **kwargs):
        try:
            name = kwargs.get("name")
            if name is not None and (len(name) > 255 or not REPOSITORY_NAME.match(name)):
                raise NameInvalid(detail={"name": name})
            self.caller = auth.identify(request)
            response = super().dispatch(request, *args, **kwargs)
        except DistributionError as error:
            response = error_response(error)
        except SuspiciousOperation:
            # Django refuses to read the query (more parameters than it parses).
            response = error_response(TooManyParameters())
        except Exception:
            logger.exception("unhandled error in %s %s", request.method, request.path)
            response = error_response(DistributionError())
        response[API_VERSION_HEADER[0]] = API_VERSION_HEADER[1]
        return response

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise Unsupported(f"method {request.method} is not allowed here")


class BaseView(DistributionView):
    """`GET /v2/`: 200 for a signed-in caller, else the challenge clients log in from."""

    def get(self, request):
        if not self.caller.authenticated:
            raise auth.refuse(self.caller)
        return JsonResponse({})


class CatalogView(DistributionView):
    def get(self, request):
        if not self.caller.may_list_catalog():
            raise auth.refuse(self.caller, "registry:catalog:*")
        page = listing.catalog(request.GET.get("n"), request.GET.get("last", ""))
        return listing.page_response(request, {"repositories": page.items}, page)


class BlobView(DistributionView):
    def head(self, request, name, digest):
        auth.require(self.caller, name, "pull")
        blob = blobs.linked_blob(name, digest)
        response = HttpResponse(content_type="application/octet-stream")
        response["Content-Length"] = str(blob.size)
        response["Docker-Content-Digest"] = blob.digest
        response["Accept-Ranges"] = "bytes"
        return response

    def get(self, request, name, digest):
        auth.require(self.caller, name, "pull")
        blob = blobs.linked_blob(name, digest)
        redirect = storage.redirect_url(blob.object_name)
        if redirect is not None:
            # The client fetches the bytes (Range included) from the bucket itself.
            response = HttpResponse(status=307)
            response["Location"] = redirect
            response["Docker-Content-Digest"] = blob.digest
            return response
        byte_range = request.headers.get("Range", "")
        if byte_range:
            try:
                wanted = ranges.wanted_range(byte_range, blob.size)
            except ranges.Unsatisfiable as refusal:
                return ranges.refused(refusal, blob.size, blob.digest)
            if wanted is not None:
                return self._partial(blob, *wanted)
        content = blobs.open_content(blob)
        if storage.object_store() is None:
            # A local file: sent with sendfile where the server offers it.
            response = FileResponse(content)
        else:
            response = StreamingHttpResponse(storage.iter_range(content, blob.size))
        response["Content-Type"] = "application/octet-stream"
        response["Content-Length"] = str(blob.size)
        if response.has_header("Content-Disposition"):
            del response["Content-Disposition"]
        response["Docker-Content-Digest"] = blob.digest
        response["Accept-Ranges"] = "bytes"
        return response

    def _partial(self, blob, start: int, length: int):
        # A suffix of 0 bytes is an empty range, as the registry answers it (no read).
        body = storage.iter_range(blobs.open_content(blob, start, length), length) if length else ()
        response = StreamingHttpResponse(body, status=206, content_type="application/octet-stream")
        response["Content-Length"] = str(length)
        response["Content-Range"] = f"bytes {start}-{start + length - 1}/{blob.size}"
        response["Docker-Content-Digest"] = blob.digest
        response["Accept-Ranges"] = "bytes"
        return response

    def delete(self, request, name, digest):
        auth.require(self.caller, name, "delete")
        blobs.unlink(name, digest)
        response = HttpResponse(status=202)
        response["Content-Length"] = "0"
        return response


def blob_created(name: str, digest: str) -> HttpResponse:
    response = HttpResponse(status=201)
    response["Location"] = f"/v2/{name}/blobs/{digest}"
    response["Docker-Content-Digest"] = digest
    response["Content-Length"] = "0"
    return response


def upload_accepted(upload, status: int = 202) -> HttpResponse:
    response = HttpResponse(status=status)
    for header, value in blobs.upload_headers(upload).items():
        response[header] = value
    response["Content-Length"] = "0"
    return response


class UploadStartView(DistributionView):
    """POST: open a session, upload in one request (`?digest=`), or mount (`?mount=&from=`)."""

    def post(self, request, name):
        auth.require(self.caller, name, "push")
        mount_digest = request.GET.get("mount")
        source = request.GET.get("from")
        if mount_digest and source and self.caller.may(source, "pull"):
            blob = blobs.mountable(source, mount_digest)
            if blob is not None:
                blobs.mount(name, blob)
                return blob_created(name, blob.digest)
        digest = request.GET.get("digest")
        if not digest:
            return upload_accepted(blobs.start_upload(name))
        length = body_length(request)
        digests.parse(digest)
        manifests.charge_blob(name, digest, length or 0)
        upload = blobs.start_upload(name)
        blobs.finish_upload(upload, digest, blob_body(request, length), length)
        return blob_created(name, digest)


class UploadView(DistributionView):
    """One upload session: status, chunks, completion, cancel."""

    def get(self, request, name, upload_id):
        auth.require(self.caller, name, "push")
        return upload_accepted(blobs.get_upload(name, upload_id), status=204)

    def patch(self, request, name, upload_id):
        auth.require(self.caller, name, "push")
        upload = blobs.get_upload(name, upload_id)
        length = body_length(request)
        blobs.receive_chunk(
            upload,
            blob_body(request, length),
            length,
            request.headers.get("Content-Range", ""),
        )
        return upload_accepted(upload)

    def put(self, request, name, upload_id):
        auth.require(self.caller, name, "push")
        upload = blobs.get_upload(name, upload_id)
        digest = request.GET.get("digest", "")
        digests.parse(digest)
        length = body_length(request)
        manifests.charge_blob(name, digest, upload.offset + (length or 0))
        blobs.finish_upload(upload, digest, blob_body(request, length), length)
        return blob_created(name, digest)

    def delete(self, request, name, upload_id):
        auth.require(self.caller, name, "push")
        blobs.cancel(blobs.get_upload(name, upload_id))
        response = HttpResponse(status=204)
        return response


class ManifestView(DistributionView):
    def get(self, request, name, reference):
        auth.require(self.caller, name, "pull")
        found = manifest_reads.resolve(name, reference)
        content = manifest_reads.content(found)
        manifest_reads.record_pull(found, self.caller.username)
        return self._manifest_response(found, content, len(content))

    def head(self, request, name, reference):
        auth.require(self.caller, name, "pull")
        found = manifest_reads.resolve(name, reference)
        return self._manifest_response(found, b"", manifest_reads.size(found))

    def _manifest_response(self, found, content: bytes, size: int) -> HttpResponse:
        response = HttpResponse(content, content_type=found.media_type)
        response["Content-Length"] = str(size)
        response["Docker-Content-Digest"] = found.digest
        return response

    def put(self, request, name, reference):
        auth.require(self.caller, name, "push")
        length = body_length(request)
        content = manifest_documents.read_manifest_body(body_stream(request, length), length)
        pushed = manifests.push(name, reference, content, request.headers.get("Content-Type", ""))
        manifests.record_push(name, reference, pushed, self.caller.username)
        response = HttpResponse(status=201)
        response["Location"] = f"/v2/{name}/manifests/{pushed.digest}"
        response["Docker-Content-Digest"] = pushed.digest
        response["Content-Length"] = "0"
        if pushed.subject:
            response["OCI-Subject"] = pushed.subject
        return response

    def delete(self, request, name, reference):
        auth.require(self.caller, name, "delete")
        manifests.delete(name, reference, self.caller.username)
        response = HttpResponse(status=202)
        response["Content-Length"] = "0"
        return response


class TagsView(DistributionView):
    def get(self, request, name):
        auth.require(self.caller, name, "pull")
        page = listing.tags(name, request.GET.get("n"), request.GET.get("last", ""))
        return listing.page_response(request, {"name": name, "tags": page.items}, page)


class ReferrersView(DistributionView):
    def get(self, request, name, digest):
        auth.require(self.caller, name, "pull")
        artifact_type = request.GET.get("artifactType", "")
        index = manifests.referrers(name, digest, artifact_type)
        response = HttpResponse(
            json.dumps(index), content_type="application/vnd.oci.image.index.v1+json"
        )
        if artifact_type:
            response["OCI-Filters-Applied"] = "artifactType"
        return response


class UnknownView(DistributionView):
    def dispatch(self, request, *args, **kwargs):
        response = error_response(RouteUnknown(f"path {request.path} was not found"))
        response[API_VERSION_HEADER[0]] = API_VERSION_HEADER[1]
        return response


@method_decorator(csrf_exempt, name="dispatch")
class TokenView(View):
    """`GET /service/token`: a Bearer token granting what the caller's roles allow.

    Basic credentials are optional (anonymous gets public pulls); wrong ones are 401.
    Any other method is 405, as Harbor's token service has only GET: containerd POSTs its
    credentials first (OAuth's password grant) and falls back to GET on a 405, not on the
    403 a CSRF check would give.
    """

    def http_method_not_allowed(self, request, *args, **kwargs):
        error = Unsupported(
            f"method {request.method} is not allowed here", headers={"Allow": "GET, HEAD"}
        )
        return error_response(error)

    def get(self, request):
        try:
            caller = auth.identify(request)
        except DistributionError as error:
            return error_response(error)
        if caller.scheme == "basic" and not caller.user.is_authenticated:
            return error_response(auth.Unauthorized("invalid credentials"))
        try:
            scopes = token.parse_scopes(request.GET.getlist("scope"))
        except SuspiciousOperation:
            return error_response(TooManyParameters())
        granted = auth.grant(caller.user, scopes)
        subject = caller.user.get_username() if caller.user.is_authenticated else ""
        return JsonResponse(token.issue(subject, granted))
