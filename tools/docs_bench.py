"""Markdown for the Benchmarks page: the bench harness's own summary, or "not yet measured".

Theory of operation: `make bench` writes bench/results/summary.md. This module includes that
file as it is, with its headings moved one level down so that they sit under the page's
own title, followed by the plots the same run left next to it (bench/results/*.png and
*.svg, which the docs hook publishes unchanged); when the summary does not exist the page says
that nothing has been measured yet, rather than showing any figure.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["PLOTS_URI", "SUMMARY", "bench_section", "plot_files"]

SUMMARY = Path("bench") / "results" / "summary.md"
#: Where the docs hook publishes the bench plots, relative to the docs root.
PLOTS_URI = "benchmarks/plots"
_HEADING = re.compile(r"^(#{1,5}) ", re.MULTILINE)


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
    return f"*Included from `{SUMMARY.as_posix()}`.*\n\n" + "\n".join(out + section) + "\n"


def plot_files(root: Path) -> list[Path]:
    """The plot images of the last bench run, by name."""
    folder = (root / SUMMARY).parent
    return sorted(p for p in folder.glob("*") if p.suffix in (".png", ".svg") and p.is_file())
