"""Markdown for the Benchmarks page: the bench harness's own summary, or "not yet measured".

Theory of operation: `make bench` writes bench/results/summary.md. This module includes that
file as it is, with its headings moved one level down so that they sit under the page's
own title, followed by the plots the same run left next to it (bench/results/*.png and
*.svg, which the docs hook publishes unchanged); when the summary does not exist the page says
that nothing has been measured yet, rather than showing any figure.

A summary written before the scenarios were named for what they measure (its results.json keys
them A-F) carries figures that the harness no longer produces; the page puts a warning above
it naming, for each such scenario present, what its figure measured and what replaced it
(``EARLIER_CAVEATS``). The next full run drops the warning by itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = [
    "EARLIER_CAVEATS",
    "PLOTS_URI",
    "SUMMARY",
    "bench_section",
    "earlier_caveats",
    "plot_files",
]

SUMMARY = Path("bench") / "results" / "summary.md"
#: Where the docs hook publishes the bench plots, relative to the docs root.
PLOTS_URI = "benchmarks/plots"
_HEADING = re.compile(r"^(#{1,5}) ", re.MULTILINE)

#: What a scenario of the lettered harness measured, where it differs from what the name says.
EARLIER_CAVEATS = {
    "A": "**A** (now `methods_vs_floor`): its floor was a sum of RTT, transfer and server CPU, "
    "so a method that overlaps them came in under it (batch at 0.78x). The floor is now one "
    "RTT + max(transfer, CPU), and a target fails the run if any method comes in under it.",
    "B": "**B** (now `http2_vs_batch`): its HTTP/2 side was httpx, a pure-Python HTTP/2 "
    "client, against hypercorn, a Python server, while the batch used the lean client and the "
    "reference server: the 42x measures Python's HTTP/2 stack, not HTTP/2. The scenario now "
    "drives both sides with C clients (h2load, curl) and adds nginx; against nginx at 2 ms "
    "RTT a batch of 500 is slower than HTTP/2 multiplexing.",
    "F": "**F** (now `batching_proxy`): its links had no bandwidth cap, unlike the thesis' 3G "
    "example (300 ms, 1 Mb/s). The scenario now runs on that link shape, with direct "
    "pipelining beside the proxied batch.",
}


def bench_section(root: Path) -> str:
    """The summary with demoted headings, or a note that there is none yet."""
    path = root / SUMMARY
    if not path.is_file():
        return (
            '!!! note "Not yet measured"\n'
            f"    `{SUMMARY.as_posix()}` does not exist in this checkout: no benchmark has been\n"
            "    run and committed, so this page shows no figures. `make bench` runs the\n"
            "    benchmarks and writes the summary.\n"
        )
    text = path.read_text(encoding="utf-8")
    # The fence state matters: a '#' line inside a code block is not a heading.
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        out.append(line if fenced else _HEADING.sub(r"#\1 ", line))
    plots = [
        f"![{p.stem}]({PLOTS_URI}/{p.name})" for p in plot_files(root)
    ]  # the page is docs/benchmarks.md, so these paths are relative to the docs root
    section = ["", "## Plots", "", *plots] if plots else []
    caveats = earlier_caveats(root)
    warning = ""
    if caveats:
        body = "\n\n    ".join(caveats)
        warning = (
            '!!! warning "Measured by an earlier harness"\n'
            "    This run predates the scenarios as they stand, and some of its figures\n"
            "    measured something other than their title says:\n\n"
            f"    {body}\n\n"
        )
    return (
        warning + f"*Included from `{SUMMARY.as_posix()}`.*\n\n" + "\n".join(out + section) + "\n"
    )


def earlier_caveats(root: Path) -> list[str]:
    """The caveats for the lettered scenarios in the published results.json, in order."""
    path = (root / SUMMARY).parent / "results.json"
    try:
        scenarios = json.loads(path.read_text(encoding="utf-8")).get("scenarios", {})
    except (OSError, ValueError, AttributeError):
        return []
    return [text for key, text in EARLIER_CAVEATS.items() if key in scenarios]


def plot_files(root: Path) -> list[Path]:
    """The plot images of the last bench run, by name."""
    folder = (root / SUMMARY).parent
    return sorted(p for p in folder.glob("*") if p.suffix in (".png", ".svg") and p.is_file())
