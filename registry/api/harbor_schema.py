"""Harbor's published schema (`harbor-v2.0-swagger.yaml` beside this module: goharbor/harbor's
`api/v2.0/swagger.yaml` at v2.16.0, commit c50c7ddd6e, copied verbatim, Apache-2.0) and
the tables drawn from it once per process: its operations by path template, the ones our
routes serve, and the patterns that find an operation from a request path.
"""

import re
import threading
from functools import cache
from pathlib import Path

import yaml

SCHEMA_FILE = Path(__file__).with_name("harbor-v2.0-swagger.yaml")
API_PREFIX = "api/v2.0/"

_FIRST_USE = threading.RLock()


def once(function):
    """`function()` computed once per process. A plain `cache` let each of a web process's
    threads parse the schema on their first concurrent requests (8 cold requests: 6 s of
    CPU instead of 0.5)."""
    computed = []

    def call():
        if not computed:
            with _FIRST_USE:  # reentrant: served() reads operations() while computing
                if not computed:
                    computed.append(function())
        return computed[0]

    return call


@once
def harbor_schema() -> dict:
    with SCHEMA_FILE.open("rb") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def resolve(node: dict) -> dict:
    while "$ref" in node:
        target = harbor_schema()
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def model_name(node: dict) -> str | None:
    ref = node.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref.startswith("#/definitions/") else None


@cache
def template(route: str) -> str:
    """Harbor's path template for one of our routes, with or without the API prefix:
    `api/v2.0/users/<id:user_id>` and `^projects/(?P<project_name_or_id>[^/]+)/metadatas/?$`
    become `users/{user_id}` and `projects/{project_name_or_id}/metadatas`."""
    route = re.sub(r"\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)", r"{\1}", route)
    route = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
    route = route.replace("^", "").replace("$", "").removeprefix(API_PREFIX)
    return route.removesuffix("/?").strip("/")


@once
def operations() -> dict[str, dict]:
    """Harbor's operations keyed by path template (no slashes at the ends), then method."""
    return {
        path.strip("/"): {method: op for method, op in item.items() if method != "parameters"}
        for path, item in harbor_schema()["paths"].items()
    }


def operation(route: str, method: str) -> dict | None:
    methods = operations().get(template(route), {})
    method = method.lower()
    return methods.get(method) or (methods.get("get") if method == "head" else None)


@once
def served() -> dict[str, frozenset[str]]:
    """The Harbor path templates our registry API routes serve, with the methods served."""
    from registry.api import urls  # the routes import the views, which import this module

    def routes(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from routes(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                view = getattr(pattern.callback, "view_class", None)
                yield prefix + str(pattern.pattern), view

    found = {}
    for route, view in routes(urls.urlpatterns):
        known = template(route)
        if known in operations() and view is not None:
            methods = {m for m in operations()[known] if hasattr(view, m)}
            found[known] = frozenset(methods | ({"head"} if hasattr(view, "get") else set()))
    return found


def served_templates() -> frozenset[str]:
    return frozenset(served())


def path_operation(path: str, method: str) -> tuple[dict, dict] | None:
    """The served Harbor operation whose template `path` fits with any segment in a
    parameter's place (our routes only take int64-looking ids), and the segments."""
    for known, pattern in segment_patterns():
        match = pattern.fullmatch(path.strip("/"))
        found = match and method.lower() in served()[known] and operation(known, method)
        if found:
            return found, match.groupdict()
    return None


@once
def segment_patterns() -> tuple:
    return tuple(
        (known, re.compile(re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(known))))
        for known in sorted(served_templates())
    )
