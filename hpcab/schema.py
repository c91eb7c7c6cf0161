"""JSON Schema validation with errors that name the file and the field."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

from hpcab.errors import InputError
from hpcab.paths import schemas_dir


@functools.lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    path = schemas_dir() / f"{name}.schema.json"
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def field_path(path) -> str:
    """A JSON-path-like field name: arrays[2].dtype."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _explain(error: jsonschema.ValidationError) -> tuple[str, str]:
    field = field_path(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        if extra:
            name = extra[0]
            return (f"{field}.{name}" if error.absolute_path else name,
                    f"unknown key {name!r}; expected one of: {', '.join(allowed)}")
    if error.validator == "enum":
        return field, f"{error.instance!r} is not allowed; expected one of: {', '.join(map(str, error.validator_value))}"
    if error.validator == "required" and isinstance(error.instance, dict):
        name = next((k for k in error.validator_value if k not in error.instance), None)
        if name is not None:
            return (f"{field}.{name}" if error.absolute_path else name, f"{name!r} is required but missing")
    return field, error.message


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
    """Raise InputError for the first (deepest, most specific) violation."""
    validator = jsonschema.Draft202012Validator(load_schema(schema_name))
    errors = list(validator.iter_errors(instance))
    if not errors:
        return
    best = jsonschema.exceptions.best_match(errors)
    field, message = _explain(best)
    raise InputError(str(source), field, message)
