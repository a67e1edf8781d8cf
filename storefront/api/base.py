"""Tiendanube v1 wire conventions, set once for every store API view.

Order of checks on each request: bearer token of this store (401), rate-limit bucket
(429), User-Agent (400), suspension of the store or of the app's installation (402),
scope (403), Content-Type of a body (415); then the view. Every response carries
X-Main-Language, and every response to an identified app the X-Rate-Limit-* headers.
"""

import re

import orjson
from rest_framework.exceptions import NotFound, UnsupportedMediaType
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from config.limits import INT64_MAX
from config.plain_json import PlainJSONRenderer, mark_plain
from config.views import ServiceViewMixin, UnknownPathView
from storefront import ratelimit
from storefront.api import rows
from storefront.api.authentication import BearerTokenAuthentication
from storefront.api.exceptions import (
    MissingUserAgent,
    PaymentRequired,
    TooManyRequests,
    tiendanube_exception_handler,
)
from storefront.api.pagination import TiendanubePagination
from storefront.api.permissions import InstalledInThisStore, check_scope
from storefront.api.product_json import Encoded
from storefront.api.schema import TiendanubeAutoSchema
from storefront.api.serializers.records import context_of
from storefront.models import Installation, Store

# U+2028 and U+2029 in UTF-8.
SEPARATOR = re.compile(b"\xe2\x80[\xa8\xa9]")


def _escaped(found: re.Match) -> bytes:
    return b"\\u2028" if found[0] == b"\xe2\x80\xa8" else b"\\u2029"


class StoreRenderer(PlainJSONRenderer):
    """Also writes a body the database encoded (`product_json.Encoded`), U+2028 and
    U+2029 escaped as everywhere; asked for indented, it takes DRF's way as any body."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, Encoded):
            body = data.body
            if self.get_indent(accepted_media_type, renderer_context or {}) is None:
                # As `PlainJSONRenderer` does for orjson's output. Product text often holds
                # that lead byte (dashes, quotes, ellipses): one regular expression pass
                # finds both characters where two replaces scanned a 400 kB page twice.
                if b"\xe2" not in body or SEPARATOR.search(body) is None:
                    return body
                return SEPARATOR.sub(_escaped, body)
            data = orjson.loads(body)
        return super().render(data, accepted_media_type, renderer_context)


# Ids in paths are bigint columns; larger numbers cannot name anything.


class TiendanubeViewMixin(ServiceViewMixin):
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [InstalledInThisStore]
    pagination_class = TiendanubePagination
    renderer_classes = [StoreRenderer]
    exception_handler = staticmethod(tiendanube_exception_handler)
    schema = TiendanubeAutoSchema()
    # Tiendanube has no OPTIONS answers; DRF's metadata would 500 on these views.
    metadata_class = None
    # Scope pair guarding the resource ("products" -> read_products/write_products).
    resource_scope: str | None = None

    def initial(self, request, *args, **kwargs):
        if any(isinstance(value, int) and value > INT64_MAX for value in kwargs.values()):
            raise NotFound("No such resource")
        super().initial(request, *args, **kwargs)
        installation = request.auth
        if not isinstance(installation, Installation):
            return  # a view open to anyone (none of the store API's)
        self.store = installation.store
        self.bucket = ratelimit.take(installation.store_id, installation.app_id)
        if not self.bucket.allowed:
            raise TooManyRequests()
        if not request.headers.get("User-Agent", "").strip():
            raise MissingUserAgent()
        if self.store.suspended_at or installation.suspended_at:
            raise PaymentRequired()
        check_scope(request, self.resource_scope)
        if _has_body(request) and not request.content_type:
            raise UnsupportedMediaType("", "Content-Type application/json is required")

    def page(self, queryset, record):
        """A page of `queryset`'s `record`s, read as rows."""
        page = self.paginate_queryset(rows.Rows(rows.values(queryset, record)))
        context = context_of(self.store)
        return mark_plain(
            self.get_paginated_response([record.render(row, context) for row in page])
        )

    def answer(self, record, instance, status: int = 200):
        """One object from its model instance."""
        row = rows.instance_row(instance)
        return mark_plain(Response(record.render(row, context_of(self.store)), status))

    def answers(self, record, instances):
        context = context_of(self.store)
        rendered = [record.render(rows.instance_row(one), context) for one in instances]
        return mark_plain(Response(rendered))

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["store"] = getattr(self, "store", None)
        return context

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        main_language = self._main_language(kwargs.get("store_id"))
        if main_language:
            response["X-Main-Language"] = main_language
        bucket = getattr(self, "bucket", None)
        if bucket is not None:
            for name, value in bucket.headers.items():
                response[name] = value
        if 200 <= response.status_code < 300 and "fields" in request.query_params:
            response.data = trim_fields(response.data, request.query_params["fields"])
        if request.method == "HEAD":
            # HEAD answers GET's status and headers, Content-Type and Content-Length
            # included, and no body (RFC 9110 section 9.3.2): GET's body is rendered for
            # its length, then dropped.
            response.add_post_render_callback(_drop_body)
        return response

    def _main_language(self, store_id) -> str | None:
        store = getattr(self, "store", None)
        if store is not None:
            return store.main_language
        if not isinstance(store_id, int) or store_id > INT64_MAX:
            return None
        return Store.objects.filter(pk=store_id).values_list("main_language", flat=True).first()


def _drop_body(response) -> None:
    response["Content-Length"] = str(len(response.content))
    response.content = b""


def _has_body(request) -> bool:
    meta = request.META
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return length > 0 or "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()


def trim_fields(data, fields: str):
    """Keep only the comma-separated `fields` of an object or of each object in a list."""
    wanted = {name.strip() for name in fields.split(",") if name.strip()}
    if not wanted:
        return data
    if isinstance(data, list):
        return [trim_fields(item, fields) for item in data]
    if isinstance(data, dict):
        return {key: value for key, value in data.items() if key in wanted}
    return data


class TiendanubeUnknownPathView(TiendanubeViewMixin, UnknownPathView):
    not_found_message = "Not Found"
    authentication_classes = []
    permission_classes = [AllowAny]

    def initial(self, request, *args, **kwargs):
        UnknownPathView.initial(self, request, *args, **kwargs)
