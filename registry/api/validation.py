"""Request validation from Harbor's published schema, as go-swagger does it before any
Harbor handler runs.

The schema is Harbor's own (`registry/api/harbor_schema.py` loads it). A request is
matched to its Harbor operation by the route it resolved to (our routes use Harbor's path
templates and parameter names), so every operation we serve is checked against the
constraints Harbor declares for it: parameter types (int64 range included), `required`,
`maximum`/`minimum`, `maxLength`/`minLength`, `enum`, `pattern`,
and the body's JSON types and property constraints.

A failure is 422 `UNPROCESSABLE_ENTITY` with go-openapi's text: "validation failure list:"
then one line per failing parameter, in the schema's order. A body adds one more
"validation failure list:" level per model, as go-swagger's generated `Validate` methods
nest their composite errors. Rules Harbor's handlers check (project name syntax, role ids,
e-mail...) stay with our services, which answer 400 as those handlers do.
"""

import re

from rest_framework.exceptions import ParseError

from config.limits import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, go_int
from config.parsers import UnstorableJSON
from registry.api.harbor_schema import model_name, resolve
from registry.errors import UnprocessableEntity

LIST_HEADER = "validation failure list"

# swag.ConvertBool, which go-swagger uses for boolean parameters.
CONVERT_BOOL_TRUE = ("true", "1", "yes", "ok", "y", "on", "selected", "checked", "enabled")
CONVERT_BOOL_FALSE = ("false", "0", "no", "n", "off", "deselected", "unchecked", "disabled")

# strfmt.DateTime's layouts: RFC 3339, fractions and the zone optional.
DATE_TIME = re.compile(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:?\d\d)?")

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (INT32_MIN, INT32_MAX),
    "int64": (INT64_MIN, INT64_MAX),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}


class Failures(list):
    """go-openapi's CompositeError: messages and nested composites, printed one a line."""

    def render(self) -> str:
        lines = [f"{LIST_HEADER}:"]
        for item in self:
            lines.append(item.render() if isinstance(item, Failures) else item)
        return "\n".join(lines)


# --- parameters -------------------------------------------------------------------------------


def go_type(spec: dict) -> str:
    """The Go type go-swagger generates for a schema (named in its type errors)."""
    name = model_name(spec)
    spec = resolve(spec)
    kind, fmt = spec.get("type"), spec.get("format")
    if kind == "integer":
        return fmt if fmt in INT_RANGES else "int64"
    if kind == "number":
        return "float32" if fmt == "float" else "float64"
    if kind == "boolean":
        return "bool"
    if kind == "string":
        return "strfmt.DateTime" if fmt == "date-time" else "string"
    if kind == "array":
        item = spec.get("items", {})
        return "[]" + ("*" if model_name(item) else "") + go_type(item)
    if name:
        return f"models.{name}"
    extra = spec.get("additionalProperties")
    return f"map[string]{go_type(extra)}" if isinstance(extra, dict) else "interface {}"


def convert(raw: str, spec: dict):
    """`raw` as the parameter's type, or None when it is not of that type."""
    kind = spec.get("type")
    if kind == "boolean":
        word = raw.lower()
        return True if word in CONVERT_BOOL_TRUE else False if word in CONVERT_BOOL_FALSE else None
    if kind == "integer":
        low, high = INT_RANGES[go_type(spec)]
        value = go_int(raw)
        return value if value is not None and low <= value <= high else None
    if kind == "number":
        try:
            return float(raw)
        except ValueError:
            return None
    if spec.get("format") == "date-time" and not DATE_TIME.fullmatch(raw):
        return None
    return raw


def check_value(name: str, where: str, value, spec: dict) -> str | None:
    """go-openapi's validate package on one typed value: its first failing rule."""
    if "enum" in spec and value not in spec["enum"]:
        return f"{name} in {where} should be one of [{' '.join(map(str, spec['enum']))}]"
    if isinstance(value, str):
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            return f"{name} in {where} should be at most {spec['maxLength']} chars long"
        if "minLength" in spec and len(value) < spec["minLength"]:
            return f"{name} in {where} should be at least {spec['minLength']} chars long"
        if "pattern" in spec and not re.search(spec["pattern"], value):
            return f"{name} in {where} should match '{spec['pattern']}'"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if "maximum" in spec:
            exclusive = spec.get("exclusiveMaximum")
            if value > spec["maximum"] or (exclusive and value == spec["maximum"]):
                relation = "less than" if exclusive else "less than or equal to"
                return f"{name} in {where} should be {relation} {spec['maximum']}"
        if "minimum" in spec:
            exclusive = spec.get("exclusiveMinimum")
            if value < spec["minimum"] or (exclusive and value == spec["minimum"]):
                relation = "greater than" if exclusive else "greater than or equal to"
                return f"{name} in {where} should be {relation} {spec['minimum']}"
    return None


def check_parameter(spec: dict, raw: str | None) -> str | None:
    name, where = spec["name"], spec["in"]
    if raw is None or (raw == "" and where != "path"):
        # go-swagger: an absent or empty value passes every rule but `required`.
        return f"{name} in {where} is required" if spec.get("required") else None
    value = convert(raw, spec)
    if value is None:
        return f'{name} in {where} must be of type {go_type(spec)}: "{raw}"'
    return check_value(name, where, value, spec)


# --- bodies -------------------------------------------------------------------------------------

JSON_KINDS = ((bool, "bool"), (str, "string"), (int | float, "number"), (list, "array"))


def json_kind(value) -> str:
    return next((kind for types, kind in JSON_KINDS if isinstance(value, types)), "object")


def unmarshal_error(value, spec: dict, path: list[str], model: str | None) -> str | None:
    """What Go's encoding/json says of the first value whose JSON type does not fit its
    Go field (go-swagger binds the body before validating it)."""
    node = resolve(spec)
    kind = node.get("type", "object" if "properties" in node else None)
    if value is None or kind is None or go_type(spec) == "interface {}":
        # A bare `type: object` is Go's interface{}: any JSON value binds (Schedule's
        # `parameters` values are booleans and numbers).
        return None
    fits = {
        "boolean": isinstance(value, bool),
        "string": isinstance(value, str),
        "integer": isinstance(value, int | float) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }.get(kind, True)
    shown = json_kind(value)
    if fits and kind == "integer":
        low, high = INT_RANGES[go_type(node)]
        if not (isinstance(value, int) and low <= value <= high):
            fits, shown = False, f"number {value}"
    if fits and node.get("format") == "date-time" and not DATE_TIME.fullmatch(value):
        # strfmt.DateTime's own error (Go names the layout and the element it tripped on).
        return f'parsing time "{value}": not an RFC 3339 date-time'
    if not fits:
        where = f"Go struct field {model}.{'.'.join(path)}" if path and model else "Go value"
        return f"json: cannot unmarshal {shown} into {where} of type {go_type(spec)}"
    inner = model_name(spec) or model
    if kind == "array":
        for item in value:
            found = unmarshal_error(item, node.get("items", {}), path, inner)
            if found:
                return found
    elif kind == "object":
        properties = node.get("properties", {})
        extra = node.get("additionalProperties")
        for key, item in value.items():
            child = properties.get(key, extra if isinstance(extra, dict) else None)
            found = child and unmarshal_error(item, child, [*path, key], inner)
            if found:
                return found
    return None


def model_failures(value: dict, spec: dict, prefix: str) -> Failures:
    """A model's `Validate`: its properties in name order; nested models nest a level."""
    failures = Failures()
    node = resolve(spec)
    required = set(node.get("required", ()))
    for key in sorted(node.get("properties", {})):
        child = node["properties"][key]
        name = f"{prefix}{key}"
        item = value.get(key)
        child_node = resolve(child)
        # A required string that is not nullable is a Go string: empty, it is missing
        # (go-swagger's RequiredString; NewTag's name).
        empty = item == "" and child_node.get("x-nullable") is False
        if item is None or (empty and key in required):
            if key in required:
                failures.append(f"{name} in body is required")
            continue
        if "properties" in child_node and isinstance(item, dict):
            nested = model_failures(item, child, f"{name}.")
            if nested:
                failures.append(nested)
        elif child_node.get("type") == "array" and isinstance(item, list):
            for index, element in enumerate(item):
                items = child_node.get("items", {})
                if "properties" in resolve(items) and isinstance(element, dict):
                    nested = model_failures(element, items, f"{name}.{index}.")
                    if nested:
                        failures.append(nested)
        else:
            problem = check_value(name, "body", item, child_node)
            if problem:
                failures.append(problem)
    return failures


def body_failure(spec: dict, request) -> str | Failures | None:
    name, schema = spec["name"], spec.get("schema", {})
    meta = request.META
    sent = int(meta.get("CONTENT_LENGTH") or 0) > 0 or "chunked" in meta.get(
        "HTTP_TRANSFER_ENCODING", ""
    )
    if not sent:
        return f"{name} in body is required" if spec.get("required") else None
    try:
        data = request.data
    except UnstorableJSON:
        raise  # valid JSON to go-swagger; our own rule answers it (400)
    except ParseError as error:
        return f'parsing {name} body from "" failed, because {error.detail}'
    problem = unmarshal_error(data, schema, [], model_name(schema))
    if problem:
        return f'parsing {name} body from "" failed, because {problem}'
    if isinstance(data, dict) and "properties" in resolve(schema):
        return model_failures(data, schema, "") or None
    return None


# --- the request ----------------------------------------------------------------------------


def failures(op: dict, request, path_values: dict) -> Failures:
    """Every parameter of `op` checked in the schema's order, as go-swagger binds them."""
    found = Failures()
    for spec in map(resolve, op.get("parameters", ())):
        where = spec["in"]
        if where == "body":
            problem = body_failure(spec, request)
        elif where == "path":
            value = path_values.get(spec["name"])
            problem = check_parameter(spec, None if value is None else str(value))
        elif where == "query":
            problem = check_parameter(spec, request.GET.get(spec["name"]))
        elif where == "header":
            problem = check_parameter(spec, request.headers.get(spec["name"]))
        else:
            problem = None
        if problem:
            found.append(problem)
    return found


def validate(op: dict | None, request, path_values: dict) -> None:
    """Raise Harbor's 422 when the request breaks `op`'s published constraints."""
    if op is None:
        return
    found = failures(op, request, path_values)
    if found:
        raise UnprocessableEntity(found.render())
