"""The requirement index, read from spec/requirements.json.

Theory of operation: the spec's index is the single source of requirement IDs. The suite
never invents an ID; every check names IDs that this module can look up, and a self-test
asserts that. The severity of a failed check follows the keyword of the requirements it
verifies: MUST and MUST NOT make a failure FAIL, SHOULD and SHOULD NOT make it WARN, MAY
makes it INFO (see Severity).

The spec directory is found in this order: the MIXBATCH_SPEC_DIR environment variable, the
repository layout (conformance/ next to spec/), then the copy that the wheel ships as
mixbatch/_spec. Looking up the installed copy uses importlib metadata only, so importing
this module never imports the reference implementation.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Requirement",
    "RequirementIndex",
    "Severity",
    "load_index",
    "spec_dir",
]


class Severity(enum.Enum):
    """What a broken expectation costs, derived from the requirement keyword."""

    FAIL = "fail"
    WARN = "warn"
    INFO = "info"

    @classmethod
    def from_keyword(cls, keyword: str) -> Severity:
        table = {
            "MUST": cls.FAIL,
            "MUST NOT": cls.FAIL,
            "REQUIRED": cls.FAIL,
            "SHALL": cls.FAIL,
            "SHALL NOT": cls.FAIL,
            "SHOULD": cls.WARN,
            "SHOULD NOT": cls.WARN,
            "RECOMMENDED": cls.WARN,
            "MAY": cls.INFO,
            "OPTIONAL": cls.INFO,
        }
        try:
            return table[keyword.upper()]
        except KeyError:
            raise ValueError(f"unknown requirement keyword {keyword!r}") from None

    @property
    def rank(self) -> int:
        return {"fail": 2, "warn": 1, "info": 0}[self.value]


@dataclass(frozen=True)
class Requirement:
    """One entry of the index."""

    id: str
    keyword: str
    roles: tuple[str, ...]
    section: str
    profile: str
    summary: str

    @property
    def severity(self) -> Severity:
        return Severity.from_keyword(self.keyword)


@dataclass(frozen=True)
class RequirementIndex:
    """The index as loaded: spec version plus requirements by ID, in file order."""

    spec_version: str
    requirements: tuple[Requirement, ...]

    def __contains__(self, rid: object) -> bool:
        return any(r.id == rid for r in self.requirements)

    def get(self, rid: str) -> Requirement:
        for r in self.requirements:
            if r.id == rid:
                return r
        raise KeyError(f"requirement {rid!r} is not in spec/requirements.json")

    def for_role(self, role: str) -> tuple[Requirement, ...]:
        return tuple(r for r in self.requirements if role in r.roles)


def spec_dir() -> Path:
    """Where spec/ lives (see the module docstring for the search order)."""
    env = os.environ.get("MIXBATCH_SPEC_DIR")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[3] / "spec"
    if (repo / "requirements.json").is_file():
        return repo
    found = importlib.util.find_spec("mixbatch")
    if found is not None and found.submodule_search_locations:
        for location in found.submodule_search_locations:
            shipped = Path(location) / "_spec"
            if (shipped / "requirements.json").is_file():
                return shipped
    return repo


@functools.cache
def load_index(path: Path | None = None) -> RequirementIndex:
    """Read the requirement index (cached; pass a path to read another file)."""
    source = path if path is not None else spec_dir() / "requirements.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    reqs = tuple(
        Requirement(
            id=item["id"],
            keyword=item["keyword"],
            roles=tuple(item.get("roles", ())),
            section=str(item.get("section", "")),
            profile=item.get("profile", "core"),
            summary=item.get("summary", ""),
        )
        for item in data["requirements"]
    )
    return RequirementIndex(
        spec_version=str(data.get("spec_version", "unknown")), requirements=reqs
    )
