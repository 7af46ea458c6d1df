"""The facts the docs site is generated from, read from their single sources.

Theory of operation: every generated table on the site comes from one of three places, and
this module is the only code that reads them.

- The requirement index, spec/requirements.json (IDs, keywords, roles, profiles, summaries).
- The suite's catalog (`mixbatch_conformance.checks.all_checks`): which checks exist and
  which requirement IDs each one verifies. The registry is imported, never parsed, so a check
  added to the suite appears on the site at the next build.
- Conformance reports committed under docs/results/*.json, each one `--report DIR`'s
  report.json from one implementation, validated against spec/schemas/report.schema.json
  before use. A report that does not validate stops the build: the site never shows results
  it cannot vouch for. mutation.json in the same folder is the suite's mutation score, not a
  report, and is read separately.

Nothing here invents a result. A check that no report mentions is "not run"; a requirement
no check names is "no check yet".
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MUTATION_FILE",
    "NOT_RUN",
    "REFERENCE_REPORT",
    "ROOT",
    "VERDICT_ORDER",
    "CheckInfo",
    "Report",
    "Requirement",
    "ViaScenario",
    "checks_by_requirement",
    "load_checks",
    "load_input_sweep",
    "load_mutation",
    "load_reports",
    "load_requirements",
    "load_tiers",
    "load_via_scenarios",
    "worst_verdict",
]

ROOT = Path(__file__).resolve().parent.parent
# The suite and the reference implementation are read from this checkout, whatever is installed.
for _sub in ("conformance", "reference-impl"):
    if str(ROOT / _sub) not in sys.path:
        sys.path.insert(0, str(ROOT / _sub))

from mixbatch_conformance.core.requirements import Requirement, load_index  # noqa: E402

RESULTS_DIR = ROOT / "docs" / "results"
#: The report the requirement index shows as "latest verdict": the reference server's run.
REFERENCE_REPORT = "reference"
MUTATION_FILE = "mutation.json"
#: The socket fuzz run's summary (make fuzz), not a conformance report.
FUZZ_FILE = "fuzz.json"
#: The value sweep's outcomes (make results), not a conformance report.
VALUE_SWEEP_FILE = "value-sweep.json"
#: The input sweep's outcomes (make results), not a conformance report.
INPUT_SWEEP_FILE = "input-sweep.json"
#: Files under docs/results/ that are not conformance reports.
NOT_REPORTS = frozenset({MUTATION_FILE, FUZZ_FILE, VALUE_SWEEP_FILE, INPUT_SWEEP_FILE})
NOT_RUN = "not run"
#: From worst to best: the verdict a requirement gets is the worst among its checks'.
VERDICT_ORDER = (
    "FAIL",
    "FLAKY",
    "HARNESS-ERROR",
    "SETUP-ERROR",
    "TIMEOUT",
    "WARN",
    "INFO",
    "PASS",
    "N/A",
    NOT_RUN,
)


@dataclass(frozen=True)
class CheckInfo:
    """What the docs need to know about one registered check."""

    id: str
    requirements: tuple[str, ...]
    profile: str
    tier: str
    description: str


@dataclass(frozen=True)
class ViaScenario:
    """One intermediary scenario of the suite's `--via` option."""

    name: str
    kind: str
    summary: str
    breaks: tuple[str, ...]
    tls: bool


@dataclass(frozen=True)
class Report:
    """One committed conformance report: one column of the implementation matrix."""

    key: str
    name: str
    header: dict[str, Any]
    summary: dict[str, int]
    results: dict[str, dict[str, Any]]

    def verdict(self, check_id: str) -> str:
        """The check's verdict in this run, or NOT_RUN when the run did not include it."""
        result = self.results.get(check_id)
        return str(result["verdict"]) if result else NOT_RUN


def load_requirements(root: Path = ROOT) -> tuple[str, list[Requirement]]:
    """The spec version and every requirement, in index order (the suite's own reader)."""
    index = load_index(root / "spec" / "requirements.json")
    return index.spec_version, list(index.requirements)


def _import_suite(root: Path) -> None:
    for sub in ("conformance", "reference-impl"):
        path = str(root / sub)
        if path not in sys.path:
            sys.path.insert(0, path)


def checks_by_requirement(checks: Iterable[CheckInfo]) -> dict[str, list[CheckInfo]]:
    """The checks that verify each requirement ID, in the checks' order."""
    by_req: dict[str, list[CheckInfo]] = {}
    for check in checks:
        for rid in check.requirements:
            by_req.setdefault(rid, []).append(check)
    return by_req


def load_tiers(root: Path = ROOT) -> tuple[str, ...]:
    """The suite's tiers, shallowest first."""
    _import_suite(root)
    from mixbatch_conformance.core.settings import TIERS

    return tuple(TIERS)


def load_checks(root: Path = ROOT) -> list[CheckInfo]:
    """Every check the suite registers, in the catalog's own order (tier, then id)."""
    _import_suite(root)
    from mixbatch_conformance.checks import all_checks

    return [
        CheckInfo(
            id=c.id,
            requirements=tuple(c.requirements),
            profile=c.profile,
            tier=c.tier,
            description=c.description,
        )
        for c in all_checks()
    ]


def load_via_scenarios(
    root: Path = ROOT,
) -> tuple[list[ViaScenario], dict[str, str]] | None:
    """The `--via` scenarios and the checks that run direct only (id -> why), or None
    without that feature."""
    _import_suite(root)
    import importlib.util

    if importlib.util.find_spec("mixbatch_conformance.intermediaries") is None:
        return None
    from mixbatch_conformance import intermediaries
    from mixbatch_conformance.checks import all_checks

    scenarios = [
        ViaScenario(s.name, s.kind, s.summary, tuple(s.breaks), bool(s.tls))
        for s in intermediaries.SCENARIOS.values()
    ]
    direct_only = {c.id: c.direct_only for c in all_checks() if c.direct_only is not None}
    return scenarios, direct_only


def _validate_report(doc: Any, path: Path, root: Path) -> None:
    import jsonschema

    schema = json.loads((root / "spec" / "schemas" / "report.schema.json").read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        raise ValueError(
            f"{path}: not a valid conformance report at {where}: {first.message} "
            f"({len(errors)} error(s); see spec/schemas/report.schema.json)"
        )


def load_reports(results_dir: Path = RESULTS_DIR, root: Path = ROOT) -> list[Report]:
    """Every committed report, the reference server's first, then by file name."""
    reports = []
    paths = sorted(p for p in results_dir.glob("*.json") if p.name not in NOT_REPORTS)
    for path in paths:
        doc = json.loads(path.read_text(encoding="utf-8"))
        _validate_report(doc, path, root)
        target = doc["header"]["target"]
        reports.append(
            Report(
                key=path.stem,
                name=str(target.get("name") or path.stem),
                header=doc["header"],
                summary=doc["summary"],
                results={r["check_id"]: r for r in doc["results"]},
            )
        )
    reports.sort(key=lambda r: (r.key != REFERENCE_REPORT, r.key))
    return reports


def load_mutation(results_dir: Path = RESULTS_DIR) -> dict[str, Any] | None:
    """The suite's mutation-testing result, or None when none is committed."""
    return _load_object(results_dir / MUTATION_FILE)


def load_value_sweep(results_dir: Path = RESULTS_DIR) -> dict[str, Any] | None:
    """The value sweep's outcomes, or None when none is committed."""
    return _load_object(results_dir / VALUE_SWEEP_FILE)


def load_input_sweep(results_dir: Path = RESULTS_DIR) -> dict[str, Any] | None:
    """The input sweep's outcomes, or None when none is committed."""
    return _load_object(results_dir / INPUT_SWEEP_FILE)


def load_fuzz(results_dir: Path = RESULTS_DIR) -> dict[str, Any] | None:
    """The socket fuzz run's summary, or None when none is committed."""
    return _load_object(results_dir / FUZZ_FILE)


def _load_object(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(doc).__name__}")
    return doc


def worst_verdict(verdicts: Iterable[str]) -> str:
    """The worst of several verdicts (VERDICT_ORDER); NOT_RUN when there are none."""
    ranked = [v for v in verdicts if v in VERDICT_ORDER]
    if not ranked:
        return NOT_RUN
    return min(ranked, key=VERDICT_ORDER.index)
