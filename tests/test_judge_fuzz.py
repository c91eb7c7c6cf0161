"""A live judge fuzzed against docs/judge_api.openapi.yaml with schemathesis, and the
request bodies that used to break it, sent raw.

One judge (gemm only, one worker, a tokens file) serves the module. The fuzzing agent has
budgets of 0, so a /score, /submit or /profile that passes every check is refused with 403 before
anything is graded, and a limit of one compiler report a minute, so a /compile that passes
is answered 429 after the first: the fuzz test grades nothing, compiles once, and stays fast. Every answer must be one
the spec documents for the operation (status, content type, body schema) and none a 5xx.
"""

import collections
import functools
import http.client
import json
import time
import urllib.parse

import jsonschema
import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.errors import FailureGroup
from schemathesis.specs.openapi.checks import (content_type_conformance, negative_data_rejection,
                                               response_schema_conformance, status_code_conformance)

from tests.conftest import CANDIDATES, ROOT, rows, serve

SPEC = ROOT / "docs" / "judge_api.openapi.yaml"
FUZZ_TOKEN = "fuzz-agent-token-0123456789abcdef"      # budgets 0: nothing is ever graded for it
USAGE_TOKEN = "usage-agent-token-0123456789abcdef"    # one submission: the largest usage accepted
KERNEL = "gemm"
MIN_REQUESTS = 1000
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          negative_data_rejection]
# What a request that breaks the spec must get. Not 403: a body that breaks the schema is
# refused before the budget is looked at. 404: a kernel name past its bound is unknown;
# 421: a rank past the header's maximum names another judge.
REJECTED = ["400", "401", "404", "411", "413", "421", "431"]


@pytest.fixture(scope="module")
def judge(tmp_path_factory, private_build_cache):
    folder = tmp_path_factory.mktemp("judge-fuzz")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({"agents": [
        {"name": "fuzz", "token": FUZZ_TOKEN, "submissions": 0, "scores": 0, "profiles": 0},
        {"name": "usage", "token": USAGE_TOKEN, "submissions": 1, "scores": 0}]}))
    j = serve(folder, "--kernels", KERNEL, "--workers", "1", "--target-seconds", "0.05", "--sessions", "2", "--tokens", str(tokens),
              "--compiles-per-minute", "1")
    try:
        yield j
    finally:
        j.stop()


@pytest.fixture(scope="module")
def error_schema() -> jsonschema.Draft202012Validator:
    spec = yaml.safe_load(SPEC.read_text())
    return jsonschema.Draft202012Validator(spec["components"]["schemas"]["Error"])


def post(url: str, path: str, body: bytes | str, token: str = FUZZ_TOKEN, rank: int = 0):
    """One raw POST (the body sent as given, NaN literals and all): (status, headers, raw body)."""
    u = urllib.parse.urlsplit(url)
    data = body.encode() if isinstance(body, str) else body
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        conn.request("POST", path, body=data, headers={
            "X-Hpcab-Rank": str(rank), "Authorization": f"Bearer {token}", "Content-Type": "application/json",
            "Content-Length": str(len(data))})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def refused(judge, error_schema, path: str, body: bytes | str, status: int = 400) -> dict:
    """POST body; the answer must be `status` with the JSON error shape. Returns the error."""
    code, headers, raw = post(judge.url, path, body)
    assert code == status, (code, raw[:500])
    assert headers.get("Content-Type", "").startswith("application/json")
    doc = json.loads(raw)
    error_schema.validate(doc)
    assert doc["error"]["status"] == status
    return doc["error"]


def a_call(**fields) -> dict:
    return {"model": "m", "prompt_tokens": 1, "completion_tokens": 1, "cached_tokens": 0, "seconds": 0.5, **fields}


def body(**fields) -> dict:
    return {"kernel": KERNEL, "language": "c", "source": "int x;\n", **fields}


# ---- schemathesis ----------------------------------------------------------------------

@functools.cache
def _body_schema() -> jsonschema.Draft202012Validator:
    spec = yaml.safe_load(SPEC.read_text())
    ref = spec["components"]["requestBodies"]["Submission"]["content"]["application/json"]["schema"]["$ref"]
    return jsonschema.Draft202012Validator(json.loads((SPEC.parent / ref).read_text()))


def _force_kernel(case):
    """A generated candidate for the kernel the judge serves, without a compiler or flag set
    the schema allows but the judge does not know: whether the judge answers 400 then
    depends on the schema alone."""
    if isinstance(case.body, dict):
        case.body["kernel"] = KERNEL
        schema = _body_schema().schema["properties"]
        for key in ("compiler", "flagset"):
            if key in case.body and jsonschema.Draft202012Validator(schema[key]).is_valid(case.body[key]):
                del case.body[key]
    return case


def _plan(schema):
    """(label, operation, generation mode, strategy arguments, cases wanted, a map or None)."""
    fixed = {"X-Hpcab-Rank": "0", "Authorization": f"Bearer {FUZZ_TOKEN}"}
    for result in schema.get_all_operations():
        op = result.ok()
        takes_input = op.path != "/health" and op.path != "/kernels"
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            # the judge's own rank and a valid token: the request reaches the endpoint
            if takes_input or mode is GenerationMode.POSITIVE:
                yield "addressed", op, mode, {"headers": fixed}, 70, None
            # the rank header and the token generated too
            yield "any headers", op, mode, {}, 40, None
        if op.path == "/task/{kernel}":
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                yield "served kernel", op, mode, {"headers": fixed, "path_parameters": {"kernel": KERNEL}}, 40, None
        if op.method.upper() == "POST":
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                yield "served kernel", op, mode, {"headers": fixed}, 100, _force_kernel


def test_schemathesis_every_answer_conforms_to_the_spec(judge):
    body_schema = _body_schema()
    config = schemathesis.Config.from_dict({"checks": {"negative_data_rejection": {"expected-statuses": REJECTED}}})
    schema = schemathesis.openapi.from_path(SPEC, config=config)
    statuses: collections.Counter = collections.Counter()
    failures: list[str] = []
    started = time.monotonic()
    for label, op, mode, kwargs, wanted, transform in _plan(schema):
        strategy = op.as_strategy(generation_mode=mode, **kwargs)
        if transform is not None:
            strategy = strategy.map(transform)

        # Fixed seeds (derandomize), no shrinking: a failure is recorded with its curl
        # command, and the run goes on so one report lists every kind of failure.
        @settings(max_examples=wanted, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def run(case):
            response = case.call(base_url=judge.url, timeout=60)
            statuses[(op.label, response.status_code)] += 1
            try:
                # after _force_kernel, schemathesis's record of what it made invalid may be wrong:
                # the body is judged against the schema below instead
                case.validate_response(response, checks=CHECKS if transform is None else CHECKS[:-1])
            except FailureGroup as exc:     # the message says what failed, and gives the curl command
                failures.append(f"{op.label} ({label}, {mode.value}): {exc}"[:3000])
            # For a served kernel, with the right rank and token, the schema alone decides: a
            # body it refuses is answered 400 (413 if too large), one it accepts reaches the
            # budget (403), or for /compile the report (200) or the rate limit (429). Either
            # other way, the judge and its schema disagree.
            if transform is not None:
                passed = (200, 429) if op.path == "/compile" else (403,)
                expected = passed if body_schema.is_valid(case.body) else (400, 413)
                if response.status_code not in expected:
                    failures.append(f"{op.label} ({label}, {mode.value}): answered {response.status_code}, not "
                                    f"{expected}: {response.text[:300]}\n{case.as_curl_command()[:1000]}")

        try:
            run()
        except Unsatisfiable:       # nothing left to vary (a GET without parameters)
            pass
    seconds = time.monotonic() - started
    total = sum(statuses.values())
    summary = "\n".join(f"  {k[0]} {k[1]}: {v}" for k, v in sorted(statuses.items()))
    print(f"schemathesis: {total} requests in {seconds:.1f} s\n{summary}")
    server_errors = {k: v for k, v in statuses.items() if k[1] >= 500}
    assert not server_errors, f"server errors: {server_errors}\n" + "\n".join(failures[:3])
    assert not failures, f"{len(failures)} answers break the spec; the first:\n" + "\n\n".join(failures[:5])
    assert total >= MIN_REQUESTS, summary
    # it reached past the body's schema to the budget, and got the documented answers
    assert statuses[("POST /score", 403)] and statuses[("POST /submit", 403)], summary
    assert statuses[("POST /compile", 429)] and statuses[("POST /profile", 403)], summary
    assert statuses[("GET /task/{kernel}", 200)] and statuses[("GET /health", 200)], summary


# ---- the bodies that broke the judge, sent raw -------------------------------------------

def test_a_body_nested_1000_deep_is_refused(judge, error_schema):
    deep = "[" * 1000 + "]" * 1000
    refused(judge, error_schema, "/submit", deep)
    refused(judge, error_schema, "/score", json.dumps(body()).replace('"int x;\\n"', deep))


@pytest.mark.parametrize("tokens", ["1e30", str(10 ** 30), "1000000001"])
def test_a_token_count_past_its_bound_is_refused_naming_the_field(judge, error_schema, tokens):
    doc = json.dumps(body(usage={"calls": [a_call(prompt_tokens=0)]}))
    doc = doc.replace('"prompt_tokens": 0', f'"prompt_tokens": {tokens}')      # written as sent: 1e30 too
    error = refused(judge, error_schema, "/submit", doc)
    assert error["field"] == "usage.calls[0].prompt_tokens", error
    assert "1000000000" in error["message"] and len(error["message"]) < 300, error


def test_two_calls_that_would_overflow_a_64_bit_sum_are_refused(judge, error_schema):
    error = refused(judge, error_schema, "/submit",
                    json.dumps(body(usage={"calls": [a_call(prompt_tokens=2 ** 63 - 1)] * 2})))
    assert error["field"].startswith("usage.calls[") and error["field"].endswith("].prompt_tokens"), error


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("where", ["seconds", "wall_seconds"])
def test_nan_and_infinity_literals_are_refused(judge, error_schema, literal, where):
    usage = {"calls": [a_call(seconds=0.5)], "wall_seconds": 1.5}
    doc = json.dumps(body(usage=usage))
    doc = doc.replace('"seconds": 0.5', f'"seconds": {literal}') if where == "seconds" else \
        doc.replace('"wall_seconds": 1.5', f'"wall_seconds": {literal}')
    assert literal in doc
    refused(judge, error_schema, "/submit", doc)
    refused(judge, error_schema, "/score", doc)


def test_too_many_calls_and_overlong_strings_are_refused_without_quoting_them(judge, error_schema):
    cases = {
        "usage.calls": body(usage={"calls": [a_call()] * 10001}),
        "source": body(source="x" * (4194304 + 1)),
        "label": body(label="x" * 201),
        "flagset": body(flagset="o" * 65),
        "usage.calls[0].model": body(usage={"calls": [a_call(model="m" * 201)]}),
    }
    for field, doc in cases.items():
        error = refused(judge, error_schema, "/submit", json.dumps(doc))
        assert error["field"] == field, error
        assert len(error["message"]) < 300 and "at most" in error["message"], error


def test_score_id_follows_the_submission_id_rules(judge, error_schema):
    for bad in ("", "X" * 32, "0" * 31, "0" * 33, "0" * 4096):
        error = refused(judge, error_schema, "/score", json.dumps(body(score_id=bad)))
        assert error["field"] == "score_id", error
    # a well-formed one passes the schema: this agent's budget is spent
    refused(judge, error_schema, "/score", json.dumps(body(score_id="0123456789abcdef" * 2)), status=403)


def answer(url: str, method: str, path: str, headers: dict | None = None, data: bytes | None = None):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in {"X-Hpcab-Rank": "0", "Authorization": f"Bearer {FUZZ_TOKEN}", **(headers or {})}.items():
            conn.putheader(k, v)
        conn.endheaders(data)
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "BREW", "HEAD"])
def test_every_other_method_is_a_json_405_with_allow(judge, error_schema, method):
    for path, allowed in (("/health", "GET"), ("/task/gemm", "GET"), ("/grades/x", "GET"), ("/score", "POST"),
                          ("/submit", "POST")):
        if method == allowed:
            continue
        status, headers, raw = answer(judge.url, method, path)
        assert (status, headers.get("Allow")) == (405, allowed), (method, path, status, raw[:300])
        if method != "HEAD":        # a HEAD answer has no body
            error_schema.validate(json.loads(raw))
    for method, path in (("GET", "/score"), ("POST", "/kernels")):
        status, headers, raw = answer(judge.url, method, path, data=b"{}", headers={"Content-Length": "2"})
        assert (status, headers.get("Allow")) == (405, "POST" if path == "/score" else "GET")
        error_schema.validate(json.loads(raw))


def test_unknown_paths_and_unsized_bodies_are_json_errors(judge, error_schema):
    for path in ("/", "/nope", "/health2", "/%00"):
        status, _, raw = answer(judge.url, "GET", path)
        assert status == 404, (path, raw[:300])
        error_schema.validate(json.loads(raw))
    status, _, raw = answer(judge.url, "POST", "/score", headers={"Transfer-Encoding": "chunked"},
                            data=b"2\r\n{}\r\n0\r\n\r\n")
    assert status == 411, raw[:300]
    error_schema.validate(json.loads(raw))


def test_the_largest_usage_accepted_fits_the_database(judge):
    """10,000 calls of 10**9 tokens each: accepted, recorded, and summed by the judge."""
    calls = [a_call(prompt_tokens=10 ** 9, completion_tokens=10 ** 9, cached_tokens=10 ** 9, seconds=10 ** 6)] * 10000
    usage = {"calls": calls, "prompt_tokens": 10 ** 13, "completion_tokens": 10 ** 13, "cached_tokens": 10 ** 13,
             "wall_seconds": 10 ** 9}
    source = (CANDIDATES / "gemm_compile_error.c").read_text()      # graded fast: a build error
    code, _, raw = post(judge.url, "/submit", json.dumps(body(source=source, usage=usage,
                                                              submission_id="f" * 32)), token=USAGE_TOKEN)
    assert code == 200, raw[:500]
    assert json.loads(raw)["status"] == "build_error"
    assert rows(judge.db, "SELECT model_calls, prompt_tokens, completion_tokens, cached_tokens FROM submissions "
                          "WHERE id = ?", "f" * 32) == [(10000, 10 ** 13, 10 ** 13, 10 ** 13)]
