"""The spec's profile names are written down in several places that cannot import each other:
the requirement index checker, the conformance suite (which never imports mixbatch), three
JSON schemas and the reference server. They must name the same profiles."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

from mixbatch.asgi._middleware import SUPPORTED_PROFILES
from mixbatch.server._capabilities import PROFILES as SERVER_PROFILES
from mixbatch_conformance.core.target import ALL_PROFILES

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "spec" / "schemas"
#: tools/ is a folder of scripts, not a package: run the checker's module for its constants.
INDEX_PROFILES: tuple[str, ...] = runpy.run_path(str(ROOT / "tools" / "spec_index.py"))["PROFILES"]
INDEX: dict[str, Any] = json.loads((ROOT / "spec" / "requirements.json").read_text("utf-8"))


def _enums(node: Any) -> list[list[str]]:
    """Every enum in a schema that lists "core" (the profile enums)."""
    found: list[list[str]] = []
    if isinstance(node, dict):
        enum = node.get("enum")
        if isinstance(enum, list) and "core" in enum:
            found.append(enum)
        for value in node.values():
            found += _enums(value)
    elif isinstance(node, list):
        for value in node:
            found += _enums(value)
    return found


def test_suite_and_index_checker_name_the_same_profiles() -> None:
    assert set(ALL_PROFILES) == set(INDEX_PROFILES)


def test_every_profile_enum_in_the_schemas_matches() -> None:
    for name in ("capabilities", "target", "report"):
        enums = _enums(json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8")))
        assert enums, f"{name}.schema.json lists no profiles"
        for enum in enums:
            assert set(enum) == set(INDEX_PROFILES), name


def test_every_requirement_names_a_known_profile() -> None:
    entries = INDEX["requirements"] if isinstance(INDEX, dict) else INDEX
    assert {entry["profile"] for entry in entries} <= set(INDEX_PROFILES)


def test_implementations_claim_only_known_profiles() -> None:
    assert set(SERVER_PROFILES) <= set(INDEX_PROFILES)
    assert set(SUPPORTED_PROFILES) <= set(INDEX_PROFILES)
    # The reference server offers every profile, atomic and references included.
    assert set(INDEX_PROFILES) == set(SERVER_PROFILES)
