"""JSON Schema validation with errors that name the file and the field."""

from __future__ import annotations

import functools
import itertools
import json
import math
from pathlib import Path
from typing import Any

import jsonschema

from hpcab.errors import InputError
from hpcab.paths import schemas_dir

QUOTE_LIMIT = 80         # characters of a value quoted in a message (a source can be 4 MiB)
MAX_ERRORS = 50          # errors looked at before the best one is picked (a 10,000-item array can have more)
# Limits on size: the first such violation is the answer, at once (its instance may be huge).
SIZE_KEYWORDS = frozenset({"maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum",
                           "minimum", "exclusiveMinimum"})


@functools.lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    path = schemas_dir() / f"{name}.schema.json"
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def short(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A value as a message quotes it: its repr, cut to about `limit` characters. Never the
    whole repr of a long string, a huge integer (slow, and past 4300 digits it raises) or a
    deep or long array (a 10,000-item array, or one nested 1,000 deep, is not formatted)."""
    text = _brief(value, limit, 0)
    return text if len(text) <= limit + 40 else text[:limit] + "..."


def _brief(value: Any, limit: int, depth: int) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return repr(value) if value.bit_length() <= 4 * limit else f"an integer of {value.bit_length()} bits"
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    if isinstance(value, list):
        if not value or depth >= 2:
            return "[...]" if value else "[]"
        inner = ", ".join(_brief(v, limit // 4, depth + 1) for v in value[:4])
        return f"[{inner}{', ...' if len(value) > 4 else ''}]" + (f" ({len(value)} items)" if len(value) > 4 else "")
    if isinstance(value, dict):
        if not value or depth >= 2:
            return "{...}" if value else "{}"
        items = itertools.islice(value.items(), 4)
        inner = ", ".join(f"{_brief(k, limit // 4, 2)}: {_brief(v, limit // 4, depth + 1)}" for k, v in items)
        return "{" + inner + (", ...}" if len(value) > 4 else "}")
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def field_path(path) -> str:
    """A JSON-path-like field name: arrays[2].dtype."""
    out = ""
    for part in path:
        if not isinstance(part, int):
            part = _cut_text(str(part))
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(top level)"


def _cut_text(text: str) -> str:
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "..."


# The size keywords, whose jsonschema messages quote the whole instance ('<4 MiB of source>
# is too long'): ours name the limit instead. Other messages are cut short by _cut.

def _max_length(validator, limit, instance, schema):
    if validator.is_type(instance, "string") and len(instance) > limit:
        yield jsonschema.ValidationError(f"{len(instance)} characters long; at most {limit} are allowed")


def _max_items(validator, limit, instance, schema):
    if validator.is_type(instance, "array") and len(instance) > limit:
        yield jsonschema.ValidationError(f"{len(instance)} items; at most {limit} are allowed")


def _bound(keyword: str, words: str, fails):
    def check(validator, limit, instance, schema):
        if not validator.is_type(instance, "number"):
            return
        # NaN compares false with everything, so it would pass any bound: a bounded number is finite
        if isinstance(instance, float) and math.isnan(instance):
            yield jsonschema.ValidationError("NaN is not a number; a finite number is required")
        elif fails(instance, limit):
            yield jsonschema.ValidationError(f"{short(instance)} is {words} {limit}")
    check.__name__ = keyword
    return check


OURS = {       # keyword → our check, whose message is already short
    "maxLength": _max_length,
    "maxItems": _max_items,
    "maximum": _bound("maximum", "greater than the maximum of", lambda x, m: x > m),
    "exclusiveMaximum": _bound("exclusiveMaximum", "not less than the exclusive maximum of", lambda x, m: x >= m),
    "minimum": _bound("minimum", "less than the minimum of", lambda x, m: x < m),
    "exclusiveMinimum": _bound("exclusiveMinimum", "not greater than the exclusive minimum of", lambda x, m: x <= m),
}
Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, OURS)


@functools.lru_cache(maxsize=None)
def _validator(schema_name: str):
    return Validator(load_schema(schema_name))


def _explain(error: jsonschema.ValidationError) -> tuple[str, str]:
    field = field_path(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        if extra:
            name = extra[0]
            key = _cut_text(name)
            return (f"{field}.{key}" if error.absolute_path else key,
                    f"unknown key {short(name)}; expected one of: {', '.join(allowed)}")
    if error.validator == "enum":
        allowed = ", ".join(map(str, error.validator_value))
        return field, f"{short(error.instance)} is not allowed; expected one of: {allowed}"
    if error.validator == "required" and isinstance(error.instance, dict):
        name = next((k for k in error.validator_value if k not in error.instance), None)
        if name is not None:
            return (f"{field}.{name}" if error.absolute_path else name, f"{name!r} is required but missing")
    if error.validator in OURS:
        return field, error.message             # already short
    return field, _cut(error)


def _cut(error: jsonschema.ValidationError) -> str:
    """jsonschema's message, with a long quoted instance replaced by a short one."""
    message = error.message
    if len(message) <= 2 * QUOTE_LIMIT:
        return message
    try:
        quoted = repr(error.instance)
    except (ValueError, RecursionError):     # an integer too long to print, an array too deep
        quoted = None
    if quoted and quoted in message:
        message = message.replace(quoted, short(error.instance))
    return message if len(message) <= 4 * QUOTE_LIMIT else message[:4 * QUOTE_LIMIT] + "..."


def read_yaml(path: Path, what: str) -> Any:
    """A YAML (or JSON) file's content; InputError naming the file when it is missing or unreadable."""
    import yaml
    if not path.is_file():
        raise InputError(str(path), "", f"no such {what}")
    try:
        return yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise InputError(str(path), "", f"not valid YAML or JSON: {exc}") from None


def validate(instance: Any, schema_name: str, source: str | Path) -> None:
    """Raise InputError for the first size violation (a string, array or number over its
    limit: answered at once), else for the deepest, most specific of the first violations."""
    errors = []
    try:
        for error in _validator(schema_name).iter_errors(instance):
            if error.validator in SIZE_KEYWORDS:
                errors = [error]
                break
            errors.append(error)
            if len(errors) >= MAX_ERRORS:
                break
    except RecursionError:      # jsonschema recurses per level (the judge's HTTP layer caps nesting at 64)
        raise InputError(str(source), "(top level)", "nested too deeply to validate") from None
    if not errors:
        return
    best = jsonschema.exceptions.best_match(errors)
    field, message = _explain(best)
    raise InputError(str(source), field, message)
