"""What the target schema requires of a description: the roles of the profiles it claims.

Spec 14.4: "A server under test declares which of them it has ... a check that needs a role the
target does not declare is not applicable": a core-only server need not name a collection or a
resource with validators, and one that claims collection retrieval names its collection.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mixbatch_conformance.core.requirements import spec_dir

SCHEMA = json.loads((spec_dir() / "schemas" / "target.schema.json").read_text(encoding="utf-8"))


def _target(profiles: list[str], **resources: str) -> dict[str, Any]:
    return {
        "base_url": "http://127.0.0.1:8080",
        "batch_endpoint": "/batch",
        "resources": {"ok": "/ok", "not_found": "/absent", **resources},
        "profiles": profiles,
    }


def test_a_core_only_target_names_only_ok_and_not_found() -> None:
    jsonschema.validate(_target(["core", "json", "error-policy"]), SCHEMA)


def test_collection_retrieval_needs_a_collection() -> None:
    with pytest.raises(jsonschema.ValidationError, match="collection"):
        jsonschema.validate(_target(["core", "collection-get"]), SCHEMA)
    jsonschema.validate(_target(["core", "collection-get"], collection="/c"), SCHEMA)


def test_conditional_needs_no_etag_resource() -> None:
    # MB-TEST-1's etag_resource answers with an ETag and a Last-Modified; a server whose
    # resources carry no date (RFC 9110 §8.8.2.1 makes one a SHOULD) offers conditional
    # requests all the same, and the checks that need the role are not applicable.
    jsonschema.validate(_target(["core", "conditional"]), SCHEMA)


@pytest.mark.parametrize("role", ["ok", "not_found"])
def test_ok_and_not_found_are_always_named(role: str) -> None:
    target = _target(["core"])
    del target["resources"][role]
    with pytest.raises(jsonschema.ValidationError, match=role):
        jsonschema.validate(target, SCHEMA)
