"""Control octets in an ordinary part field value, and the octets beside them that a value may
hold (spec 3.2, MB-PART-11, MB-PART-8, 5.3).

Theory of operation: MB-PART-11 makes a receiver "reject a part header line that is not a
valid `field-line` (RFC 9112 §5, with `field-name` and `field-value` of RFC 9110 §5)". RFC 9110
§5.5 writes `field-value = *field-content`, `field-content = field-vchar [ 1*( SP / HTAB /
field-vchar ) field-vchar ]` and `field-vchar = VCHAR / obs-text`; only SP and HTAB around a
value are optional whitespace (§5.6.3: `OWS = *( SP / HTAB )`). So every control octet but
HTAB (NUL to US, and DEL) makes the line invalid wherever it stands in the value, at either end
included. A receiver that takes a value's ends off with its language's whitespace trim (Rust's
`trim_ascii`, Go's `strings.TrimSpace`, Python's `strip`) also takes VT, FF or the separators
0x1C-0x1F for whitespace, and runs a part it must refuse with the octet silently gone.

- `part-field-value-controls-refused`: each such octet at the start of a value (after the
  colon and a space), in its middle, at its end (before the CRLF), at its end after trailing
  OWS, and as the whole value, in an extension field (`X-Mb-Probe`) or in `Accept`, a field the
  resource reads (the two take turns, so each octet and each place goes in both). Each batch
  holds a valid part and then the faulty one, and is answered 400 with a problem document
  naming MB-PART-11, `part_index` 1 and the faulty line's first octet as `byte_offset` (spec
  5.3: "a fault in one header field line (syntax, ...): the offset of the line's first
  octet"). A CR or an LF in a value is also a bare CR or LF ending a line, which MB-WIRE-8
  refuses, so the document may name that instead (MB-STATUS-13: "Where two requirements
  describe the same fault, either may be named"). MB-STATUS-4 gives the members "when the
  server knows them": a server that places a space before a colon (another MB-PART-11 fault)
  in the same line shows that it knows, and is then held to the offset here too.
- `part-field-value-neighbours-reach-echo`: the octets beside those a value may hold: obs-text
  (0x80-0xFF) at both ends and throughout, HTAB inside a value, and SP and HTAB around one. Each
  reaches the echo in a GET part exactly as the value is, the whitespace around it taken off
  and nothing else (MB-PART-8; MB-TEST-2 and spec 14.4: "Field values map to JSON strings one
  octet to one character"). A value the server's HTTP stack does not let through alone (no 200
  echo, or an echo without the field) is noted and not put in a part.

All are read-only: the parts GET the ok resource or the echo, and a refused batch runs nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-controls-3f8e61a0c92d47b5"
#: Every control octet RFC 9110 §5.5 leaves out of a field value: 0x00-0x1F but HTAB, and DEL.
CONTROLS = (*(c for c in range(0x20) if c != 0x09), 0x7F)
#: Where the octet goes in the value, as the text after the colon up to the line's CRLF.
PLACES: tuple[tuple[str, str], ...] = (
    ("at the start", " {c}v"),
    ("in the middle", " a{c}b"),
    ("at the end", " v{c}"),
    ("at the end after OWS", " v \t{c}"),
    ("as the whole value", " {c}"),
)
#: An extension field no resource reads, and a field the resource reads.
NAMES = ("X-Mb-Probe", "Accept")
#: The control octets that also end a line: MB-WIRE-8 ("a bare LF or a bare CR as a line
#: terminator ... in a part header section") and MB-WIRE-7 describe the same fault.
LINE_ENDS = {0x0A, 0x0D}


def _name(c: int) -> str:
    return "DEL" if c == 0x7F else f"0x{c:02X}"


def _sent(ctx: Context, judge: Judge, content: bytes) -> Response:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))


def _two_parts(ok: str, line: str) -> tuple[bytes, int]:
    """A valid GET part, then a GET part whose third field line is `line` (without its CRLF);
    and the offset of that line's first octet in the content."""
    d = f"--{BOUNDARY}"
    first = f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n"
    before = f"{first}{d}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n"
    content = f"{before}{line}\r\n\r\n\r\n{d}--".encode("latin-1")
    return content, len(before)


def _knows_offset(ctx: Context, judge: Judge, ok: str) -> bool:
    """Whether the server places a field line's syntax fault by offset: a space before the
    colon (MB-PART-11: "a field name followed by whitespace before the colon") in the same
    line of the same batch."""
    content, _ = _two_parts(ok, "X-Mb-Probe : v")
    resp = _sent(ctx, judge, content)
    offset = (problem_of(resp) or {}).get("byte_offset") if resp.status == 400 else None
    judge.note(f"a space before the colon in that line: {resp.status}, byte_offset {offset!r}")
    return offset is not None


def _expect_document(
    judge: Judge, label: str, resp: Response, c: int, at: int, knows_offset: bool
) -> None:
    doc = problem_of(resp) or {}
    named = {"MB-PART-11", "MB-WIRE-8", "MB-WIRE-7"} if c in LINE_ENDS else {"MB-PART-11"}
    # MB-STATUS-4: "a `requirement` member naming the ID of the requirement the request
    # broke": MB-PART-11, "reject a part header line that is not a valid `field-line`".
    judge.expect(f"{label}: problem requirement", doc.get("requirement"), named, "MB-STATUS-4")
    index = doc.get("part_index")
    # MB-STATUS-4: "with `part_index` (from 0) and `byte_offset` (octets from the start of the
    # request content) members when the server knows them": it refused this part for one of
    # its own lines, so it knows which part it is.
    judge.expect_true(
        f"{label}: problem part_index",
        is_json_integer(index) and index == 1,
        repr(index),
        "the integer 1, the refused part's index",
        "MB-STATUS-4",
    )
    offset = doc.get("byte_offset")
    # Spec 5.3: "a fault in one header field line (syntax, a bare LF or CR ending it, ...):
    # the offset of the line's first octet".
    judge.expect_true(
        f"{label}: problem byte_offset",
        (offset is None and not knows_offset) or (is_json_integer(offset) and offset == at),
        repr(offset),
        f"{at}, the first octet of the line"
        + ("" if knows_offset else " (or none: the server placed no syntax fault by offset)"),
        "MB-STATUS-4",
    )


@checker(
    "part-field-value-controls-refused",
    ("MB-PART-11", "MB-STATUS-4"),
    "Every control octet a field value does not allow (0x00-0x1F but HTAB, and DEL) at the start of a part field value, in its middle, at its end, at its end after SP and HTAB, and as the whole value, in an extension field and in Accept, is answered 400 with a problem document naming MB-PART-11 (or MB-WIRE-8 for CR and LF), part_index 1 and the offset of the line's first octet.",
    state=State.READ_ONLY,
)
def part_field_value_controls_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    knows_offset = _knows_offset(ctx, judge, ok)
    for i, c in enumerate(CONTROLS):
        for k, (where, text) in enumerate(PLACES):
            name = NAMES[(i + k) % len(NAMES)]
            content, at = _two_parts(ok, f"{name}:{text.format(c=chr(c))}")
            resp = _sent(ctx, judge, content)
            label = f"{_name(c)} {where} of {name}"
            # MB-PART-11: "A receiver MUST reject a part header line that is not a valid
            # `field-line` (RFC 9112 §5, with `field-name` and `field-value` of RFC 9110 §5)
            # ...; a server answers such a batch request with 400". RFC 9110 §5.5:
            # "field-vchar = VCHAR / obs-text", and §5.6.3: "OWS = *( SP / HTAB )", so the
            # octet is in the value, at an end too, and the value is no field-value.
            if judge.expect(f"{label}: top-level status", resp.status, {400}, "MB-PART-11"):
                expect_rejected(judge, resp, {400}, "MB-PART-11")
                _expect_document(judge, label, resp, c, at, knows_offset)


#: (what, value as written after "name: ", the value the resource receives). Octets as latin-1
#: characters, one each.
NEIGHBOURS: tuple[tuple[str, str, str], ...] = (
    ("obs-text at both ends", "\x80a\xffb\xa0", "\x80a\xffb\xa0"),
    (
        "every obs-text octet",
        "".join(chr(c) for c in range(0x80, 0x100)),
        "".join(chr(c) for c in range(0x80, 0x100)),
    ),
    ("an HTAB inside", "a\tb", "a\tb"),
    ("HTAB and SP runs inside", "a\t\tb \t c", "a\t\tb \t c"),
    ("SP and HTAB around", "\t v \t", "v"),
    ("SP and HTAB around obs-text ends", "\t\x85x\x85 \t", "\x85x\x85"),
    ("HTAB around and inside", "\t\ta\tb\t\t", "a\tb"),
    ("every visible character", "".join(chr(c) for c in range(0x21, 0x7F)), ""),
)


def _neighbours() -> list[tuple[str, str, str, str]]:
    """(label, name, value as written, value received) for each neighbour in each field."""
    out: list[tuple[str, str, str, str]] = []
    for what, written, received in NEIGHBOURS:
        for name in NAMES:
            out.append((f"{what} in {name}", name, written, received or written))
    return out


def _shown(value: str) -> str:
    return value.encode("latin-1", "backslashreplace").decode("ascii", "backslashreplace")


@checker(
    "part-field-value-neighbours-reach-echo",
    ("MB-PART-8", "MB-PART-11", "MB-TEST-2"),
    "Part field values holding obs-text (0x80-0xFF) at both ends and throughout, HTAB and SP inside, and SP and HTAB around them, in an extension field and in Accept, are accepted and reach the echo exactly as the value is, the whitespace around it taken off and nothing else.",
    state=State.READ_ONLY,
)
def part_field_value_neighbours_reach_echo(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    items: list[tuple[str, SubRequest, str, str]] = []
    for i, (label, name, written, received) in enumerate(_neighbours(), start=1):
        target = f"{echo}?mb-neighbour={i}"
        # Alone, with the whitespace around the value already off (RFC 9110 §5.5: "a field
        # value does not include leading or trailing whitespace"): what the HTTP stack lets
        # through is learnt here.
        single = ctx.alone(judge, SubRequest("GET", target, ((name, received),)))
        seen = read_echo(single.body) if single.status == 200 else None
        if seen is None or not seen.get_all(name):
            judge.note(f"{label}: alone answered {single.status} without the field; not sent")
            continue
        items.append((label, SubRequest("GET", target, ((name, written),)), name, received))
    if not items:
        judge.not_applicable("the echo reported none of the values alone")
    for run in within_max_parts(ctx, judge, items):
        subs = [sub for _, sub, _, _ in run]
        resp = ctx.batch(judge, subs)
        # MB-PART-11 refuses only a line that is not a valid field-line, and each of these is
        # one (RFC 9110 §5.5: "field-vchar = VCHAR / obs-text", SP and HTAB inside a value and
        # OWS around it): refusing the batch refuses valid parts.
        judge.require("top-level status", resp.status, {200}, "MB-PART-11")
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-8")
        for k, (label, _, name, received) in enumerate(run):
            seen = read_echo(env.parts[k].body) if part_status(env, k) == 200 else None
            got = seen.get_all(name) if seen is not None else None
            # MB-PART-8: "take a request part's header fields other than `Http-Method` and
            # `Content-Id` as the sub-request's header fields"; the value is the octets between
            # the OWS (RFC 9110 §5.5), and spec 14.4: "Field values map to JSON strings one
            # octet to one character".
            judge.expect(
                f"part {k} ({label}): {name} as the echo received it",
                None if got is None else [_shown(v) for v in got],
                [[_shown(received)]],
                "MB-PART-8",
                allowed_text=f"one value, exactly {_shown(received)!r}",
            )
