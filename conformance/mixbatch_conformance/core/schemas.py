"""Validation against the spec's JSON Schemas (spec/schemas/*.schema.json).

Theory of operation: the schemas are the spec's; the suite only applies them. A missing
schema file is reported as such rather than treated as valid, so a check never passes on a
document it could not validate.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema

from mixbatch_conformance.core.requirements import spec_dir

__all__ = ["load_schema", "problem_error", "validate_against"]


@functools.cache
def load_schema(name: str) -> dict[str, Any] | None:
    path = spec_dir() / "schemas" / name
    if not path.is_file():
        return None
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator | None:
    """One validator a schema, built once: a run validates thousands of documents."""
    schema = load_schema(name)
    return None if schema is None else jsonschema.Draft202012Validator(schema)


def validate_against(name: str, document: object) -> str | None:
    """None when `document` is valid against schema `name`, else the first error in words."""
    validator = _validator(name)
    if validator is None:
        return f"schema {name} is missing from spec/schemas"
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
    return f"{where}: {first.message}"


def problem_error(document: object) -> str | None:
    """None when `document` is a problem document the problem schema allows, else why not.

    MB-STATUS-4: "an `application/problem+json` body (RFC 9457) ...; the document MUST be one
    the problem schema ([`spec/schemas/problem.schema.json`]) admits"; spec 5.3: the schema
    "therefore requires `type`, `title` and `status` only. Its `limit` stands beside a 413,
    431 or 503"."""
    if not isinstance(document, dict):
        return "not a JSON object"
    return validate_against("problem.schema.json", document)
