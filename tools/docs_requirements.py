"""Markdown for the requirement index page: every ID, its checks and their latest verdict.

Theory of operation: one table row per entry of spec/requirements.json, in index order. The
row's anchor is the requirement ID itself, so `requirements.md#MB-WIRE-8` lands on the row,
and the ID links back to the same anchor in the spec, where the requirement is defined. The
checks column lists every registered check that names the ID, each linked to its row in the
results matrix and followed by its verdict in the reference server's committed report
(docs/results/reference.json), or "not run" when there is none. A requirement no check names
says "no check yet". Run as a script to print the page body.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from docs_results import check_anchor, verdict_badge
from docs_sources import (
    REFERENCE_REPORT,
    CheckInfo,
    Report,
    Requirement,
    checks_by_requirement,
    load_checks,
    load_reports,
    load_requirements,
)

__all__ = ["requirements_table"]


def _summary_line(
    requirements: Sequence[Requirement], by_req: dict[str, list[CheckInfo]], ref: Report | None
) -> str:
    covered = sum(1 for r in requirements if by_req.get(r.id))
    where = (
        f"latest verdicts from the committed report of **{ref.name}** "
        f"(`docs/results/{ref.key}.json`, tier {ref.header['tier']}, started "
        f"{ref.header['started']})"
        if ref
        else "no reference report is committed yet (`docs/results/reference.json`), so every "
        "check shows *not run*"
    )
    return (
        f"{len(requirements)} requirements; {covered} verified by at least one check, "
        f"{len(requirements) - covered} with no check yet; {where}."
    )


def requirements_table(
    requirements: Sequence[Requirement],
    checks: Sequence[CheckInfo],
    reports: Sequence[Report],
    base: str = "",
) -> str:
    """The page body: a summary line and the table."""
    by_req = checks_by_requirement(checks)
    ref = next((r for r in reports if r.key == REFERENCE_REPORT), None)
    lines = [
        _summary_line(requirements, by_req, ref),
        "",
        "| ID | Keyword | Roles | Profile | Summary | Checks and latest verdict |",
        "|---|---|---|---|---|---|",
    ]
    for req in requirements:
        covering = by_req.get(req.id, [])
        if covering:
            # The badge first, so that the verdicts line up whatever the check ids' lengths.
            cell = "<br>".join(
                verdict_badge(ref.verdict(c.id) if ref else "not run")
                + f" [`{c.id}`]({base}results/index.md#{check_anchor(c.id)})"
                for c in covering
            )
        else:
            cell = '<span class="mb-nocheck">no check yet</span>'
        summary = req.summary.replace("|", "\\|")
        lines.append(
            f'| <a id="{req.id}"></a>[{req.id}]({base}spec.md#{req.id}) | {req.keyword} | '
            f"{', '.join(req.roles)} | {req.profile} | {summary} | {cell} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    _, requirements = load_requirements()
    sys.stdout.write(requirements_table(requirements, load_checks(), load_reports()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
