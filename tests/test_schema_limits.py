"""The judge's request bodies are bounded (everything accepted fits its SQLite database),
and hpcab.schema.validate refuses a value past a bound at once, in a short message that
names the field and the limit. No server: the schemas and validate() alone."""

import json
import math
import time

import pytest
import yaml

import hpcab.schema
from hpcab.errors import InputError
from hpcab.schema import MAX_ERRORS, QUOTE_LIMIT, load_schema, short, validate
from tests.conftest import ROOT

INT64_MAX = 2 ** 63 - 1
SPEC = ROOT / "docs" / "judge_api.openapi.yaml"


def refusal(instance, schema="submission") -> InputError:
    with pytest.raises(InputError) as err:
        validate(instance, schema, "request body")
    return err.value


def body(**fields) -> dict:
    return {"kernel": "gemm", "language": "c", "source": "int x;\n", **fields}


def a_call(**fields) -> dict:
    return {"model": "m", "prompt_tokens": 1, "completion_tokens": 1, "cached_tokens": 0, "seconds": 0.5, **fields}


def _nodes(schema, where="submission"):
    """Every subschema with a type, and where it is."""
    if isinstance(schema, dict):
        if "type" in schema or "enum" in schema:
            yield where, schema
        for key, value in schema.get("properties", {}).items():
            yield from _nodes(value, f"{where}.{key}")
        if isinstance(schema.get("items"), dict):
            yield from _nodes(schema["items"], f"{where}[]")


# ---- the schemas ---------------------------------------------------------------------------

def test_every_value_of_a_request_body_is_bounded():
    checked = 0
    for where, node in _nodes(load_schema("submission")):
        types = node.get("type")
        types = [types] if isinstance(types, str) else (types or [])
        if "integer" in types or "number" in types:
            assert "minimum" in node and "maximum" in node, where
            assert node["maximum"] <= INT64_MAX and node["minimum"] >= -INT64_MAX, where
        if "string" in types:
            assert "maxLength" in node or "enum" in node, where
        if "array" in types:
            assert "maxItems" in node, where
        checked += 1
    assert checked >= 15


def test_the_sums_the_judge_stores_fit_a_64_bit_integer():
    """hpcab.record.add_submission sums each count over the calls into an INTEGER column."""
    usage = load_schema("submission")["properties"]["usage"]
    calls = usage["properties"]["calls"]
    for field in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        per_call = calls["items"]["properties"][field]["maximum"]
        assert calls["maxItems"] * per_call <= 10 ** 13 < INT64_MAX, field
        assert usage["properties"][field]["maximum"] <= INT64_MAX, field


def test_score_id_has_the_rules_of_submission_id():
    props = load_schema("submission")["properties"]
    strip = lambda d: {k: v for k, v in d.items() if k != "description"} 
    assert strip(props["score_id"]) == strip(props["submission_id"])
    validate(body(score_id="0123456789abcdef" * 2), "submission", "request body")
    assert refusal(body(score_id="0123456789ABCDEF" * 2)).field == "score_id"


def test_every_parameter_of_the_api_is_bounded():
    spec = yaml.safe_load(SPEC.read_text())
    params = list(spec["components"]["parameters"].values())
    for item in spec["paths"].values():
        for op in item.values():
            if isinstance(op, dict):
                params += [p for p in op.get("parameters", []) if "$ref" not in p]
    for p in params:
        s = p["schema"]
        if s.get("type") == "integer":
            assert "minimum" in s and "maximum" in s, p["name"]
        elif s.get("type") == "string":
            assert "maxLength" in s, p["name"]
        else:
            assert "enum" in s, p["name"]


# ---- validate: bounds ----------------------------------------------------------------------------

@pytest.mark.parametrize("value", [10 ** 30, 1e30, 2 ** 63, 10 ** 9 + 1, 10 ** 5000],
                         ids=["10**30", "1e30", "2**63", "10**9+1", "10**5000"])
def test_a_count_past_its_maximum_is_refused_naming_the_field(value):
    err = refusal(body(usage={"calls": [a_call(prompt_tokens=value)]}))
    assert err.field == "usage.calls[0].prompt_tokens"
    assert "maximum of 1000000000" in err.message and len(err.message) < 2 * QUOTE_LIMIT, err.message


def test_two_calls_whose_sum_would_overflow_are_refused():
    err = refusal(body(usage={"calls": [a_call(prompt_tokens=INT64_MAX)] * 2}))
    assert err.field == "usage.calls[0].prompt_tokens"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_bounded_number_is_finite(value):
    err = refusal(body(usage={"calls": [a_call(seconds=value)]}))
    assert err.field == "usage.calls[0].seconds", err
    err = refusal(body(usage={"calls": [], "wall_seconds": value}))
    assert err.field == "usage.wall_seconds", err


def test_the_largest_values_accepted():
    calls = [a_call(prompt_tokens=10 ** 9, completion_tokens=10 ** 9, cached_tokens=10 ** 9, seconds=10 ** 6)]
    validate(body(source="x" * 4194304, label="l" * 200, flagset="o" * 64, submission_id="a" * 32,
                  usage={"calls": calls * 10000, "prompt_tokens": 10 ** 13, "wall_seconds": 10 ** 9}),
             "submission", "request body")


@pytest.mark.parametrize("field, doc, limit", [
    ("source", body(source="x" * (4194304 + 1)), "4194304"),
    ("label", body(label="x" * 201), "200"),
    ("flagset", body(flagset="o" * 65), "64"),
    ("compiler", body(compiler="g" * 65), "64"),
    ("kernel", body(kernel="k" * 201), "200"),
    ("usage.calls", body(usage={"calls": [a_call()] * 10001}), "10000"),
    ("usage.calls[0].model", body(usage={"calls": [a_call(model="m" * 201)]}), "200"),
])
def test_a_size_violation_names_the_field_and_the_limit(field, doc, limit):
    err = refusal(doc)
    assert err.field == field
    assert f"at most {limit}" in err.message and len(err.message) < 2 * QUOTE_LIMIT, err.message


# ---- validate: fast, and short messages ---------------------------------------------------------

class Counting:
    """A validator that counts the errors validate() takes from it."""

    def __init__(self, inner):
        self.inner, self.taken = inner, 0

    def iter_errors(self, instance):
        for error in self.inner.iter_errors(instance):
            self.taken += 1
            yield error


@pytest.fixture
def counting(monkeypatch):
    holder = {}

    def make(name):
        holder["v"] = Counting(hpcab.schema.Validator(load_schema(name)))
        return holder["v"]
    monkeypatch.setattr(hpcab.schema, "_validator", make)
    return holder


def test_a_size_violation_is_refused_without_every_error_of_a_large_array(counting):
    bad = {"model": 1, "prompt_tokens": "x", "completion_tokens": "x", "cached_tokens": "x", "seconds": "x"}
    doc = body(usage={"calls": [bad] * 10000}, label="x" * 201)
    started = time.monotonic()
    err = refusal(doc)
    assert (err.field, counting["v"].taken) == ("label", 1)
    # a size violation inside the array: the first is the answer
    err = refusal(body(usage={"calls": [a_call(prompt_tokens=10 ** 10)] + [bad] * 9999}))
    assert (err.field, counting["v"].taken) == ("usage.calls[0].prompt_tokens", 1)
    # errors and no size violation: at most MAX_ERRORS are looked at, not 50,000
    err = refusal(body(usage={"calls": [bad] * 10000}))
    assert err.field.startswith("usage.calls[") and counting["v"].taken == MAX_ERRORS
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("doc", [
    body(language="q" * 100000),                          # enum
    body(kernel=["x" * 100000] * 10000),                  # type, a long array of long strings
    body(source={"a" * 100000: "b" * 100000}),            # type, an object
    body(**{"k" * 100000: 1}),                            # an unknown key
    body(flagset="O" * 60),                               # pattern
    body(submission_id="g" * 32),                         # pattern
    body(usage={"calls": [a_call(model=["m" * 5000] * 50)]}),
])
def test_a_message_never_quotes_a_long_value(doc):
    err = refusal(doc)
    assert len(err.message) < 4 * QUOTE_LIMIT and len(err.field) < 2 * QUOTE_LIMIT, (err.field, err.message)


def test_a_deeply_nested_value_is_refused_without_recursing():
    deep = []
    for _ in range(5000):       # deeper than repr() or json could go
        deep = [deep]
    err = refusal(body(kernel=deep))
    assert "nested too deeply" in err.message, err.message


def test_messages_still_name_the_field():
    assert (refusal({"language": "c", "source": "x"}).field, refusal({"language": "c", "source": "x"}).message) == \
        ("kernel", "'kernel' is required but missing")
    err = refusal(body(language="rust"))
    assert err.field == "language" and "'rust' is not allowed; expected one of: c, cpp" in err.message
    err = refusal(body(extra=1))
    assert err.field == "extra" and err.message.startswith("unknown key 'extra'; expected one of:")
    err = refusal(body(usage={"calls": [a_call(bogus=1)]}))
    assert err.field == "usage.calls[0].bogus"
    assert refusal(body(label=12)).message == "12 is not of type 'string'"


def test_short_cuts_what_it_quotes():
    assert short("abc") == "'abc'"
    assert short(12) == "12" and short(None) == "None" and short(True) == "True"
    assert len(short("x" * 10 ** 6)) < 2 * QUOTE_LIMIT and "(1000000 characters)" in short("x" * 10 ** 6)
    assert short(10 ** 5000).startswith("an integer of ")
    assert len(short(list(range(10 ** 5)))) < 2 * QUOTE_LIMIT
    assert len(short({str(i): "v" * 1000 for i in range(1000)})) < 2 * QUOTE_LIMIT
    assert json.loads(short([1, 2])) == [1, 2]


def test_other_schemas_still_validate(tmp_path):
    """validate() serves the manifests, toolchains, tokens and arms too."""
    err = refusal({"agents": [{"name": "a", "token": "short", "submissions": 1}]}, "tokens")
    assert err.field == "agents[0].token" and "does not match" in err.message
    err = refusal({"agents": []}, "tokens")
    assert err.field == "agents" and "non-empty" in err.message
