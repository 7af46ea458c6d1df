"""Showing batch parts and faults: as text for a person, or as JSON lines for a program.

Text content is shown as text (cut at a configurable length); anything else is summarised by its
size, so a binary body never garbles a terminal. Faults are shown with their requirement ID, the
requirement's summary from spec/requirements.json when it can be found, and the offending bytes
around the offset.

``send`` writes through an ``Output``: ``HumanOutput`` prints the text form, ``JsonOutput`` one
JSON object per line, flushed as each part ends, so a consumer can act on part 0 while part 1 is
still on its way. A JSON body follows the spec's own JSON rule (MB-MULTI-7): ``body`` when the
octets are valid UTF-8, else ``body_base64``, never both.
"""

from __future__ import annotations

import base64
import json
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol, TextIO

from mixbatch import requirement_index
from mixbatch.codec import IncompleteBatch, MixbatchError

__all__ = [
    "HumanOutput",
    "JsonOutput",
    "Output",
    "PartView",
    "exit_status_epilog",
    "format_body",
    "print_fault",
    "print_part",
    "requirement_summary",
]

#: Columns of the exit-status table in --help (argparse does not wrap a raw epilog).
_EPILOG_WIDTH = 79
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


def _requirements() -> dict[str, str]:
    try:
        return {r["id"]: r["summary"] for r in requirement_index().get("requirements", ())}
    except (KeyError, TypeError):
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


def exit_status_epilog(statuses: Mapping[int, str]) -> str:
    """The ``exit status:`` block of a command's ``--help``, one status a line."""
    lines = ["exit status:"]
    for status, meaning in sorted(statuses.items()):
        lines += textwrap.wrap(
            meaning,
            width=_EPILOG_WIDTH,
            initial_indent=f"  {status:<4} ",
            subsequent_indent=" " * 7,
        )
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class PartView:
    """One response part as ``send`` shows it."""

    index: int
    status: int | None
    outcome: str | None
    content_id: str | None
    fields: list[tuple[str, str]]
    body: bytes


class Output(Protocol):
    """Where ``send`` reports the response: its head, each part, other content, faults, end."""

    def head(self, status: int, reason: str, fields: list[tuple[str, str]]) -> None: ...
    def part(self, part: PartView) -> None: ...
    def content(self, body: bytes) -> None: ...
    def fault(self, error: Exception) -> None: ...
    def end(self, trailers: list[tuple[str, str]], exit_status: int) -> None: ...


class HumanOutput:
    """The text form: status line and fields, each part, trailers, faults."""

    def __init__(self, out: TextIO, max_chars: int) -> None:
        self._out = out
        self._max_chars = max_chars

    def head(self, status: int, reason: str, fields: list[tuple[str, str]]) -> None:
        print(f"HTTP/1.1 {status} {reason}", file=self._out)
        for name, value in fields:
            print(f"{name}: {value}", file=self._out)
        print("", file=self._out)

    def part(self, part: PartView) -> None:
        print_part(
            self._out,
            part.index,
            part.status,
            part.outcome,
            part.content_id,
            part.fields,
            part.body,
            max_chars=self._max_chars,
        )
        self._out.flush()

    def content(self, body: bytes) -> None:
        print(format_body(body, 1 << 30), file=self._out)

    def fault(self, error: Exception) -> None:
        if isinstance(error, IncompleteBatch):
            print("INCOMPLETE: the response ended without the close delimiter", file=self._out)
        if isinstance(error, MixbatchError):
            print_fault(self._out, error, b"")
        else:
            print(f"FAULT: {error}", file=self._out)

    def end(self, trailers: list[tuple[str, str]], exit_status: int) -> None:
        for name, value in trailers:
            print(f"(trailer) {name}: {value}", file=self._out)


def _body_member(body: bytes) -> dict[str, str]:
    try:
        return {"body": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(body).decode("ascii")}


class JsonOutput:
    """One JSON object per line, each with a ``kind``: ``response`` (status, reason, headers),
    ``part`` (index, status, outcome, content_id, headers, body or body_base64), ``content``
    (a response that is not multipart: its body), ``fault`` (requirement, title, detail,
    status_hint, part_index, offset, incomplete) and last ``end`` (trailers, exit_status).
    Header fields are ``[name, value]`` pairs in the order received."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def _write(self, document: dict[str, Any]) -> None:
        self._out.write(json.dumps(document, ensure_ascii=False) + "\n")
        self._out.flush()

    def head(self, status: int, reason: str, fields: list[tuple[str, str]]) -> None:
        self._write({"kind": "response", "status": status, "reason": reason, "headers": fields})

    def part(self, part: PartView) -> None:
        self._write(
            {
                "kind": "part",
                "index": part.index,
                "status": part.status,
                "outcome": part.outcome,
                "content_id": part.content_id,
                "headers": part.fields,
                **_body_member(part.body),
            }
        )

    def content(self, body: bytes) -> None:
        self._write({"kind": "content", **_body_member(body)})

    def fault(self, error: Exception) -> None:
        document: dict[str, Any] = {
            "kind": "fault",
            "requirement": getattr(error, "requirement", None),
            "incomplete": isinstance(error, IncompleteBatch),
        }
        if isinstance(error, MixbatchError):
            document |= {
                "title": error.title,
                "detail": error.detail,
                "status_hint": error.status_hint,
                "part_index": error.part_index,
                "offset": error.offset,
            }
        else:
            document["detail"] = str(error)
        self._write(document)

    def end(self, trailers: list[tuple[str, str]], exit_status: int) -> None:
        self._write({"kind": "end", "trailers": trailers, "exit_status": exit_status})
