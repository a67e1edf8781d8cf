"""List query parameters declared once: their OpenAPI description, their parsing, their
effect on the queryset.

A `Param` gives a parameter's schema type, `parse(name, raw)` (raw text -> value; it raises
the service's own error, so bad input keeps each service's status and body; None means no
value), the `default` when the parameter is absent or has no value, `apply(queryset,
value)` when it filters or orders, and `to` when the caller knows the value under another
name (a keyword of a domain options object).
`QueryFilters` is an endpoint's set of parameters. Parameters are read in declaration
order, so the first bad one is the one reported.
"""

from collections.abc import Callable
from dataclasses import dataclass

from drf_spectacular.utils import OpenApiParameter


def text(name: str, raw: str) -> str:
    return raw


@dataclass(frozen=True)
class Param:
    kind: object = str
    parse: Callable[[str, str], object] = text
    default: object = None
    apply: Callable | None = None
    to: str | None = None
    description: str = ""


class QueryFilters:
    def __init__(self, params: dict[str, Param]):
        self.params = params

    @property
    def parameters(self) -> list[OpenApiParameter]:
        """The OpenAPI query parameters, for `extend_schema(parameters=...)`."""
        return [
            OpenApiParameter(
                name, param.kind, OpenApiParameter.QUERY, description=param.description
            )
            for name, param in self.params.items()
        ]

    def get(self, query_params, name: str):
        """One parameter's value, its default when absent."""
        param = self.params[name]
        raw = query_params.get(name)
        value = None if raw is None else param.parse(name, raw)
        return param.default if value is None else value

    def parse(self, query_params, names=None) -> dict:
        """{name (or `to`): value} for every parameter (or those `names`)."""
        return {
            param.to or name: self.get(query_params, name)
            for name, param in self.params.items()
            if names is None or name in names
        }

    def filter(self, queryset, query_params):
        """`queryset` through the `apply` of every parameter with a value (given, or its
        default), in declaration order."""
        for name, param in self.params.items():
            if param.apply is not None:
                value = self.get(query_params, name)
                if value is not None:
                    queryset = param.apply(queryset, value)
        return queryset

    def parse_all(self, query_params, error: type[Exception]) -> tuple[dict, list]:
        """As `parse`, but every parameter is read: the `error`s bad ones raise come back,
        in declaration order, beside the other values (None for the bad ones), for a
        service that reports every bad parameter at once."""
        values, errors = {}, []
        for name, param in self.params.items():
            try:
                values[param.to or name] = self.get(query_params, name)
            except error as bad:
                values[param.to or name] = None
                errors.append(bad)
        return values, errors

    def apply(self, queryset, values: dict):
        """`queryset` through the `apply` of every parameter whose value in `values` (as
        `parse` gives them) is not None, in declaration order."""
        for name, param in self.params.items():
            value = values.get(param.to or name)
            if param.apply is not None and value is not None:
                queryset = param.apply(queryset, value)
        return queryset
