"""griffe extension: show doctest examples in docstrings as Python console code blocks.

Theory of operation: a docstring may carry a doctest (`>>> expr` followed by its output)
outside a Google-style "Examples:" section. Rendered as Markdown, `>>>` starts three nested
block quotes and the output `['GET', 'POST']` reads as a reference link, which mkdocs-autorefs
then reports as broken. This extension wraps each such run of lines, from its first `>>>` line
to the next blank line, in a ```` ```pycon ```` fence before mkdocstrings renders the
docstring. Lines already inside a fence, and docstrings with an "Examples:" section (which
griffe renders as code itself), are left alone, so the change is idempotent; the docstring in
the source is never modified, only griffe's in-memory copy.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["FenceDoctests", "fence_doctests"]

# The Google style's own examples section already renders doctests as code.
_EXAMPLES_SECTION = re.compile(r"^\s*Examples?:\s*$", re.MULTILINE)


def fence_doctests(text: str) -> str:
    """`text` with every unfenced doctest block wrapped in a pycon code fence."""
    if _EXAMPLES_SECTION.search(text):
        return text
    out: list[str] = []
    in_fence = in_doctest = False
    indent = ""
    for line in text.split("\n"):
        stripped = line.lstrip()
        if in_doctest and not stripped:
            out.append(f"{indent}```")
            in_doctest = False
        if not in_doctest and stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and not in_doctest and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            in_doctest = True
        out.append(line)
    if in_doctest:
        out.append(f"{indent}```")
    return "\n".join(out)


class FenceDoctests(griffe.Extension):
    """Applies `fence_doctests` to the docstring of every object griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
