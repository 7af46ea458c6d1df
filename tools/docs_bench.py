"""Markdown for the Benchmarks page: the bench harness's own summary, or "not yet measured".

Theory of operation: `make bench` writes bench/results/summary.md. This module includes that
file as it is, with its headings moved one level down so that they sit under the page's
own title; when the file does not exist the page says that nothing has been measured yet,
rather than showing any figure.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SUMMARY", "bench_section"]

SUMMARY = Path("bench") / "results" / "summary.md"
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
    return f"*Included from `{SUMMARY.as_posix()}`.*\n\n" + "\n".join(out) + "\n"
