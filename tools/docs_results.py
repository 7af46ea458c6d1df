"""Markdown for the Results page: the implementation matrix, coverage and mutation score.

Theory of operation: like cache-tests.fyi, the matrix has one row per check and one column
per implementation (one committed report under docs/results/ each). Rows are grouped by the
requirement they verify, in index order, so a reader scanning for MB-WIRE-8 finds every check
of it together; a check that verifies several requirements appears under each. A cell shows
the verdict of that check in that report, or "not run" when the report does not include it.
Each check row carries the anchor `check-<id>` that the requirement index links to.

The coverage matrix folds the same data per requirement (the worst verdict among its checks),
and the mutation section shows docs/results/mutation.json's own numbers when it exists.
Every function returns Markdown; `base` is the path from the page's folder to the docs root
(e.g. "../" for results/index.md), so the links resolve and mkdocs can check them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from docs_sources import (
    NOT_RUN,
    CheckInfo,
    Report,
    Requirement,
    ViaScenario,
    checks_by_requirement,
    worst_verdict,
)

__all__ = [
    "check_anchor",
    "coverage_matrix",
    "fuzz_section",
    "implementation_matrix",
    "input_sweep_section",
    "mutation_section",
    "reports_overview",
    "tiers_table",
    "value_sweep_section",
    "verdict_badge",
    "via_scenarios_table",
]

_BADGE_CLASS = {
    "PASS": "pass",
    "FAIL": "fail",
    "FLAKY": "fail",
    "WARN": "warn",
    "INFO": "info",
    "N/A": "na",
    "HARNESS-ERROR": "error",
    "SETUP-ERROR": "error",
    "TIMEOUT": "error",
    NOT_RUN: "notrun",
}


def verdict_badge(verdict: str) -> str:
    """An inline badge; docs/stylesheets/mixbatch.css colours it by class."""
    css = _BADGE_CLASS.get(verdict, "notrun")
    return f'<span class="mb-verdict mb-{css}">{html.escape(verdict)}</span>'


def check_anchor(check_id: str) -> str:
    return f"check-{check_id}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def reports_overview(reports: Sequence[Report]) -> str:
    """One row per committed report: what was tested, how, and the verdict counts."""
    if not reports:
        return (
            '!!! note "No conformance results yet"\n'
            "    No report is committed under `docs/results/`, so every check below shows\n"
            "    *not run*. A run of `mixbatch conformance --report DIR` writes `DIR/report.json`;\n"
            "    committing it as `docs/results/NAME.json` adds a column to the matrix.\n"
        )
    lines = ["| Implementation | Run | Profiles tested | Verdicts |", "|---|---|---|---|"]
    for r in reports:
        h, s = r.header, r.summary
        run = (
            f"`{h['target']['base_url']}{h['target']['batch_endpoint']}`<br>"
            f"tier {h['tier']}, seed {h['seed']}, suite {h['suite_version']}, "
            f"spec {h['spec_version']}<br>started {h['started']}"
        )
        counts = " ".join(f"{verdict_badge(v)} {s[v]}" for v in _BADGE_CLASS if s.get(v))
        lines.append(
            f"| **{_cell(r.name)}**<br>`{r.key}.json` | {run} | {', '.join(h['profiles'])} | "
            f"{counts or 'no results'} |"
        )
    return "\n".join(lines) + "\n"


def tiers_table(checks: Sequence[CheckInfo], tiers: Sequence[str]) -> str:
    """How many checks each tier adds and runs in all, from the registry."""
    lines = [
        "| Tier | Checks it adds | Checks it runs | Profiles of its checks |",
        "|---|---|---|---|",
    ]
    total = 0
    for tier in tiers:
        own = [c for c in checks if c.tier == tier]
        total += len(own)
        profiles = ", ".join(sorted({c.profile for c in own})) or "none yet"
        lines.append(f"| `{tier}` | {len(own)} | {total} | {profiles} |")
    return "\n".join(lines) + "\n"


def via_scenarios_table(found: tuple[list[ViaScenario], dict[str, str]] | None) -> str:
    """The suite's intermediary scenarios, from its own registry, and what runs direct only."""
    if found is None:
        return (
            '!!! warning "Not yet available: `--via`"\n'
            "    This version of the suite has no intermediary scenarios.\n"
        )
    scenarios, direct_only = found
    lines = ["| Scenario | Kind | What the intermediary does | A correct client sees broken |"]
    lines.append("|---|---|---|---|")
    for s in scenarios:
        broken = ", ".join(s.breaks) if s.breaks else ("nothing" if s.kind == "transform" else "")
        lines.append(f"| `{s.name}` | {s.kind} | {_cell(s.summary)} | {broken} |")
    lines += ["", "Checked direct only, reported N/A through a proxy:", ""]
    lines += [f"- `{kind}`: {why}." for kind, why in direct_only.items()]
    return "\n".join(lines) + "\n"


def implementation_matrix(
    requirements: Sequence[Requirement],
    checks: Sequence[CheckInfo],
    reports: Sequence[Report],
    base: str = "",
) -> str:
    """Checks grouped by requirement (rows) against implementations (columns)."""
    by_req = checks_by_requirement(checks)
    columns = [r.name for r in reports] or ["(no report yet)"]
    head = "| Requirement | Check | Tier | " + " | ".join(_cell(c) for c in columns) + " |"
    rule = "|---|---|---|" + "---|" * len(columns)
    lines = [head, rule]
    anchored: set[str] = set()
    for req in requirements:
        for check in by_req.get(req.id, []):
            # A check verifying several requirements is listed under each; only its first
            # row carries the anchor, so that every anchor on the page is unique.
            anchor = ""
            if check.id not in anchored:
                anchor = f'<a id="{check_anchor(check.id)}"></a>'
                anchored.add(check.id)
            verdicts = [verdict_badge(r.verdict(check.id)) for r in reports] or [
                verdict_badge(NOT_RUN)
            ]
            lines.append(
                f"| [{req.id}]({base}spec.md#{req.id}) | {anchor}`{check.id}` | {check.tier} | "
                + " | ".join(verdicts)
                + " |"
            )
    return "\n".join(lines) + "\n"


def coverage_matrix(
    requirements: Sequence[Requirement],
    checks: Sequence[CheckInfo],
    reports: Sequence[Report],
    base: str = "",
) -> str:
    """Per requirement: how many checks cover it and the worst verdict in each report."""
    count: dict[str, list[str]] = {r.id: [] for r in requirements}
    for check in checks:
        for rid in check.requirements:
            count.setdefault(rid, []).append(check.id)
    covered = sum(1 for r in requirements if count[r.id])
    by_keyword: dict[str, list[int]] = {}
    for r in requirements:
        tally = by_keyword.setdefault(r.keyword, [0, 0])
        tally[0] += 1
        tally[1] += bool(count[r.id])
    lines = [
        f"{covered} of {len(requirements)} requirements are verified by at least one check; "
        f"{len(requirements) - covered} have no check yet.",
        "",
        "| Keyword | Requirements | With a check | No check yet |",
        "|---|---|---|---|",
    ]
    for keyword, (total, with_check) in sorted(by_keyword.items()):
        lines.append(f"| {keyword} | {total} | {with_check} | {total - with_check} |")
    columns = [r.name for r in reports] or ["(no report yet)"]
    lines += [
        "",
        "| Requirement | Keyword | Profile | Checks | " + " | ".join(map(_cell, columns)) + " |",
        "|---|---|---|---|" + "---|" * len(columns),
    ]
    for req in requirements:
        ids = count[req.id]
        if ids:
            cells = [verdict_badge(worst_verdict(r.verdict(c) for c in ids)) for r in reports]
        else:
            cells = ["no check yet" for _ in reports]
        cells = cells or [verdict_badge(NOT_RUN) if ids else "no check yet"]
        lines.append(
            f"| [{req.id}]({base}requirements.md#{req.id}) | {req.keyword} | {req.profile} | "
            f"{len(ids)} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return html.escape(str(value))


def mutation_section(doc: dict[str, Any] | None, base: str = "../") -> str:
    """The mutation score as mutation.json states it, or an honest "not measured yet".

    The scalar members make a summary table; the ``mutations`` list, when present, becomes one
    row per planted bug (what it breaks, with the requirement linked to the spec, whether it was
    caught, and each catching check with its verdict), uncaught plants first, so a reader sees
    the gaps before the successes."""
    if doc is None:
        return (
            '!!! note "Mutation score: not measured yet"\n'
            "    No `docs/results/mutation.json` is committed. Mutation testing runs the suite\n"
            "    against deliberately broken copies of the reference server; the score is the\n"
            "    share of those mutants the suite catches.\n"
        )
    lines = ["| Measure | Value |", "|---|---|"]
    for key, value in doc.items():
        if isinstance(value, dict | list):
            continue
        lines.append(f"| {_cell(html.escape(str(key)))} | {_cell(_number(value))} |")
    rows = doc.get("mutations")
    if isinstance(rows, list) and rows:
        lines += ["", _mutation_table(rows, base)]
    nested = [k for k, v in doc.items() if isinstance(v, dict | list) and k != "mutations"]
    if nested:
        lines += [
            "",
            "Further detail in `docs/results/mutation.json`: "
            + ", ".join(f"`{html.escape(k)}`" for k in nested)
            + ".",
        ]
    return "\n".join(lines) + "\n"


def _mutation_table(rows: list[Any], base: str) -> str:
    ordered = sorted(
        (r for r in rows if isinstance(r, dict)), key=lambda r: (bool(r.get("caught")), 0)
    )
    out = ["| Planted bug | Breaks | Caught | Caught by |", "|---|---|---|---|"]
    for row in ordered:
        breaks = str(row.get("breaks", ""))
        requirement, _, how = breaks.partition(" ")
        if requirement.startswith("MB-"):
            link = f"[{html.escape(requirement)}]({base}spec.md#{html.escape(requirement)})"
            breaks_cell = f"{link} {html.escape(how)}".strip()
        else:
            breaks_cell = html.escape(breaks)
        verdicts = row.get("verdicts") if isinstance(row.get("verdicts"), dict) else {}
        catchers = ", ".join(
            f"`{html.escape(str(check))}` {verdict_badge(str(verdict))}"
            for check, verdict in sorted(verdicts.items())
        )
        caught = verdict_badge("PASS" if row.get("caught") else "FAIL")
        out.append(
            f"| `{html.escape(str(row.get('mutation', '')))}` | {_cell(breaks_cell)} "
            f"| {caught} | {_cell(catchers or 'none')} |"
        )
    return "\n".join(out)


def value_sweep_section(doc: dict[str, Any] | None) -> str:
    """The value sweep as value-sweep.json states it: per slot and corruption, the first check
    that noticed it; the corruptions none noticed come first."""
    rows = doc.get("outcomes") if doc else None
    if not isinstance(rows, list):
        return (
            '!!! note "Value sweep: not run yet"\n'
            "    No `docs/results/value-sweep.json` is committed; `make results` writes it.\n"
        )
    noticed = sum(1 for r in rows if r.get("noticed_by"))
    allowed = sum(1 for r in rows if not r.get("noticed_by") and r.get("allowed_unjudged"))
    missed = len(rows) - noticed - allowed
    lines = [
        f"{len(rows)} corruptions of {len({r.get('slot') for r in rows})} slots: "
        f"{noticed} noticed by a check, {allowed} allowed to go unnoticed (the reason is given), "
        f"**{missed} unnoticed**.",
        "",
        "| Slot | Corruption | Checks that read it | First check that noticed |",
        "|---|---|---|---|",
    ]

    def rank(r: dict[str, Any]) -> int:
        return 2 if r.get("noticed_by") else 1 if r.get("allowed_unjudged") else 0

    for r in sorted(rows, key=rank):
        who = r.get("noticed_by")
        if who:
            cell = f"[`{html.escape(who)}`](#{check_anchor(who)})"
        elif r.get("allowed_unjudged"):
            cell = f"none needed: {_cell(str(r['allowed_unjudged']))}"
        else:
            cell = "**none**"
        lines.append(
            f"| `{html.escape(str(r.get('slot')))}` | {html.escape(str(r.get('corruption')))} "
            f"| {_number(r.get('readers'))} | {cell} |"
        )
    return "\n".join(lines) + "\n"


def _input_status(r: dict[str, Any]) -> str:
    """An input sweep outcome's status: the one it states or, in an older file, its fields'."""
    if isinstance(r.get("status"), str):
        return str(r["status"])
    if r.get("noticed_by"):
        if r.get("cited_by"):
            return "cited"
        if not r.get("spec_requirement"):
            return "noticed"
    if r.get("allowed_unswept"):
        return "allowed"
    return "uncited" if r.get("noticed_by") else "unnoticed"


def _slot_kind(slot: str) -> str:
    return slot.split(":", 1)[0].split("@", 1)[0]


def _requirement_link(requirement: object, base: str) -> str:
    if isinstance(requirement, str) and requirement.startswith("MB-"):
        ref = html.escape(requirement)
        return f"[{ref}]({base}spec.md#{ref})"
    return "none"


def _check_link(check: object) -> str:
    if not check:
        return "none"
    name = html.escape(str(check))
    return f"[`{name}`](#{check_anchor(name)})"


#: Input sweep statuses as the per-kind table counts them, in its column order.
_INPUT_COLUMNS = (
    ("cited", "Noticed under its requirement"),
    ("noticed", "Noticed, no requirement to cite"),
    ("allowed", "Allowed"),
    ("uncited", "**Noticed, not under its requirement**"),
    ("unnoticed", "**Unnoticed**"),
)


def input_sweep_section(doc: dict[str, Any] | None, base: str = "../") -> str:
    """The input sweep as input-sweep.json states it: per slot kind, how many plants were
    noticed, and noticed by a check citing the requirement the slot serves; then every plant
    unnoticed or noticed only under other requirements, the allowed ones with their reason, and
    the inputs the spec names that no check sends."""
    rows = doc.get("outcomes") if doc else None
    if not isinstance(rows, list) or doc is None:
        return (
            '!!! note "Input sweep: not run yet"\n'
            "    No `docs/results/input-sweep.json` is committed; `make results` writes it.\n"
        )
    kinds: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        kinds.setdefault(_slot_kind(str(r.get("slot"))), []).append(r)
    statuses = [_input_status(r) for r in rows]
    failing = statuses.count("uncited") + statuses.count("unnoticed")
    lines = [
        f"{len(rows)} plants of {len({r.get('slot') for r in rows})} slots: "
        f"{sum(1 for r in rows if r.get('noticed_by'))} noticed, "
        f"{statuses.count('cited')} of them by a check citing the slot's requirement; "
        f"{statuses.count('allowed')} allowed (the reason is given); "
        f"**{failing} unnoticed or noticed only under other requirements**.",
        "",
        "| Slot kind | Slots | Plants | Noticed | "
        + " | ".join(label for _, label in _INPUT_COLUMNS)
        + " |",
        "|---|" + "---|" * (3 + len(_INPUT_COLUMNS)),
    ]
    for kind, group in sorted(kinds.items()):
        counts = [_input_status(r) for r in group]
        cells = [
            str(len({r.get("slot") for r in group})),
            str(len(group)),
            str(sum(1 for r in group if r.get("noticed_by"))),
            *(str(counts.count(status)) for status, _ in _INPUT_COLUMNS),
        ]
        lines.append(f"| `{html.escape(kind)}` | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Plants unnoticed, or noticed only by checks citing other requirements:",
        "",
        "| Slot | Plant | Requirement | Senders | First check that noticed | Status |",
        "|---|---|---|---|---|---|",
    ]
    for r, status in zip(rows, statuses, strict=True):
        if status in ("uncited", "unnoticed"):
            lines.append(
                f"| `{html.escape(str(r.get('slot')))}` | {html.escape(str(r.get('plant')))} "
                f"| {_requirement_link(r.get('spec_requirement'), base)} "
                f"| {len(r.get('senders') or ())} | {_check_link(r.get('noticed_by'))} "
                f"| {status} |"
            )
    if not failing:
        lines.append("| none | | | | | |")
    lines += ["", "Plants allowed to go unnoticed:", "", "| Slot | Plant | Why |", "|---|---|---|"]
    for r, status in zip(rows, statuses, strict=True):
        if status == "allowed":
            lines.append(
                f"| `{html.escape(str(r.get('slot')))}` | {html.escape(str(r.get('plant')))} "
                f"| {_cell(html.escape(str(r.get('allowed_unswept')), quote=False))} |"
            )
    never = doc.get("never_sent")
    never_rows = never if isinstance(never, list) else []
    lines += [
        "",
        f"Inputs the spec gives a server a rule for that no check sends: {len(never_rows)}.",
        "",
        "| Input | Requirement | Rule |",
        "|---|---|---|",
    ]
    for n in never_rows:
        lines.append(
            f"| `{html.escape(str(n.get('input')))}` "
            f"| {_requirement_link(n.get('requirement'), base)} "
            f"| {_cell(html.escape(str(n.get('rule')), quote=False))} |"
        )
    if not never_rows:
        lines.append("| none | | |")
    return "\n".join(lines) + "\n"


def fuzz_section(doc: dict[str, Any] | None) -> str:
    """The socket fuzz run as fuzz.json states it: how many cases, how fast, what it found."""
    if doc is None:
        return (
            '!!! note "Socket fuzz: not run yet"\n'
            "    No `docs/results/fuzz.json` is committed; `make fuzz` writes it.\n"
        )
    shown = (
        ("cases", "cases sent to both the server and the proxy"),
        ("seed", "seed"),
        ("duration_s", "duration (s)"),
        ("cases_per_s", "cases per second"),
        ("findings_count", "findings (distinct causes)"),
        ("finding_rate", "finding rate"),
        ("memory_bound_kib", "memory bound per process (KiB)"),
    )
    lines = ["| Measure | Value |", "|---|---|"]
    for key, label in shown:
        if key in doc:
            lines.append(f"| {label} | {_cell(_number(doc[key]))} |")
    peaks = doc.get("peak_rss_kib")
    if isinstance(peaks, dict):
        for name, value in sorted(peaks.items()):
            lines.append(f"| peak RSS of {html.escape(str(name))} (KiB) | {_number(value)} |")
    findings = doc.get("findings")
    if isinstance(findings, list) and findings:
        lines += ["", f"{len(findings)} finding(s); reproducers are in `docs/results/fuzz.json`."]
    return "\n".join(lines) + "\n"
