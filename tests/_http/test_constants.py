"""Each shared constant of mixbatch is defined once, in mixbatch._constants, from the spec.

A grep over the package's source: a constant spelled again in another module (its name
assigned, or its literal value written out) would drift from the one the others use.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mixbatch import _constants

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "reference-impl" / "mixbatch"
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)

NAMES = (
    "SPEC_VERSION",
    "CAPABILITIES_MEDIA_TYPE",
    "PROBLEM_MEDIA_TYPE",
    "INHERITED_FIELDS",
    "PROFILES",
    "SERVER_PROFILES",
    "PROXY_PROFILES",
    "ASGI_PROFILES",
    "ASGI_DEFAULT_PROFILES",
    "SUPPORTED_PROFILES",
    "DEFAULT_PROFILES",
)
LITERALS = (
    '"application/vnd.mixbatch.capabilities+json"',
    '"application/problem+json"',
    '("Authorization", "Cookie")',
    '"draft-',
)


def _assignments(name: str) -> list[str]:
    pattern = re.compile(rf"^\s*{name}\s*(?::[^=]+)?=", re.MULTILINE)
    return [
        f"{path.relative_to(PACKAGE)}"
        for path in SOURCES
        for _ in pattern.finditer(path.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("name", NAMES)
def test_a_shared_constant_is_assigned_only_in_the_constants_module(name: str) -> None:
    found = _assignments(name)
    assert all(place == "_constants.py" for place in found), found
    assert len(found) <= 1, found


@pytest.mark.parametrize("literal", LITERALS)
def test_a_shared_value_is_written_out_only_in_the_constants_module(literal: str) -> None:
    found = [
        str(path.relative_to(PACKAGE))
        for path in SOURCES
        if literal.lower() in path.read_text(encoding="utf-8").lower()
    ]
    assert found in ([], ["_constants.py"]), found


def test_the_spec_version_is_the_requirement_index_s() -> None:
    index = json.loads((ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))
    assert index["spec_version"] == _constants.SPEC_VERSION


def test_the_profiles_are_the_capabilities_schema_s_and_every_subset_is_within_them() -> None:
    schema = json.loads(
        (ROOT / "spec" / "schemas" / "capabilities.schema.json").read_text(encoding="utf-8")
    )
    assert tuple(schema["properties"]["profiles"]["items"]["enum"]) == _constants.PROFILES
    for subset in (
        _constants.SERVER_PROFILES,
        _constants.PROXY_PROFILES,
        _constants.ASGI_PROFILES,
        _constants.ASGI_DEFAULT_PROFILES,
    ):
        assert "core" in subset
        assert set(subset) <= set(_constants.PROFILES)
