"""Every value the suite reads is judged: corrupt each one in turn and find a check that fails.

Theory of operation: a check can read a field and never compare it with what the spec
requires, and a server that gets that field wrong then passes. The sweep finds such values
without reading the checks:

1. A recording pass runs each check alone through a relay in front of a correct server and
   notes every *slot* its answers carried: a top-level field of a batch answer, a field of a
   response part, a member of a problem document, a member of the JSON 207 document or of
   one of its entries, an element of an XML 207 entry. Which checks saw a slot is kept with it.
2. Each slot is then corrupted in every answer that carries it, in two ways: dropped, and
   given another value of the same shape (a number or a status code one higher, a
   `<reference>` with one more character, a string with one more character). The checks that saw the slot run through
   the relay, in registry order, until one of them does not pass.

A corruption no check notices is a value the suite reads or could read and does not judge.
`UNJUDGED` names the slots allowed to be so, each with the reason the spec gives.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.run import recording
from mixbatch_conformance.run.mutations import write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch, parts_of
from mixbatch_conformance.run.recording import NOTICED, SWEPT_TIERS, reference_relay, run_through
from mixbatch_conformance.transport.relay import MutationLike, Relay, RelayRequest, RelayResponse

__all__ = [
    "CORRUPTIONS",
    "UNJUDGED",
    "Corruption",
    "Recorder",
    "Slot",
    "SlotOutcome",
    "record",
    "slots_of",
    "sweep",
]

#: The kinds of slot: where in an answer a value sits.
BATCH_FIELD = "batch-field"
PART_FIELD = "part-field"
PROBLEM_MEMBER = "problem-member"
JSON_MEMBER = "json-member"
JSON_ENTRY_MEMBER = "json-entry-member"
XML_ENTRY_ELEMENT = "xml-entry-element"

#: The XML 207 form's namespaces (MB-MULTI-6), by the prefix a slot's name uses.
XML_NAMESPACES = {"dav": "DAV:", "mb": "https://mixbatch.dev/ns/multistatus"}
_PREFIXES = {uri: prefix for prefix, uri in XML_NAMESPACES.items()}
#: An XML `DAV:status` line: its code is what the alteration changes.
_STATUS_LINE = re.compile(r"^(HTTP/\d\.\d )(\d{3})(.*)$", re.S)

#: Fields the relay itself writes or frames by (RFC 9112 §6): not the server's values.
FRAMING_FIELDS = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive"})

#: The two ways each slot is corrupted.
CORRUPTIONS = ("drop", "alter")


@dataclass(frozen=True, order=True)
class Slot:
    """Where a value sits in an answer: a kind of place and a lower-cased name."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


#: Slots a corruption of which no check need notice, with the reason.
UNJUDGED: dict[tuple[Slot, str], str] = {
    (Slot(BATCH_FIELD, "date"), "drop"): "RFC 9110 §6.6.1 lets a server without a clock omit Date",
    (Slot(BATCH_FIELD, "date"), "alter"): "the spec fixes no clock; a Date is the server's own",
    (Slot(BATCH_FIELD, "server"), "drop"): "Server is optional (RFC 9110 §10.2.4)",
    (Slot(BATCH_FIELD, "server"), "alter"): "a Server value is the server's own",
    (Slot(PART_FIELD, "date"), "drop"): "a sub-response's Date is as optional as a response's",
    (Slot(PART_FIELD, "date"), "alter"): "the spec fixes no clock; a Date is the server's own",
    (Slot(PART_FIELD, "server"), "drop"): "Server is optional (RFC 9110 §10.2.4)",
    (Slot(PART_FIELD, "server"), "alter"): "a Server value is the server's own",
    (Slot(PROBLEM_MEMBER, "detail"), "drop"): "RFC 9457 §3.1.4: detail is optional",
    (Slot(PROBLEM_MEMBER, "detail"), "alter"): "RFC 9457 §3.1.4: detail is free text",
    (Slot(PROBLEM_MEMBER, "title"), "alter"): "RFC 9457 §3.1.3: title is free text",
    (Slot(PROBLEM_MEMBER, "byte_offset"), "drop"): (
        "MB-STATUS-4 asks for byte_offset only 'when the server knows' it"
    ),
    (Slot(PROBLEM_MEMBER, "value"), "drop"): "a `value` member is the reference server's own",
    (Slot(PROBLEM_MEMBER, "value"), "alter"): "a `value` member is the reference server's own",
    (Slot(PROBLEM_MEMBER, "budget"), "drop"): "a `budget` member is the reference server's own",
    (Slot(PROBLEM_MEMBER, "budget"), "alter"): "a `budget` member is the reference server's own",
    (Slot(PROBLEM_MEMBER, "budget_value"), "drop"): (
        "a `budget_value` member is the reference server's own"
    ),
    (Slot(PROBLEM_MEMBER, "budget_value"), "alter"): (
        "a `budget_value` member is the reference server's own"
    ),
    (Slot(PROBLEM_MEMBER, "max_bytes"), "drop"): (
        "a `max_bytes` member is the reference server's own; MB-LIMIT-4 names a limit in `limit`"
    ),
    (Slot(PROBLEM_MEMBER, "max_bytes"), "alter"): (
        "a `max_bytes` member is the reference server's own; MB-LIMIT-4 names a limit in `limit`"
    ),
    (Slot(BATCH_FIELD, "retry-after"), "alter"): (
        "MB-LIMIT-6 asks for a Retry-After, and RFC 9110 §10.2.3 leaves its delay to the server"
    ),
}


def _problem_like(resp: RelayResponse) -> bool:
    return (resp.get("Content-Type") or "").split(";")[0].strip().lower() == (
        "application/problem+json"
    )


def _json_207(resp: RelayResponse) -> bool:
    ctype = (resp.get("Content-Type") or "").split(";")[0].strip().lower()
    return resp.status == 207 and ctype.endswith("+json")


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def slots_of(req: RelayRequest, resp: RelayResponse) -> set[Slot]:
    """The slots an answer carries (only answers to batch requests, and problem documents)."""
    found: set[Slot] = set()
    if _problem_like(resp):
        doc = _json(resp.body)
        if isinstance(doc, dict):
            found |= {Slot(PROBLEM_MEMBER, k) for k in doc}
    if not is_batch(req):
        return found
    found |= {
        Slot(BATCH_FIELD, n.lower()) for n, _ in resp.headers if n.lower() not in FRAMING_FIELDS
    }
    boundary = boundary_of(resp)
    parts = parts_of(resp.body, boundary) if boundary else None
    for fields, _ in parts or ():
        found |= {Slot(PART_FIELD, n.lower()) for n, _ in fields if n.lower() not in FRAMING_FIELDS}
    if _json_207(resp):
        doc = _json(resp.body)
        if isinstance(doc, dict):
            found |= {Slot(JSON_MEMBER, k) for k in doc}
            summary = doc.get("summary")
            if isinstance(summary, dict):
                found |= {Slot(JSON_MEMBER, f"summary.{k}") for k in summary}
            for entry in doc.get("responses") or ():
                if isinstance(entry, dict):
                    found |= {Slot(JSON_ENTRY_MEMBER, k) for k in entry}
    if _xml_207(resp):
        root = _xml(resp.body)
        for entry in root.iter(f"{{{XML_NAMESPACES['dav']}}}response") if root is not None else ():
            found |= {Slot(XML_ENTRY_ELEMENT, _local(child.tag)) for child in entry}
    return found


def _xml_207(resp: RelayResponse) -> bool:
    ctype = (resp.get("Content-Type") or "").split(";")[0].strip().lower()
    return resp.status == 207 and ctype.endswith("xml")


def _xml(body: bytes) -> ElementTree.Element | None:
    try:
        return ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return None


def _local(tag: str) -> str:
    """`{DAV:}href` as `dav:href`: the slot name of an element."""
    uri, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    return f"{_PREFIXES.get(uri, uri)}:{name}"


def _clark(name: str) -> str:
    prefix, _, local = name.partition(":")
    return f"{{{XML_NAMESPACES.get(prefix, prefix)}}}{local}"


# -- the corruptions -------------------------------------------------------------------------
def altered_text(value: str) -> str:
    """Another value of the same shape: a number one higher, a reference one longer."""
    text = value.strip()
    if text.isdigit():
        return str(int(text) + 1)
    line = _STATUS_LINE.match(text)
    if line:
        return f"{line.group(1)}{int(line.group(2)) + 1}{line.group(3)}"
    if text.startswith("<") and text.endswith(">"):
        return text[:-1] + "x>"
    return value + "x"


def altered_json(value: Any) -> Any:
    """The JSON counterpart of `altered_text`."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return altered_text(value)
    if value is None:
        return "x"
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "x": "x"} if value else {"x": "x"}
    return value


def _edit_member(doc: dict[str, Any], path: str, how: str) -> bool:
    """Drop or alter `path` ("a" or "a.b") in `doc`; whether it was there."""
    head, _, tail = path.partition(".")
    if tail:
        inner = doc.get(head)
        return isinstance(inner, dict) and _edit_member(inner, tail, how)
    if head not in doc:
        return False
    if how == "drop":
        del doc[head]
    else:
        doc[head] = altered_json(doc[head])
    return True


@dataclass(frozen=True)
class Corruption(MutationLike):
    """One slot dropped or altered in every answer that carries it."""

    slot: Slot
    how: str

    @property
    def edits_response(self) -> bool:
        return True

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        edit = _EDITS[self.slot.kind]
        edit(self, req, resp)

    def _fields(self, fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for n, v in fields:
            if n.lower() != self.slot.name:
                out.append((n, v))
            elif self.how == "alter":
                out.append((n, altered_text(v)))
        return out

    def _batch_field(self, req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req):
            resp.headers = self._fields(resp.headers)

    def _part_field(self, req: RelayRequest, resp: RelayResponse) -> None:
        boundary = boundary_of(resp) if is_batch(req) else None
        parts = parts_of(resp.body, boundary) if boundary else None
        if boundary and parts is not None:
            resp.body = write_parts([(self._fields(f), b) for f, b in parts], boundary)

    def _document(
        self, resp: RelayResponse, edit: Callable[[dict[str, Any]], bool], when: bool
    ) -> None:
        doc = _json(resp.body) if when else None
        if isinstance(doc, dict) and edit(doc):
            resp.body = json.dumps(doc).encode()

    def _problem_member(self, req: RelayRequest, resp: RelayResponse) -> None:
        self._document(
            resp, lambda d: _edit_member(d, self.slot.name, self.how), _problem_like(resp)
        )

    def _json_member(self, req: RelayRequest, resp: RelayResponse) -> None:
        self._document(
            resp,
            lambda d: _edit_member(d, self.slot.name, self.how),
            is_batch(req) and _json_207(resp),
        )

    def _json_entry_member(self, req: RelayRequest, resp: RelayResponse) -> None:
        def edit(doc: dict[str, Any]) -> bool:
            hit = [
                _edit_member(e, self.slot.name, self.how)
                for e in doc.get("responses") or ()
                if isinstance(e, dict)
            ]
            return any(hit)

        self._document(resp, edit, is_batch(req) and _json_207(resp))

    def _xml_entry_element(self, req: RelayRequest, resp: RelayResponse) -> None:
        root = _xml(resp.body) if is_batch(req) and _xml_207(resp) else None
        if root is None:
            return
        tag = _clark(self.slot.name)
        hit = False
        for entry in root.iter(f"{{{XML_NAMESPACES['dav']}}}response"):
            for child in entry.findall(tag):
                hit = True
                if self.how == "drop":
                    entry.remove(child)
                else:
                    child.text = altered_text(child.text or "")
        if hit:
            for prefix, uri in XML_NAMESPACES.items():
                ElementTree.register_namespace("D" if prefix == "dav" else prefix, uri)
            resp.body = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)


_EDITS: dict[str, Callable[[Corruption, RelayRequest, RelayResponse], None]] = {
    BATCH_FIELD: Corruption._batch_field,
    PART_FIELD: Corruption._part_field,
    PROBLEM_MEMBER: Corruption._problem_member,
    JSON_MEMBER: Corruption._json_member,
    JSON_ENTRY_MEMBER: Corruption._json_entry_member,
    XML_ENTRY_ELEMENT: Corruption._xml_entry_element,
}


# -- recording and sweeping ------------------------------------------------------------------
@dataclass
class Recorder(MutationLike):
    """Edits nothing; notes the slots of every answer while a check runs."""

    seen: set[Slot] = field(default_factory=set)

    @property
    def edits_response(self) -> bool:
        # Answers are held whole so that `response` sees each one.
        return True

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        self.seen |= slots_of(req, resp)


@dataclass(frozen=True)
class SlotOutcome:
    """One corruption of one slot and the first check that noticed it (None: none did)."""

    slot: Slot
    how: str
    readers: tuple[str, ...]
    noticed_by: str | None
    ran: int

    @property
    def allowed(self) -> bool:
        return (self.slot, self.how) in UNJUDGED


def record(relay: Relay, ctx: Context, checks: Iterable[Check]) -> dict[Slot, list[str]]:
    """Run each of `checks` through `relay` (transparent) and return slot -> the checks that
    saw it and passed. A check that does not pass with answers held whole (a streaming check)
    is not a reader the sweep can use: its failing would say nothing."""
    return recording.record(relay, ctx, checks, Recorder, lambda r: r.seen)


def sweep(
    relay: Relay,
    ctx: Context,
    readers: dict[Slot, list[str]],
    slots: Sequence[Slot] | None = None,
    max_checks: int | None = None,
) -> list[SlotOutcome]:
    """Corrupt each slot both ways and run the checks that saw it until one notices."""
    checks = {c.id: c for c in all_checks()}
    outcomes = []
    for slot in slots if slots is not None else sorted(readers):
        who = tuple(readers.get(slot, ()))
        for how in CORRUPTIONS:
            corruption = Corruption(slot, how)
            noticed, ran = None, 0
            for check_id in who[:max_checks]:
                ran += 1
                if run_through(relay, corruption, checks[check_id], ctx).verdict in NOTICED:
                    noticed = check_id
                    break
            outcomes.append(SlotOutcome(slot, how, who, noticed, ran))
    return outcomes


# -- the command line ------------------------------------------------------------------------
def sweep_reference(out: Path | None = None) -> list[SlotOutcome]:
    """Record and sweep against the reference server behind a relay; write `out` as JSON."""
    checks = [c for c in all_checks() if c.tier in SWEPT_TIERS]
    with reference_relay() as (relay, ctx):
        readers = record(relay, ctx, checks)
        outcomes = sweep(relay, ctx, readers)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        rows = [
            {
                "slot": str(o.slot),
                "corruption": o.how,
                "readers": len(o.readers),
                "checks_run": o.ran,
                "noticed_by": o.noticed_by,
                "allowed_unjudged": UNJUDGED.get((o.slot, o.how)),
            }
            for o in outcomes
        ]
        out.write_text(json.dumps({"outcomes": rows}, indent=1) + "\n")
    return outcomes


def main(argv: Sequence[str] | None = None) -> int:
    """Print each corruption no check noticed; exit 1 when one is not allowed to go unjudged."""
    args = list(argv if argv is not None else sys.argv[1:])
    out = Path(args[0]) if args else Path("reports/value-sweep.json")
    outcomes = sweep_reference(out)
    missed = [o for o in outcomes if o.noticed_by is None and not o.allowed]
    for o in outcomes:
        mark = "ok " if o.noticed_by else ("allowed" if o.allowed else "MISSED")
        print(f"{mark:8} {o.slot} {o.how}: {o.noticed_by or '-'} ({o.ran} of {len(o.readers)} run)")
    print(f"{len(outcomes)} corruptions, {len(missed)} unnoticed and not allowed; wrote {out}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
