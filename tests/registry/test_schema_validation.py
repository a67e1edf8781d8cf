"""422 UNPROCESSABLE_ENTITY for requests that break Harbor's published schema (harbor.md
section 1), generated from `harbor-v2.0-swagger.yaml`: every constraint class of every
operation our routes serve, so an operation added later is covered by the same cases.

Expected messages are spelled here from go-openapi's templates, independently of the
server's code: "<name> in <where> must be of type <go type>: "<raw>"", "... should be
less than or equal to <n>", "... is required", "... should be at most <n> chars long",
and Go's encoding/json text for a body value of the wrong JSON type.
"""

import json
from urllib.parse import urlencode

import pytest
import yaml

from registry.api import harbor_schema, validation

pytestmark = pytest.mark.django_db

SCHEMA = yaml.safe_load(harbor_schema.SCHEMA_FILE.read_text())
PATH_VALUES = {"repository_name": "repo", "reference": "latest", "meta_name": "public"}
INT_TYPES = {"int32": "int32", "int8": "int8", "uint64": "uint64"}
LIST = "validation failure list:\n"


def resolve(node):
    while "$ref" in node:
        _, section, name = node["$ref"].split("/")
        node = SCHEMA[section][name]
    return node


def served():
    """(template, method, Harbor operation) for each method our routes serve."""
    paths = {path.strip("/"): item for path, item in SCHEMA["paths"].items()}
    for path, methods in sorted(harbor_schema.served().items()):
        for method, op in paths[path].items():
            if method in methods:
                yield path, method, op


OPERATIONS = list(served())
OPERATIONS_BY = {(path, method): op for path, method, op in OPERATIONS}


def url(path: str, values: dict | None = None) -> str:
    def fill(name):
        if values and name in values:
            return str(values[name])
        return PATH_VALUES.get(name, "1" if name in INT_PARAMS else "someproject")

    parts = [fill(part[1:-1]) if part.startswith("{") else part for part in path.split("/")]
    return "/api/v2.0/" + "/".join(parts)


INT_PARAMS = {
    resolve(p)["name"]
    for _, _, op in OPERATIONS
    for p in op.get("parameters", [])
    if resolve(p)["in"] == "path" and resolve(p).get("type") == "integer"
}


def go_int(spec) -> str:
    return INT_TYPES.get(spec.get("format"), "int64")


def parameters(kind=None, where=None):
    """(path, method, parameter) of every non-body parameter of the served operations."""
    cases = []
    for path, method, op in OPERATIONS:
        for param in map(resolve, op.get("parameters", [])):
            if param["in"] == "body" or (where and param["in"] != where):
                continue
            if kind is None or param.get("type") == kind:
                cases.append(
                    pytest.param(path, method, param, id=f"{op['operationId']}-{param['name']}")
                )
    return cases


def required(op, where):
    return [
        p for p in map(resolve, op.get("parameters", [])) if p["in"] == where and p.get("required")
    ]


def call(client, method, path, query=None, headers=None, body=None, values=None, complete=True):
    """One request; with `complete`, the operation's other required query parameters and
    body are sent valid, so that the one failure under test is the only one listed."""
    op = OPERATIONS_BY[(path, method)]
    params = {p["name"]: "x" for p in required(op, "query")} if complete else {}
    params.update(query or {})
    if body is None and complete and required(op, "body"):
        body = {}
    return client.generic(
        method.upper(),
        url(path, values) + (f"?{urlencode(params)}" if params else ""),
        json.dumps(body) if body is not None else "",
        content_type="application/json",
        headers=headers or {},
    )


def assert_422(response, message: str, method: str):
    assert response.status_code == 422, (response.status_code, response.content)
    if method != "head":  # a HEAD answer has no body to read
        assert response.json() == {"errors": [{"code": "UNPROCESSABLE_ENTITY", "message": message}]}


def send_parameter(client, path, method, param, raw):
    name, where = param["name"], param["in"]
    if where == "path":
        return call(client, method, path, values={name: raw})
    if where == "query":
        return call(client, method, path, query={name: raw})
    return call(client, method, path, headers={name: raw})


def test_the_served_operations_are_found_in_harbors_schema():
    ids = {op["operationId"] for _, _, op in OPERATIONS}
    assert {"listProjects", "createProject", "headProject", "getUser", "pingLdap"} <= ids
    assert len(ids) >= 59


@pytest.mark.parametrize(("path", "method", "param"), parameters("integer"))
@pytest.mark.parametrize("raw", ["abc", str(2**63), str(-(2**63) - 1)])
def test_integer_parameter_of_the_wrong_type_or_past_int64_is_422(anon, path, method, param, raw):
    if go_int(param) != "int64" and raw != "abc":
        raw = str(2**40)
    response = send_parameter(anon, path, method, param, raw)
    where = param["in"]
    assert_422(
        response,
        f'{LIST}{param["name"]} in {where} must be of type {go_int(param)}: "{raw}"',
        method,
    )


@pytest.mark.parametrize(("path", "method", "param"), parameters("boolean"))
def test_boolean_parameter_of_the_wrong_type_is_422(anon, path, method, param):
    response = send_parameter(anon, path, method, param, "maybe")
    assert_422(
        response, f'{LIST}{param["name"]} in {param["in"]} must be of type bool: "maybe"', method
    )


@pytest.mark.parametrize(
    ("path", "method", "param"),
    [case for case in parameters("integer") if "maximum" in case.values[2]],
)
def test_integer_parameter_over_its_maximum_is_422(anon, path, method, param):
    response = send_parameter(anon, path, method, param, str(param["maximum"] + 1))
    expected = (
        f"{LIST}{param['name']} in {param['in']} should be less than or equal to {param['maximum']}"
    )
    assert_422(response, expected, method)
    assert send_parameter(anon, path, method, param, str(param["maximum"])).status_code != 422


@pytest.mark.parametrize(
    ("path", "method", "param"),
    [case for case in parameters(where="query") if case.values[2].get("required")],
)
def test_missing_required_query_parameter_is_422(anon, path, method, param):
    response = call(anon, method, path, complete=False)
    assert_422(response, f"{LIST}{param['name']} in query is required", method)


def test_several_failures_are_listed_in_the_schemas_order(anon):
    response = anon.get("/api/v2.0/projects?page=x&page_size=101&with_detail=no-way")
    assert_422(
        response,
        LIST
        + "\n".join(
            [
                'page in query must be of type int64: "x"',
                "page_size in query should be less than or equal to 100",
                'with_detail in query must be of type bool: "no-way"',
            ]
        ),
        "get",
    )


def test_swag_booleans_are_accepted(admin_client):
    for word in ("yes", "on", "0", "disabled"):
        assert admin_client.get(f"/api/v2.0/projects?with_detail={word}").status_code == 200


# --- bodies -------------------------------------------------------------------------------

WRONG = {"string": 1, "integer": "1", "boolean": "true", "array": {}, "object": "x"}
JSON_KIND = {int: "number", str: "string", dict: "object", bool: "bool"}


def go_type(spec) -> str:
    if "$ref" in spec:
        return "models." + spec["$ref"].rsplit("/", 1)[-1]
    kind = spec.get("type")
    if kind == "integer":
        return go_int(spec)
    if kind == "array":
        items = spec.get("items", {})
        return "[]" + ("*" if "$ref" in items else "") + go_type(items)
    if kind == "object":
        extra = spec.get("additionalProperties")
        return f"map[string]{go_type(extra)}" if isinstance(extra, dict) else "interface {}"
    return {"boolean": "bool", "string": "string"}[kind]


def bodies():
    for path, method, op in OPERATIONS:
        for param in map(resolve, op.get("parameters", [])):
            if param["in"] == "body":
                yield path, method, op, param


def body_cases(pick):
    cases = []
    for path, method, op, param in bodies():
        schema = param["schema"]
        model = resolve(schema)
        for prop, spec in sorted(model.get("properties", {}).items()):
            case = pick(prop, spec)
            if case is not None:
                name = schema["$ref"].rsplit("/", 1)[-1]
                cases.append(
                    pytest.param(
                        path,
                        method,
                        param,
                        name,
                        prop,
                        spec,
                        case,
                        id=f"{op['operationId']}-{prop}",
                    )
                )
    return cases


def one_per_kind():
    """One body member per JSON kind (string, integer, boolean, array, model) per operation."""
    seen = set()
    cases = []
    wrong_for = lambda prop, spec: WRONG.get("object" if "$ref" in spec else spec.get("type"))  # noqa: E731
    for case in body_cases(wrong_for):
        path, method, _, _, _, spec, _ = case.values
        kind = "object" if "$ref" in spec else spec.get("type")
        if spec.get("format") == "date-time" or (path, method, kind) in seen:
            continue
        seen.add((path, method, kind))
        cases.append(case)
    return cases


@pytest.mark.parametrize(
    ("path", "method", "param", "model", "prop", "spec", "wrong"), one_per_kind()
)
def test_body_member_of_the_wrong_json_type_is_422(
    admin_client, path, method, param, model, prop, spec, wrong
):
    response = call(admin_client, method, path, body={prop: wrong})
    reason = (
        f"json: cannot unmarshal {JSON_KIND[type(wrong)]} into Go struct field "
        f"{model}.{prop} of type {go_type(spec)}"
    )
    assert_422(
        response, f'{LIST}parsing {param["name"]} body from "" failed, because {reason}', method
    )


@pytest.mark.parametrize(
    ("path", "method", "param", "model", "prop", "spec", "wrong"),
    body_cases(lambda prop, spec: 2**63 if spec.get("type") == "integer" else None),
)
def test_body_integer_past_int64_is_422(
    admin_client, path, method, param, model, prop, spec, wrong
):
    response = call(admin_client, method, path, body={prop: wrong})
    reason = (
        f"json: cannot unmarshal number {wrong} into Go struct field {model}.{prop} of type int64"
    )
    assert_422(
        response, f'{LIST}parsing {param["name"]} body from "" failed, because {reason}', method
    )


@pytest.mark.parametrize(
    ("path", "method", "param", "model", "prop", "spec", "wrong"),
    body_cases(lambda prop, spec: "a" * (spec["maxLength"] + 1) if "maxLength" in spec else None),
)
def test_body_string_over_its_max_length_is_422(
    admin_client, path, method, param, model, prop, spec, wrong
):
    response = call(admin_client, method, path, body={prop: wrong})
    # go-swagger nests the model's own composite error inside the request's.
    expected = f"{LIST}{LIST}{prop} in body should be at most {spec['maxLength']} chars long"
    assert_422(response, expected, method)


@pytest.mark.parametrize(
    ("path", "method", "param"),
    [(path, method, param) for path, method, _, param in bodies() if param.get("required")],
)
def test_missing_required_body_is_422(admin_client, path, method, param):
    response = call(admin_client, method, path, complete=False)
    assert_422(response, f"{LIST}{param['name']} in body is required", method)


@pytest.mark.parametrize(("path", "method", "param"), [(p, m, b) for p, m, _, b in bodies()])
def test_body_of_the_wrong_json_type_is_422(admin_client, path, method, param):
    response = call(admin_client, method, path, body=[1])
    kind = go_type(param["schema"]) if "$ref" in param["schema"] else "map[string]string"
    reason = f"json: cannot unmarshal array into Go value of type {kind}"
    assert_422(
        response, f'{LIST}parsing {param["name"]} body from "" failed, because {reason}', method
    )


def test_project_name_over_255_is_422_and_handler_rules_stay_400(admin_client):
    response = admin_client.post("/api/v2.0/projects", {"project_name": "a" * 256}, format="json")
    assert_422(
        response, f"{LIST}{LIST}project_name in body should be at most 255 chars long", "post"
    )
    response = admin_client.post("/api/v2.0/projects", {"project_name": "Not Valid"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "BAD_REQUEST"
    assert (
        admin_client.post(
            "/api/v2.0/projects", {"project_name": "a" * 255}, format="json"
        ).status_code
        == 201
    )


def test_nested_member_of_the_wrong_type_names_its_path(admin_client):
    response = admin_client.post(
        "/api/v2.0/projects",
        {"project_name": "p1", "cve_allowlist": {"expires_at": "soon"}},
        format="json",
    )
    reason = (
        "json: cannot unmarshal string into Go struct field "
        "CVEAllowlist.cve_allowlist.expires_at of type int64"
    )
    assert_422(response, f'{LIST}parsing project body from "" failed, because {reason}', "post")


def test_validation_comes_before_authentication_and_lookups(anon):
    response = anon.put("/api/v2.0/projects/nosuch", {"project_name": 5}, format="json")
    assert response.status_code == 422
    response = anon.get("/api/v2.0/projects/nosuch/members/abc")
    assert_422(response, f'{LIST}mid in path must be of type int64: "abc"', "get")
    assert anon.get("/api/v2.0/nosuch/abc").status_code == 404


def enum_cases():
    """Served parameters and top-level body members that Harbor restricts to an enum."""
    cases = [
        (path, method, param["in"], param["name"], param["enum"])
        for path, method, op in OPERATIONS
        for param in map(resolve, op.get("parameters", []))
        if "enum" in param and param["in"] != "body"
    ]
    for path, method, _, param in bodies():
        for prop, spec in sorted(resolve(param["schema"]).get("properties", {}).items()):
            if "enum" in resolve(spec):
                cases.append((path, method, "body", prop, resolve(spec)["enum"]))
    return cases


def test_a_value_outside_an_enum_is_422(admin_client):
    # Harbor's enums sit on operations served by other parts (GC schedules, scans,
    # additions); each one served is checked here, and the rule itself on a GC schedule.
    for path, method, where, name, allowed in enum_cases():
        if where == "body":
            response = call(admin_client, method, path, body={name: "nope"})
            expected = f"{LIST}{LIST}{name} in body should be one of [{' '.join(allowed)}]"
        else:
            response = send_parameter(
                admin_client, path, method, {"name": name, "in": where}, "nope"
            )
            expected = f"{LIST}{name} in {where} should be one of [{' '.join(allowed)}]"
        assert_422(response, expected, method)
    schedule = SCHEMA["definitions"]["ScheduleObj"]["properties"]["type"]
    problem = validation.check_value("type", "body", "Yearly", schedule)
    assert problem == f"type in body should be one of [{' '.join(schedule['enum'])}]"
    assert validation.check_value("type", "body", "Daily", schedule) is None


@pytest.mark.parametrize(
    ("path", "method", "param", "model", "prop", "spec", "wrong"),
    body_cases(lambda prop, spec: "yesterday" if spec.get("format") == "date-time" else None),
)
def test_body_member_not_in_its_format_is_422(
    admin_client, path, method, param, model, prop, spec, wrong
):
    response = call(admin_client, method, path, body={prop: wrong})
    reason = 'parsing time "yesterday": not an RFC 3339 date-time'
    assert_422(
        response, f'{LIST}parsing {param["name"]} body from "" failed, because {reason}', method
    )
    fine = call(admin_client, method, path, body={prop: "2024-03-18T05:32:51.436Z"})
    assert fine.status_code != 422 or "parsing time" not in fine.content.decode()


def test_a_method_the_route_does_not_serve_is_405_before_validation(admin_client):
    # Harbor's copyArtifact (POST .../artifacts, `from` required) is not served here.
    response = admin_client.post("/api/v2.0/projects/p/repositories/r/artifacts")
    assert response.status_code == 405
    assert response.json()["errors"][0]["code"] == "METHOD_NOT_ALLOWED"


def test_a_missing_required_body_member_is_422(admin_client):
    # Harbor's models with required members (tags, scanners) belong to operations served
    # by other parts; each one served is checked here, and the rule itself on NewTag.
    for path, method, _, param in bodies():
        members = sorted(resolve(param["schema"]).get("required", []))
        if members:
            response = call(admin_client, method, path, body={})
            lines = "\n".join(f"{member} in body is required" for member in members)
            assert_422(response, f"{LIST}{LIST}{lines}", method)
    found = validation.model_failures({}, {"$ref": "#/definitions/NewTag"}, "")
    assert found.render() == f"{LIST}name in body is required"
    assert not validation.model_failures({"name": "v1"}, {"$ref": "#/definitions/NewTag"}, "")
