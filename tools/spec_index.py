"""Check the mixbatch specification against its requirement index.

Theory of operation
-------------------
``spec/requirements.json`` is the single list of requirement IDs; ``spec/mixbatch.md`` is the
prose that defines them. This module keeps the two honest:

1. ``check_index`` validates the index on its own: ID pattern, unique IDs, numbers in each area
   running 1..n without gaps (the index is append-only), keyword, roles and profile drawn from
   closed vocabularies, a non-empty summary and a section number.
2. ``split_blocks`` cuts the Markdown into blocks the way a reader sees them: headings,
   paragraphs, list items, table rows and fenced code. Each block remembers the numbered section
   it sits in and the line it starts on.
3. ``check_spec`` walks the blocks. A block that opens with the definition markup
   ``<a id="MB-X-1"></a>**[MB-X-1]**`` defines that ID; every BCP 14 keyword in that block must be
   the index's keyword for it. Any upper-case keyword anywhere else is an error, except in the
   one BCP 14 boilerplate paragraph of the Conventions section. Every ID mentioned must exist,
   every ``(#MB-...)`` link must land on a definition, every other ``(#...)`` link on a
   heading (slugged as Python-Markdown's toc extension does), every snippet include
   (``--8<-- "path"``) must name an existing file, and the section a definition sits in must
   match (or lie under) the section recorded in the index.

Findings are plain strings that name the line, so the same functions serve the test suite
(tests/spec/test_requirement_index.py) and the command line::

    python tools/spec_index.py            # exit status 1 and one line per finding
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "AREAS",
    "KEYWORDS",
    "PROFILES",
    "ROLES",
    "Block",
    "Definition",
    "check_index",
    "check_spec",
    "extract_definitions",
    "heading_slug",
    "load_index",
    "main",
    "split_blocks",
]

ROOT = Path(__file__).resolve().parent.parent
SPEC_PATH = ROOT / "spec" / "mixbatch.md"
INDEX_PATH = ROOT / "spec" / "requirements.json"

ID_PATTERN = re.compile(r"^MB-[A-Z]+-[0-9]+$")
AREAS = (
    "WIRE",
    "PART",
    "RESP",
    "METHOD",
    "STATUS",
    "MULTI",
    "PROC",
    "SUB",
    "LIMIT",
    "INTER",
    "PROXY",
    "PIPE",
    "SEC",
    "TEST",
)
# BCP 14 (RFC 2119, RFC 8174): only the upper-case forms carry the special meaning.
KEYWORDS = (
    "MUST",
    "MUST NOT",
    "REQUIRED",
    "SHALL",
    "SHALL NOT",
    "SHOULD",
    "SHOULD NOT",
    "RECOMMENDED",
    "NOT RECOMMENDED",
    "MAY",
    "OPTIONAL",
)
ROLES = ("client", "server", "proxy", "intermediary")
#: The capabilities schema's enum is the one list of profile names (spec §9.2); the suite and
#: the reference implementation read the same enum.
PROFILES = tuple(
    json.loads(
        (
            Path(__file__).resolve().parent.parent / "spec/schemas/capabilities.schema.json"
        ).read_text(encoding="utf-8")
    )["properties"]["profiles"]["items"]["enum"]
)

# Longest alternatives first, so "MUST NOT" is one keyword and not "MUST" followed by noise.
_KEYWORD_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(NOT RECOMMENDED|MUST NOT|SHALL NOT|SHOULD NOT|MUST|SHALL|SHOULD"
    r"|RECOMMENDED|REQUIRED|MAY|OPTIONAL)(?![A-Za-z0-9_-])"
)
_DEFINITION_RE = re.compile(r'^<a id="(?P<anchor>[^"]*)"></a>\*\*\[(?P<label>[^\]]*)\]\*\*(?=\s)')
_ANCHOR_RE = re.compile(r'<a id="(?P<anchor>MB-[^"]*)"></a>')
_LINK_RE = re.compile(r"\]\(#(?P<target>MB-[^)\s]*)\)")
_SECTION_LINK_RE = re.compile(r"\]\(#(?P<target>(?!MB-)[^)\s]+)\)")
_MENTION_RE = re.compile(r"(?<![A-Za-z0-9])MB-[A-Z]+-[0-9]+(?![0-9])")
_INCLUDE_RE = re.compile(r'^\s*--8<--\s+"(?P<path>[^"]+)"\s*$')
_HEADING_RE = re.compile(
    r"^(?P<hashes>#{1,6})\s+(?:(?P<number>\d+(?:\.\d+)*)\.?\s+)?(?P<title>.*)$"
)
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FENCE_RE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})")
# The one paragraph allowed to quote the keywords without defining a requirement.
_BOILERPLATE_START = 'The key words "MUST", "MUST NOT"'


@dataclass(frozen=True)
class Block:
    """One reader-visible unit of the Markdown source."""

    kind: str  # "heading", "paragraph", "list-item", "table-row" or "code"
    text: str
    line: int  # 1-based line where the block starts
    section: str  # number of the innermost numbered heading above it, "" before the first


@dataclass(frozen=True)
class Definition:
    """A requirement ID defined by the markup at the start of a block."""

    requirement: str
    block: Block


def load_index(path: Path = INDEX_PATH) -> dict[str, Any]:
    """Read the requirement index as parsed JSON."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def check_index(index: Mapping[str, Any]) -> list[str]:
    """Return every problem found in the index itself (an empty list when it is valid)."""
    problems: list[str] = []
    if not isinstance(index.get("spec_version"), str) or not index["spec_version"]:
        problems.append("index: spec_version must be a non-empty string")
    entries = index.get("requirements")
    if not isinstance(entries, list) or not entries:
        return [*problems, "index: requirements must be a non-empty list"]
    seen: Counter[str] = Counter()
    numbers: dict[str, list[int]] = {}
    for position, entry in enumerate(entries):
        where = f"index entry {position}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: not an object")
            continue
        rid = entry.get("id")
        if not isinstance(rid, str) or not ID_PATTERN.match(rid):
            problems.append(f"{where}: id {rid!r} does not match {ID_PATTERN.pattern}")
            continue
        where = f"index {rid}"
        seen[rid] += 1
        _, area, number = rid.split("-")
        if area not in AREAS:
            problems.append(f"{where}: area {area!r} is not one of {', '.join(AREAS)}")
        numbers.setdefault(area, []).append(int(number))
        if entry.get("keyword") not in KEYWORDS:
            problems.append(f"{where}: keyword {entry.get('keyword')!r} is not a BCP 14 keyword")
        roles = entry.get("roles")
        if not isinstance(roles, list) or not roles:
            problems.append(f"{where}: roles must be a non-empty list")
        else:
            for role in roles:
                if role not in ROLES:
                    problems.append(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
            if len(set(roles)) != len(roles):
                problems.append(f"{where}: roles repeat")
        if entry.get("profile") not in PROFILES:
            problems.append(f"{where}: profile {entry.get('profile')!r} is not a known profile")
        summary = entry.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            problems.append(f"{where}: summary must be a non-empty string")
        section = entry.get("section")
        if not isinstance(section, str) or not re.fullmatch(r"\d+(?:\.\d+)*", section):
            problems.append(f"{where}: section {section!r} is not a section number")
    for rid, count in sorted(seen.items()):
        if count > 1:
            problems.append(f"index {rid}: defined {count} times")
    for area, found in sorted(numbers.items()):
        expected = list(range(1, len(found) + 1))
        if sorted(found) != expected:
            problems.append(
                f"index area {area}: numbers {sorted(found)} do not run 1..{len(found)} "
                "without gaps (IDs are appended, never removed)"
            )
    return problems


def split_blocks(markdown: str) -> list[Block]:
    """Cut Markdown into headings, paragraphs, list items, table rows and fenced code."""
    blocks: list[Block] = []
    section = ""
    current: list[str] = []
    current_kind = ""
    current_line = 0
    fence = ""

    def flush() -> None:
        nonlocal current, current_kind
        if current:
            blocks.append(Block(current_kind, "\n".join(current), current_line, section))
        current, current_kind = [], ""

    for number, line in enumerate(markdown.splitlines(), start=1):
        if fence:
            current.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
                flush()
            continue
        fence_match = _FENCE_RE.match(line)
        if fence_match:
            flush()
            fence = fence_match.group("fence")
            current, current_kind, current_line = [line], "code", number
            continue
        if not line.strip():
            flush()
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            flush()
            if heading.group("number"):
                section = heading.group("number")
            blocks.append(Block("heading", line, number, section))
            continue
        if line.lstrip().startswith("|"):
            flush()
            blocks.append(Block("table-row", line, number, section))
            continue
        if _LIST_ITEM_RE.match(line):
            flush()
            current, current_kind, current_line = [line], "list-item", number
            continue
        if not current:
            current_kind, current_line = "paragraph", number
        current.append(line)
    flush()
    return blocks


def _strip_list_marker(text: str) -> str:
    return _LIST_ITEM_RE.sub("", text, count=1)


def extract_definitions(blocks: Iterable[Block]) -> list[Definition]:
    """Return the requirement definitions, in document order, including malformed ones.

    A block whose text (after any list marker) opens with the anchor markup is a definition;
    the anchor and the bold label must agree, which ``check_spec`` verifies.
    """
    found: list[Definition] = []
    for block in blocks:
        if block.kind not in ("paragraph", "list-item"):
            continue
        match = _DEFINITION_RE.match(_strip_list_marker(block.text))
        if match:
            found.append(Definition(match.group("anchor"), block))
    return found


def _keywords(text: str) -> list[str]:
    return _KEYWORD_RE.findall(text)


def _section_matches(actual: str, recorded: str) -> bool:
    return actual == recorded or actual.startswith(recorded + ".")


def check_spec(markdown: str, index: Mapping[str, Any], root: Path = ROOT) -> list[str]:
    """Return every disagreement between the Markdown and the index (empty when they agree)."""
    problems: list[str] = []
    entries = {
        entry["id"]: entry
        for entry in index.get("requirements", [])
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    }
    blocks = split_blocks(markdown)
    definitions = extract_definitions(blocks)
    defined: Counter[str] = Counter(d.requirement for d in definitions)
    definition_blocks = {id(d.block) for d in definitions}

    for definition in definitions:
        rid, block = definition.requirement, definition.block
        label = _DEFINITION_RE.match(_strip_list_marker(block.text))
        assert label is not None  # extract_definitions only returns matching blocks
        if label.group("label") != rid:
            problems.append(
                f"line {block.line}: anchor {rid!r} and label {label.group('label')!r} differ"
            )
        if rid not in entries:
            problems.append(f"line {block.line}: {rid} is defined but is not in the index")
            continue
        expected = entries[rid]["keyword"]
        used = _keywords(block.text)
        if expected not in used:
            problems.append(f"line {block.line}: {rid} states no {expected!r} (found {used!r})")
        stray = sorted(set(used) - {expected})
        if stray:
            problems.append(
                f"line {block.line}: {rid} is a {expected!r} requirement but its paragraph also "
                f"says {stray!r}; give each keyword its own ID"
            )
        if len(_ANCHOR_RE.findall(block.text)) > 1:
            problems.append(f"line {block.line}: more than one requirement anchor in one paragraph")
        recorded = entries[rid].get("section", "")
        if isinstance(recorded, str) and not _section_matches(block.section, recorded):
            problems.append(
                f"line {block.line}: {rid} sits in section {block.section or '(none)'} "
                f"but the index records section {recorded}"
            )

    for rid, count in sorted(defined.items()):
        if count > 1:
            problems.append(f"{rid}: defined {count} times in the Markdown")
    for rid in sorted(set(entries) - set(defined), key=_id_order):
        problems.append(f"{rid}: in the index but never defined in the Markdown")

    boilerplate_seen = False
    for block in blocks:
        if id(block) in definition_blocks:
            continue
        anchors = _ANCHOR_RE.findall(block.text)
        if anchors:
            problems.append(
                f"line {block.line}: requirement anchor {anchors[0]!r} is not at the start of "
                "its paragraph or list item"
            )
        used = _keywords(block.text)
        if not used:
            continue
        if (
            not boilerplate_seen
            and block.kind == "paragraph"
            and block.text.startswith(_BOILERPLATE_START)
        ):
            boilerplate_seen = True
            continue
        problems.append(
            f"line {block.line}: upper-case {used!r} outside a requirement definition "
            "(write non-normative text in lower case)"
        )

    slugs = {
        heading_slug(block.text.lstrip("#").strip()) for block in blocks if block.kind == "heading"
    }
    for number, line in enumerate(markdown.splitlines(), start=1):
        for target in _SECTION_LINK_RE.findall(line):
            if target not in slugs:
                problems.append(f"line {number}: link to #{target} matches no heading")
        for target in _LINK_RE.findall(line):
            if target not in defined:
                problems.append(f"line {number}: link to #{target} has no definition")
        for mention in _MENTION_RE.findall(line):
            if mention not in entries:
                problems.append(f"line {number}: {mention} is not in the index")
        include = _INCLUDE_RE.match(line)
        if include and not (root / include.group("path")).is_file():
            problems.append(
                f"line {number}: included file {include.group('path')!r} does not exist"
            )
    return problems


def heading_slug(title: str) -> str:
    """The anchor Python-Markdown's toc extension gives a heading (its default slugify)."""
    text = re.sub(r"[^\w\s-]", "", title).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _id_order(rid: str) -> tuple[int, int]:
    _, area, number = rid.split("-")
    return (AREAS.index(area) if area in AREAS else len(AREAS), int(number))


def main(argv: Sequence[str] | None = None) -> int:
    """Check the repository's spec and index; print one line per finding."""
    del argv  # no options yet; the paths are the repository's own
    index = load_index()
    problems = check_index(index) + check_spec(SPEC_PATH.read_text(encoding="utf-8"), index)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(index['requirements'])} requirements: index and spec agree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
