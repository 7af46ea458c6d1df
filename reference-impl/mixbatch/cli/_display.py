"""Showing batch parts and faults to a person: used by ``send`` and ``inspect``.

Text content is shown as text (cut at a configurable length); anything else is summarised by its
size, so a binary body never garbles a terminal. Faults are shown with their requirement ID, the
requirement's summary from spec/requirements.json when it can be found, and the offending bytes
around the offset.
"""

from __future__ import annotations

import json
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import TextIO

from mixbatch.codec import MixbatchError

__all__ = ["format_body", "print_fault", "print_part", "requirement_summary"]

#: Octets shown either side of a fault's offset.
CONTEXT_OCTETS = 24


def _phrase(status: int | None) -> str:
    if status is None:
        return ""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def format_body(body: bytes, max_chars: int) -> str:
    """The body as text when it is printable UTF-8, else a one-line summary."""
    if not body:
        return "(no content)"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return f"({len(body)} octets of binary content)"
    if any(ch < " " and ch not in "\t\r\n" for ch in text):
        return f"({len(body)} octets of binary content)"
    if len(text) > max_chars:
        return text[:max_chars] + f"... ({len(body)} octets in all)"
    return text


def print_part(
    out: TextIO,
    index: int,
    status: int | None,
    outcome: str | None,
    content_id: str | None,
    fields: list[tuple[str, str]],
    body: bytes,
    *,
    max_chars: int,
) -> None:
    label = f"{status} {_phrase(status)}".strip() if status is not None else "-"
    if outcome is not None:
        label += f" [{outcome}]"
    target = f"<{content_id}>" if content_id is not None else ""
    print(f"part {index}  {label}  {target}".rstrip(), file=out)
    for name, value in fields:
        print(f"  {name}: {value}", file=out)
    print("", file=out)
    for line in format_body(body, max_chars).splitlines() or [""]:
        print(f"  {line}", file=out)
    print("", file=out)


@cache
def _requirements() -> dict[str, str]:
    here = Path(__file__).resolve()
    candidates = [here.parents[1] / "_spec" / "requirements.json"]
    candidates += [parent / "spec" / "requirements.json" for parent in here.parents]
    for path in candidates:
        if path.is_file():
            try:
                document = json.loads(path.read_text("utf-8"))
                return {r["id"]: r["summary"] for r in document["requirements"]}
            except (OSError, ValueError, KeyError, TypeError):
                return {}
    return {}


def requirement_summary(requirement: str) -> str | None:
    """The one-line summary of a requirement ID, if spec/requirements.json is at hand."""
    return _requirements().get(requirement)


def print_fault(out: TextIO, error: MixbatchError, data: bytes, base: int = 0) -> None:
    """Explain ``error`` found in ``data`` (whose first octet is content offset ``base``)."""
    status = f"{error.status_hint} {_phrase(error.status_hint)}".strip()
    print(f"FAULT {error.requirement} ({status}): {error.title}", file=out)
    print(f"  {error.detail}", file=out)
    where = []
    if error.part_index is not None:
        where.append(f"part {error.part_index}")
    if error.offset is not None:
        where.append(f"byte offset {error.offset}")
    if where:
        print(f"  at {', '.join(where)}", file=out)
    summary = requirement_summary(error.requirement)
    if summary:
        print(f"  {error.requirement}: {summary}", file=out)
    if error.offset is not None:
        at = error.offset - base
        before = data[max(0, at - CONTEXT_OCTETS) : at]
        after = data[at : at + CONTEXT_OCTETS]
        print(f"  bytes: {before!r} >>> {after!r}", file=out)
