"""Hop blame: which checks fail only through an intermediary, and what the hop did to them.

Theory of operation: the suite runs once direct and once through a hop with the same seed.
``blame(direct, hop)`` compares the two reports check by check. A check that fails through
the hop and did not fail direct is the hop's doing, whatever requirement its message names
(a Host rewritten on the way in makes the server answer 400, which the check reports under
MB-STATUS-1; the server is not at fault). A check that fails both ways is the server's. For
each check blamed on the hop, the bytes on both sides of the hop are put side by side where
they were recorded: the client side is the hop report's case (``request-N.http``,
``response-N.http``), the origin side the recording tap between hop and origin (``hop.json``
names its folders; ``conn-N.up`` is what the origin received, ``conn-N.down`` what it sent).
The request is found there by its content, and the header fields the hop added, removed or
changed in each direction are listed.

``write_hop_blame(folder)`` is the report writer's one call: when ``folder`` holds a
``hop.json`` (written by the real-intermediary runner) naming the direct run's folder, it
writes ``hop-blame.json`` and ``hop-blame.md`` beside the report and copies the origin-side
octets into each blamed case's folder (``origin-N.up``, ``origin-N.down``). Otherwise it does
nothing.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mixbatch_conformance.transport.http import ResponseError, read_response

__all__ = ["BAD_VERDICTS", "Blame", "HopBlame", "blame", "write_hop_blame"]

#: Verdicts that count as failing (a WARN is a SHOULD, and counted separately).
BAD_VERDICTS = frozenset({"FAIL", "FLAKY", "TIMEOUT", "SETUP-ERROR", "HARNESS-ERROR"})
#: Octets of one origin-side message kept in a case folder.
MAX_SAVED_BYTES = 1 << 20
#: Fields that differ on every message, or per connection, and say nothing about a batch.
VOLATILE = frozenset({"date", "age", "x-request-id", "request-id", "connection", "keep-alive"})
_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*([0-9]+)[ \t]*\r?$")
_CHUNKED = re.compile(rb"(?im)^transfer-encoding:[^\r\n]*chunked[ \t]*\r?$")


@dataclass
class FieldChange:
    """One header field as it was on one side of the hop and on the other."""

    name: str
    before: list[str]
    after: list[str]


@dataclass
class Side:
    """One exchange of a blamed check: its client-side files and, when found, the origin's."""

    request: str
    response: str | None = None
    origin_received: str | None = None
    origin_sent: str | None = None


@dataclass
class Blame:
    """One check that failed through the hop: what it found and what the hop did."""

    check_id: str
    direct: str
    through: str
    message: str
    requirements: list[str]
    #: Case files (relative to the hop report) on the client side and on the origin side.
    exchanges: list[Side] = field(default_factory=list)
    #: Fields the hop changed in the request (client -> origin) and response (origin -> client).
    request_changes: list[FieldChange] = field(default_factory=list)
    response_changes: list[FieldChange] = field(default_factory=list)


@dataclass
class HopBlame:
    intermediary: str
    variant: str
    version: str
    #: Checks that failed through the hop but not direct: the hop's doing.
    blamed: list[Blame] = field(default_factory=list)
    #: Checks that failed both ways: the server's doing, not the hop's.
    both: list[str] = field(default_factory=list)
    #: Checks that failed direct and passed through the hop (the hop hid a failure).
    hidden: list[str] = field(default_factory=list)
    #: Checks that ran direct but not through the hop (direct only, or N/A there).
    not_through: list[str] = field(default_factory=list)
    #: Checks the direct run does not have (a changed selection): nothing to compare with.
    not_direct: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["check_id"]: r for r in report.get("results", [])}


def blame(
    direct: dict[str, Any], hop: dict[str, Any], intermediary: str, variant: str, version: str = ""
) -> HopBlame:
    """Compare two report.json documents of the same seed, check by check."""
    out = HopBlame(intermediary, variant, version)
    before, after = _verdicts(direct), _verdicts(hop)
    for check_id, result in sorted(after.items()):
        if check_id not in before:
            out.not_direct.append(check_id)
            continue
        was = before[check_id]["verdict"]
        now = result["verdict"]
        if now in BAD_VERDICTS and was not in BAD_VERDICTS:
            out.blamed.append(
                Blame(
                    check_id,
                    was,
                    now,
                    result.get("message", ""),
                    list(result.get("requirements", [])),
                )
            )
        elif now in BAD_VERDICTS:
            out.both.append(check_id)
        elif was in BAD_VERDICTS and now != "N/A":
            out.hidden.append(check_id)
        elif now == "N/A" and was != "N/A":
            out.not_through.append(check_id)
    return out


# -- the bytes on both sides ---------------------------------------------------------------


def _head_fields(message: bytes) -> dict[str, list[str]]:
    head = message.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    fields: dict[str, list[str]] = {}
    for line in head.split("\r\n")[1:]:
        name, sep, value = line.partition(":")
        if sep:
            fields.setdefault(name.strip().lower(), []).append(value.strip())
    return fields


def _changes(before: bytes, after: bytes) -> list[FieldChange]:
    a, b = _head_fields(before), _head_fields(after)
    return [
        FieldChange(name, a.get(name, []), b.get(name, []))
        for name in sorted(set(a) | set(b))
        if name not in VOLATILE and a.get(name, []) != b.get(name, [])
    ]


def _requests(stream: bytes) -> list[bytes]:
    """The requests one recorded connection carried, split by their own framing (RFC 9112
    §6.3: Content-Length, or chunked up to the last chunk and the trailer section)."""
    out: list[bytes] = []
    at = 0
    while at < len(stream):
        head_end = stream.find(b"\r\n\r\n", at)
        if head_end < 0:
            out.append(stream[at:])
            break
        head = stream[at : head_end + 4]
        end = head_end + 4
        if _CHUNKED.search(head):
            last = stream.find(b"\r\n0\r\n", head_end)
            trailer_end = stream.find(b"\r\n\r\n", last + 2) if last >= 0 else -1
            end = trailer_end + 4 if trailer_end >= 0 else len(stream)
        elif m := _LENGTH.search(head):
            end += int(m.group(1))
        out.append(stream[at:end][:MAX_SAVED_BYTES])
        at = end
    return out


def _responses(stream: bytes, requests: list[bytes]) -> list[bytes]:
    """The responses one recorded connection carried, one per request, read in order."""
    reader = io.BytesIO(stream)
    out: list[bytes] = []
    for request in requests:
        method = request.split(b" ", 1)[0].decode("latin-1")
        start = reader.tell()
        try:
            out.append(read_response(reader, method).raw[:MAX_SAVED_BYTES])
        except (ResponseError, OSError, ValueError):
            out.append(stream[start:][:MAX_SAVED_BYTES])
            break
    return out


def _origin_side(request: bytes, body: bytes, taps: list[Path]) -> tuple[bytes, bytes] | None:
    """The origin-side request and response for a client-side request: of the recorded
    requests with the same method, target and content octets, the one whose header fields
    differ least (the suite sends some requests more than once with other fields)."""
    line = request.split(b"\r\n", 1)[0]
    method_target = b" ".join(line.split(b" ")[:2]) + b" "
    best: tuple[int, bytes, bytes] | None = None
    for tap in taps:
        for up in sorted(tap.glob("conn-*.up")):
            sent_all = _requests(up.read_bytes())
            answers: list[bytes] | None = None
            for n, sent in enumerate(sent_all):
                if not sent.startswith(method_target):
                    continue
                content = sent.partition(b"\r\n\r\n")[2]
                # The whole content, or the start of it when the origin stopped reading early
                # (a request it refused before its end, e.g. with 413).
                if body and not (content and body.startswith(content)) and body not in sent:
                    continue
                score = len(_changes(request, sent))
                if best is None or score < best[0]:
                    if answers is None:
                        down = up.with_suffix(".down")
                        stream = down.read_bytes() if down.is_file() else b""
                        answers = _responses(stream, sent_all)
                    best = (score, sent, answers[n] if n < len(answers) else b"")
    return None if best is None else (best[1], best[2])


def _attach_bytes(item: Blame, case_dir: Path, report_dir: Path, taps: list[Path]) -> None:
    for request_file in sorted(case_dir.glob("request-*.http")):
        n = request_file.stem.removeprefix("request-")
        request = request_file.read_bytes()
        body_file = case_dir / f"request-{n}.body"
        body = body_file.read_bytes() if body_file.is_file() else b""
        response_file = case_dir / f"response-{n}.http"
        response = response_file.read_bytes() if response_file.is_file() else b""
        side = Side(
            str(request_file.relative_to(report_dir)),
            str(response_file.relative_to(report_dir)) if response else None,
        )
        item.exchanges.append(side)
        found = _origin_side(request, body, taps)
        if found is None:
            continue
        sent, answered = found
        up, down = case_dir / f"origin-{n}.up", case_dir / f"origin-{n}.down"
        up.write_bytes(sent)
        side.origin_received = str(up.relative_to(report_dir))
        if answered:
            down.write_bytes(answered)
            side.origin_sent = str(down.relative_to(report_dir))
        item.request_changes += [
            c for c in _changes(request, sent) if c not in item.request_changes
        ]
        if response and answered:
            item.response_changes += [
                c for c in _changes(answered, response) if c not in item.response_changes
            ]


def _markdown(result: HopBlame) -> str:
    lines = [
        f"# Hop blame: {result.intermediary} ({result.variant})",
        "",
        f"{result.version}".strip(),
        "",
        f"- fail only through the hop: {len(result.blamed)}",
        f"- fail direct too (the server's, not the hop's): {len(result.both)}",
        f"- fail direct, pass through the hop: {len(result.hidden)}",
        f"- run direct only: {len(result.not_through)}",
        f"- not in the direct run, not compared: {len(result.not_direct)}",
        "",
    ]
    for item in result.blamed:
        lines += [
            f"## {item.check_id}",
            "",
            f"{item.direct} direct, {item.through} through {result.intermediary} "
            f"({result.variant}): {item.message}",
            "",
        ]
        for label, changes in (
            ("request, client to origin", item.request_changes),
            ("response, origin to client", item.response_changes),
        ):
            for c in changes:
                lines.append(
                    f"- {label}: `{c.name}` {c.before or '(absent)'} -> {c.after or '(absent)'}"
                )
        for side in item.exchanges:
            if side.origin_received is None:
                continue  # sent to the origin directly (a standalone comparison), not via the hop
            lines.append(
                f"- bytes: client sent `{side.request}`, origin received `{side.origin_received}`"
                + (f", origin sent `{side.origin_sent}`" if side.origin_sent else "")
                + (f", client received `{side.response}`" if side.response else "")
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_hop_blame(folder: Path) -> HopBlame | None:
    """Write hop-blame.json and .md into a hop run's report folder (see the module doc)."""
    hop_file = folder / "hop.json"
    if not hop_file.is_file():
        return None
    hop = json.loads(hop_file.read_text(encoding="utf-8"))
    direct_dir = hop.get("direct_report")
    if not direct_dir or not (Path(direct_dir) / "report.json").is_file():
        return None
    direct = json.loads((Path(direct_dir) / "report.json").read_text(encoding="utf-8"))
    through = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    result = blame(
        direct, through, hop["intermediary"], hop["variant"], str(hop.get("version", ""))
    )
    taps = [Path(t) for t in hop.get("taps", []) if Path(t).is_dir()]
    for item in result.blamed:
        case_dir = folder / "cases" / item.check_id
        if case_dir.is_dir():
            _attach_bytes(item, case_dir, folder, taps)
    (folder / "hop-blame.json").write_text(
        json.dumps(result.as_dict(), indent=2) + "\n", encoding="utf-8"
    )
    (folder / "hop-blame.md").write_text(_markdown(result), encoding="utf-8")
    return result
