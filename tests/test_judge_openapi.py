"""docs/judge_api.openapi.yaml: parses, is OpenAPI 3.1, and documents what the judge does.

Fast: no server. The routes come from hpcab.judge.server, the status codes from the
ApiError(...) calls in the judge's code, so a route or a status added there without
being documented here fails.
"""

import json
import re
from pathlib import Path

import jsonschema
import pytest
import referencing
import referencing.jsonschema
import yaml

from hpcab.judge.server import GET_ROUTES, POST_ROUTES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SPEC = DOCS / "judge_api.openapi.yaml"
PROSE = DOCS / "judge_api.md"
SCHEMAS = ROOT / "schemas"
JUDGE_CODE = (ROOT / "hpcab" / "judge" / "service.py", ROOT / "hpcab" / "judge" / "server.py")
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


@pytest.fixture(scope="module")
def spec() -> dict:
    return yaml.safe_load(SPEC.read_text())


def _operations(spec: dict):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in HTTP_METHODS:
                yield path, method, op


def _refs(node, where=""):
    """Every $ref in the document, with where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield where, value
            else:
                yield from _refs(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _refs(value, f"{where}/{i}")


def _pointer(document, fragment: str):
    """Resolve a JSON pointer ('/a/b'); KeyError/IndexError if it names nothing."""
    node = document
    for part in fragment.lstrip("/").split("/") if fragment else ():
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _raised_statuses() -> set[int]:
    """ApiError(...) statuses, and those the HTTP layer answers itself (drop(...))."""
    codes = set()
    for path in JUDGE_CODE:
        codes |= {int(c) for c in re.findall(r"(?:ApiError|\bdrop)\(\s*(\d{3})\b", path.read_text())}
    return codes


def _documented_statuses(spec: dict) -> set[int]:
    codes = set()
    for _path, _method, op in _operations(spec):
        codes |= {int(c) for c in op["responses"]}
    for item in spec["paths"].values():       # answers to the methods a path does not take
        codes |= {int(c) for c in item.get("x-other-methods", {})}
    return codes


def test_parses_and_is_openapi_3_1(spec):
    assert isinstance(spec, dict)
    assert re.fullmatch(r"3\.1\.\d+", str(spec["openapi"]))
    assert spec["info"]["title"] and spec["info"]["version"]


def test_paths_and_methods_are_the_routes_of_the_server(spec):
    documented = {(path.strip("/").split("/")[0], method.upper()) for path, method, _ in _operations(spec)}
    routed = {(r, "GET") for r in GET_ROUTES} | {(r, "POST") for r in POST_ROUTES}
    assert documented == routed, (f"documented but not routed: {sorted(documented - routed)}; "
                                  f"routed but not documented: {sorted(routed - documented)}")


def test_every_operation_documents_the_rank_header(spec):
    for path, method, op in _operations(spec):
        params = [_pointer(spec, p["$ref"][1:]) if "$ref" in p else p for p in op.get("parameters", [])]
        rank = [p for p in params if p["in"] == "header" and p["name"] == "X-Hpcab-Rank"]
        assert len(rank) == 1, f"{method.upper()} {path}"
        assert rank[0]["required"] is (path != "/health"), f"{method.upper()} {path}"
        assert "421" in op["responses"], f"{method.upper()} {path}"


def test_bearer_security(spec):
    scheme = spec["components"]["securitySchemes"]["bearer"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert spec["security"] == [{"bearer": []}]
    for path, method, op in _operations(spec):
        if path == "/health":
            assert op["security"] == [], "/health needs no token"
        else:
            assert "security" not in op and "401" in op["responses"], f"{method.upper()} {path}"


def test_every_file_reference_resolves_to_a_schema_file(spec):
    file_refs = [(where, ref) for where, ref in _refs(spec) if not ref.startswith("#")]
    assert file_refs
    for where, ref in file_refs:
        target, _, fragment = ref.partition("#")
        path = (DOCS / target).resolve()
        assert path.parent == SCHEMAS.resolve(), f"{where}: {ref} is not a file under schemas/"
        assert path.is_file(), f"{where}: {ref}: no such schema file"
        _pointer(json.loads(path.read_text()), fragment)


def test_every_local_reference_resolves(spec):
    for _, ref in _refs(spec):
        if ref.startswith("#"):
            _pointer(spec, ref[1:])


def _schema_of(spec: dict, node: dict) -> dict:
    """Follow local $refs (responses, request bodies, schemas) to the node they name."""
    while "$ref" in node and node["$ref"].startswith("#"):
        node = _pointer(spec, node["$ref"][1:])
    return node


def test_submissions_and_grades_use_the_json_schemas(spec):
    for path in ("/score", "/submit", "/compile"):
        op = spec["paths"][path]["post"]
        body = _schema_of(spec, op["requestBody"])
        assert body["content"]["application/json"]["schema"] == {"$ref": "../schemas/submission.schema.json"}
    for path, method in (("/score", "post"), ("/submit", "post"), ("/grades/{id}", "get")):
        schema = spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert _schema_of(spec, schema) == {"$ref": "../schemas/grade.schema.json"}, path


def test_every_status_the_judge_raises_is_documented(spec):
    raised = _raised_statuses()
    assert {202, 400, 401, 403, 404, 405, 409, 411, 413, 421, 429, 500, 503} <= raised, raised
    missing = raised - _documented_statuses(spec)
    assert not missing, f"statuses raised in hpcab/judge but not in {SPEC.name}: {sorted(missing)}"


# What the HTTP layer may answer to any request, before or around the route's own checks.
ANY_REQUEST = {"400", "408", "413", "431", "500", "503"}


def test_every_operation_documents_what_the_http_layer_answers(spec):
    for path, method, op in _operations(spec):
        missing = ANY_REQUEST - set(op["responses"])
        assert not missing, f"{method.upper()} {path}: {sorted(missing)}"
    for path, method, op in _operations(spec):
        if method == "post":
            assert "411" in op["responses"], f"{method.upper()} {path}"


def test_every_error_answer_is_the_json_error_shape(spec):
    checked = 0
    for path, item in spec["paths"].items():
        answers = [(f"{method.upper()} {path}", code, r) for method, op in item.items() if method in HTTP_METHODS
                   for code, r in op["responses"].items()]
        answers += [(f"other methods {path}", code, r) for code, r in item.get("x-other-methods", {}).items()]
        for where, code, response in answers:
            if int(code) >= 400:
                content = _schema_of(spec, response)["content"]
                assert list(content) == ["application/json"], f"{where} {code}"
                assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, \
                    f"{where} {code}"
                checked += 1
    assert checked >= 60


def test_every_status_and_route_is_in_the_prose():
    text = PROSE.read_text()
    for code in _raised_statuses():
        assert re.search(rf"^\| {code} \|", text, re.M), f"{PROSE.name}: no row for {code} in the status table"
    for route in GET_ROUTES:
        assert f"`GET /{route}" in text, route
    for route in POST_ROUTES:
        assert f"`POST /{route}`" in text, route


def test_waiting_statuses_carry_their_headers(spec):
    for path, method, op in _operations(spec):
        for code, header in (("429", "Retry-After"), ("503", "Retry-After"), ("202", "Retry-After"),
                             ("401", "WWW-Authenticate")):
            if code in op["responses"]:
                response = _schema_of(spec, op["responses"][code])
                assert header in response.get("headers", {}), f"{method.upper()} {path} {code}"
    for item in spec["paths"].values():
        for code in ("405",):
            assert "Allow" in _schema_of(spec, item["x-other-methods"][code])["headers"]


def _registry(spec: dict) -> referencing.Registry:
    draft = referencing.jsonschema.DRAFT202012
    resources = [(SPEC.resolve().as_uri(), draft.create_resource(spec))]
    for path in SCHEMAS.glob("*.schema.json"):
        contents = json.loads(path.read_text())
        resources.append((path.resolve().as_uri(), draft.create_resource(contents)))
    return referencing.Registry().with_resources(resources)


def test_inline_schemas_are_valid_and_their_examples_validate(spec):
    registry = _registry(spec)
    base = SPEC.resolve().as_uri()
    checked = 0
    for name, schema in spec["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator({"$ref": f"{base}#/components/schemas/{name}"},
                                                    registry=registry)
        for example in schema.get("examples", []):
            validator.validate(example)
            checked += 1
    assert checked >= 6
