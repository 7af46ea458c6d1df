"""What the target schema requires of a description: the roles of the profiles it claims.

Spec 14.4: "A server under test declares which of them it has ... a check that needs a role the
target does not declare is not applicable": a core-only server need not name a collection or a
resource with validators, and one that claims a profile names the role that profile's checks
read.
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


@pytest.mark.parametrize(
    ("profile", "role"), [("collection-get", "collection"), ("conditional", "etag_resource")]
)
def test_a_claimed_profile_needs_its_role(profile: str, role: str) -> None:
    with pytest.raises(jsonschema.ValidationError, match=role):
        jsonschema.validate(_target(["core", profile]), SCHEMA)
    jsonschema.validate(_target(["core", profile], **{role: "/r"}), SCHEMA)


@pytest.mark.parametrize("role", ["ok", "not_found"])
def test_ok_and_not_found_are_always_named(role: str) -> None:
    target = _target(["core"])
    del target["resources"][role]
    with pytest.raises(jsonschema.ValidationError, match=role):
        jsonschema.validate(target, SCHEMA)
