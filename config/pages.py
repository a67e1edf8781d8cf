"""The front door at `/` and the index of the API documentation at `/api/docs/`."""

from django.conf import settings
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from config.docs import SERVICES

DESCRIPTIONS = {
    "registry": "Container registry: Harbor v2.0 management API and the OCI distribution "
    "API at /v2/ (docker, skopeo, oras, harborapi).",
    "codehost": "Code hosting: Gitea v1 API and git smart HTTP at /{owner}/{repo}.git "
    "(git, py-gitea, giteapy).",
    "storefront": "Online stores: Tiendanube v1 API at /v1/{store_id}/, OAuth app installs, "
    "webhooks and store pages at /stores/{store_id}/.",
}


def _services():
    base = settings.EXTERNAL_URL
    return [
        {
            "name": name,
            "title": title,
            "description": DESCRIPTIONS[name],
            "base_url": base + prefix,
            "docs": reverse(f"{name}-docs"),
            "schema": reverse(f"{name}-schema"),
        }
        for name, (title, _version, prefix) in SERVICES.items()
    ]


@require_safe
def front_door(request):
    base = settings.EXTERNAL_URL
    host = base.split("://", 1)[-1]
    return render(
        request,
        "front_door.html",
        {"services": _services(), "base": base, "host": host},
    )


@require_safe
def docs_index(request):
    return render(request, "api_docs_index.html", {"services": _services()})
