"""How the spec's single Markdown source becomes site pages without being copied.

Theory of operation: docs/spec.md holds one snippets line that includes spec/mixbatch.md,
which in turn includes its vectors. The spec is written to be read in the repository, so a
few of its links point at repository files (`requirements.json`, `examples/`,
`schemas/NAME.schema.json`) that are not site pages. `SpecLinks` is a Markdown preprocessor
that runs right after pymdownx.snippets (priority 32) and before anything else reads the text;
on the spec page only, it

- points those repository links at the site pages that render the same files (the
  requirement index page, the vectors page, the schema pages), and
- turns each requirement label `<a id="MB-WIRE-8"></a>**[MB-WIRE-8]**` into a link to the
  requirement's row on the requirement index page, where its checks and verdicts are.

`spec_section` lifts one numbered section (e.g. "14.1") out of the spec text for pages that
show one appendix on its own (Comparison, Change log); its in-page links are pointed back at
the spec page so they keep working.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

__all__ = [
    "SPEC_PAGE",
    "SpecLinks",
    "link_requirement_labels",
    "rewrite_repo_links",
    "spec_section",
]

SPEC_PAGE = "spec.md"
_LABEL = re.compile(r'(<a id="(MB-[A-Z]+-\d+)"></a>)\*\*\[(MB-[A-Z]+-\d+)\]\*\*')
_LINK = re.compile(r"\]\((?!#|[a-z][a-z0-9+.-]*:)([^)\s]+)\)")


def _site_target(repo_link: str) -> str | None:
    """The docs page (path from the docs root) that renders a spec-relative repository path."""
    path = repo_link.partition("#")[0]
    if path == "requirements.json":
        return "requirements.md"
    if path.startswith("examples/"):
        name = posixpath.basename(path.rstrip("/"))
        vector = re.fullmatch(r"([a-z0-9-]+\.(?:request|response))\.(?:http|json)", name)
        if vector and posixpath.dirname(path) == "examples":
            return "reference/vectors.md#" + vector.group(1).replace(".", "-")
        return "reference/vectors.md"
    match = re.fullmatch(r"schemas/([a-z0-9-]+)\.schema\.json", path)
    if match:
        return f"reference/schemas/{match.group(1)}.md"
    return None


def rewrite_repo_links(text: str, base: str = "") -> str:
    """Point the spec's repository links at site pages; leave every other link alone."""

    def repl(match: re.Match[str]) -> str:
        target = _site_target(match.group(1))
        return f"]({base}{target})" if target else match.group(0)

    return _LINK.sub(repl, text)


def link_requirement_labels(text: str, base: str = "") -> str:
    """Make every requirement label a link to its row on the requirement index page."""

    def repl(match: re.Match[str]) -> str:
        anchor, rid = match.group(1), match.group(2)
        return (
            f"{anchor}**[\\[{rid}\\]]({base}requirements.md#{rid} "
            f'"Checks that verify {rid} and their latest verdict")**'
        )

    return _LABEL.sub(repl, text)


class _SpecLinksPreprocessor(Preprocessor):
    def __init__(self, md: Markdown, is_active: Callable[[], bool]) -> None:
        super().__init__(md)
        self._is_active = is_active

    def run(self, lines: list[str]) -> list[str]:
        if not self._is_active():
            return lines
        text = "\n".join(lines)
        return link_requirement_labels(rewrite_repo_links(text)).split("\n")


class SpecLinks(Extension):
    """The preprocessor as a Markdown extension; `active` is set per page by the docs hook."""

    def __init__(self) -> None:
        super().__init__()
        self.active = False

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API name)
        # Snippets runs at 32; this must see the included text, before fences are stashed (25).
        md.preprocessors.register(
            _SpecLinksPreprocessor(md, lambda: self.active), "mixbatch_spec_links", 31
        )


_HEADING = re.compile(r"^(#{1,6}) (\S+)")


def spec_section(spec_text: str, number: str, spec_page: str = SPEC_PAGE) -> str:
    """The body of section `number` (without its heading), its links aimed at the spec page.

    Raises LookupError when the spec has no such section, so a renumbered appendix stops the
    docs build instead of leaving an empty page.
    """
    lines = spec_text.split("\n")
    start = level = None
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m and m.group(2).rstrip(".") == number:
            start, level = i, len(m.group(1))
            break
    if start is None or level is None:
        raise LookupError(f"spec/mixbatch.md has no section numbered {number!r}")
    end = len(lines)
    for j in range(start + 1, len(lines)):
        m = _HEADING.match(lines[j])
        if m and len(m.group(1)) <= level:
            end = j
            break
    body = "\n".join(lines[start + 1 : end]).strip("\n")
    body = re.sub(r"\]\(#", f"]({spec_page}#", body)
    return rewrite_repo_links(body)
