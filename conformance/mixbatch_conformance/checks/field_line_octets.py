"""Every octet a part field line may hold reaches the resource (spec 3.2.3, MB-PART-8).

Theory of operation: MB-PART-8: "A receiver MUST take a request part's header fields other
than `Http-Method` and `Content-Id` as the sub-request's header fields, in order, and the part
body as the sub-request's content." MB-PART-11 refuses only "a part header line that is not a
valid `field-line` (RFC 9112 §5, with `field-name` and `field-value` of RFC 9110 §5)", so a
receiver whose idea of the grammar is narrower than RFC 9110's (a range written half-open, a
class that leaves out one punctuation mark, a name that must open with a letter) refuses or
drops a valid field line, and the sub-request is not the part. Each octet the grammar allows
goes to the `echo`, and the echo's report (MB-TEST-2: "the request's header fields as an array
of `[name, value]` pairs in the order received"; "Field values map to JSON strings one octet to
one character") is compared with what was sent.

- `part-field-value-octets-reach-echo`: each of the 94 VCHARs (0x21-0x7E) and each of the 128
  obs-text octets (0x80-0xFF) (RFC 9110 §5.5: `field-vchar = VCHAR / obs-text`), at the start,
  in the middle and at the end of a value, in an extension field of its own (`X-Mb-Octet-HH`,
  three lines, one for each place) and in `Accept`, a field the resource may read and that
  MB-PART-8 hands on as the part has it (MB-SUB-6 keeps the batch request's own from the
  parts). The lines go into as few GET parts as the target's `max_part_fields` and
  `max_part_header_bytes` allow (the reference defaults of spec 9.1 when none is published),
  and the parts into as few batches as `max_parts` and `max_batch_bytes` allow.
- `part-field-name-tchars-reach-echo`: each tchar that is no letter (RFC 9110 §5.6.2: the 15
  marks `!#$%&'*+-.^_`|~` and the ten digits) at the start, in the middle and at the end of a
  field name, each name on one line of one GET part.

A batch refused whole (not 200) refuses valid field lines, which MB-PART-11 does not allow and
MB-PART-8 then breaks: the failure names the line the problem document's `byte_offset` points
at, when it points at one. A part whose echo reports other values than were sent is compared
with the same request sent alone (spec 3.2.4): when the server's own HTTP stack does the same
alone (another status, or the same other values), that is its stack's handling of such a
request, noted and not counted; otherwise the part broke MB-PART-8. A 413 or 431 naming a
limit is taken for what it says and not judged (spec 9.1).

Both are read-only: every part GETs the echo.
"""

from __future__ import annotations

from collections.abc import Sequence

from mixbatch_conformance.checks._shared.part_limits import (
    batches_within_limits,
    header_section,
    limit_refused,
)
from mixbatch_conformance.core.context import (
    BATCH_BOUNDARY,
    Context,
    SubRequest,
    compose_batch,
    problem_of,
)
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: RFC 9110 §5.6.2 `tchar` other than ALPHA: the 15 marks and the ten digits.
TCHAR_MARKS = "!#$%&'*+-.^_`|~"
TCHAR_DIGITS = "0123456789"
#: Every octet `field-vchar` allows (RFC 9110 §5.5): VCHAR 0x21-0x7E and obs-text 0x80-0xFF.
FIELD_VCHARS = (*range(0x21, 0x7F), *range(0x80, 0x100))
#: Spec 9.1's reference defaults, assumed when the target publishes none ("a client that finds
#: none assumes the reference default below").
DEFAULT_PART_FIELDS = 100
DEFAULT_PART_HEADER_BYTES = 8192
#: The lines `Context.batch` writes in every part besides its own fields: Http-Method and
#: Content-Id, which `max_part_fields` counts.
CONTROL_LINES = 2

#: The most values a failing part reports one by one.
MAX_SHOWN = 12

#: One field line as sent, with what it stands for.
Line = tuple[str, str, str]  # (label, name, value)


def _hex(c: int) -> str:
    return f"{c:02X}"


def _places(c: int) -> tuple[tuple[str, str], ...]:
    """The octet at the start, in the middle and at the end of a value (latin-1 text)."""
    o = chr(c)
    return (("at the start", f"{o}v"), ("in the middle", f"v{o}v"), ("at the end", f"v{o}"))


def _value_groups() -> list[list[Line]]:
    """Line groups, each kept in one part: an extension field of each octet's own on three
    lines, then Accept lines, three for each octet."""
    groups: list[list[Line]] = []
    for c in FIELD_VCHARS:
        name = f"X-Mb-Octet-{_hex(c)}"
        groups.append([(f"0x{_hex(c)} {where} of {name}", name, v) for where, v in _places(c)])
    for c in FIELD_VCHARS:
        groups.append([(f"0x{_hex(c)} {where} of Accept", "Accept", v) for where, v in _places(c)])
    return groups


def _name_groups() -> list[list[Line]]:
    """One line for each tchar that is no letter at the start, in the middle and at the end of
    a field name, each name its own."""
    groups: list[list[Line]] = []
    for t in TCHAR_MARKS + TCHAR_DIGITS:
        h = _hex(ord(t))
        names = (
            ("at the start", f"{t}X-Mb-N{h}"),
            ("in the middle", f"X-Mb{t}N{h}"),
            ("at the end", f"X-Mb-N{h}{t}"),
        )
        groups.append(
            [
                (f"{t!r} {where} of the name {n}", n, f"n{h}-{k}")
                for k, (where, n) in enumerate(names)
            ]
        )
    return groups


def _room(ctx: Context) -> tuple[int, int]:
    fields = ctx.limit("max_part_fields") or DEFAULT_PART_FIELDS
    octets = ctx.limit("max_part_header_bytes") or DEFAULT_PART_HEADER_BYTES
    return fields, octets


def _fits(sub: SubRequest, fields: int, octets: int) -> bool:
    section = header_section(sub)
    return section.count(b"\r\n") <= fields and len(section) <= octets


def _sub(echo: str, tag: str, index: int, lines: Sequence[Line]) -> SubRequest:
    return SubRequest("GET", f"{echo}?{tag}={index}", tuple((n, v) for _, n, v in lines))


def _packed(
    ctx: Context, judge: Judge, echo: str, tag: str, groups: list[list[Line]]
) -> list[tuple[SubRequest, list[Line]]]:
    """The groups in as few GET parts as the part limits allow, each group whole in one part."""
    fields, octets = _room(ctx)
    parts: list[tuple[SubRequest, list[Line]]] = []
    lines: list[Line] = []
    for group in groups:
        grown = [*lines, *group]
        if lines and not _fits(_sub(echo, tag, len(parts) + 1, grown), fields, octets):
            parts.append((_sub(echo, tag, len(parts) + 1, lines), lines))
            grown = list(group)
        if not _fits(_sub(echo, tag, len(parts) + 1, grown), fields, octets):
            judge.not_applicable(
                f"one part of {CONTROL_LINES + len(grown)} field lines exceeds the published "
                f"max_part_fields {fields} or max_part_header_bytes {octets}"
            )
        lines = grown
    if lines:
        parts.append((_sub(echo, tag, len(parts) + 1, lines), lines))
    return parts


def _shown(value: str) -> str:
    return value.encode("latin-1", "backslashreplace").decode("ascii", "backslashreplace")


def _line_at(content: bytes, offset: object) -> str:
    """The line of `content` that starts at (or holds) octet `offset`, for a failure's text."""
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset < len(content):
        return ""
    start = content.rfind(b"\r\n", 0, offset + 2)
    start = 0 if start < 0 else start + 2
    end = content.find(b"\r\n", start)
    line = content[start : end if end >= 0 else len(content)]
    return f"; the line at byte_offset {offset}: {_shown(line.decode('latin-1'))!r}"


def _refusal(resp: Response, content: bytes) -> str:
    doc = problem_of(resp)
    if doc is None:
        return str(resp.status)
    named = doc.get("requirement")
    index = doc.get("part_index")
    return (
        f"{resp.status}, naming {named!r}, part_index {index!r}"
        f"{_line_at(content, doc.get('byte_offset'))}"
    )


def _received(status: int | None, body: bytes, names: list[str]) -> dict[str, list[str]]:
    """Each name's values as the echo reported them (none when the answer is no echo)."""
    seen = read_echo(body) if status == 200 else None
    return {n: (seen.get_all(n) if seen is not None else []) for n in names}


def _expected(lines: Sequence[Line]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for _, name, value in lines:
        out.setdefault(name.lower(), []).append(value)
    return out


def _judge_runs(
    ctx: Context, judge: Judge, parts: list[tuple[SubRequest, list[Line]]], what: str
) -> None:
    judged = 0
    lines_of = {id(sub): lines for sub, lines in parts}
    # MB-LIMIT-3: a client that knows a server's limits "splits the work into several batches".
    for subs in batches_within_limits(ctx, judge, [sub for sub, _ in parts]):
        run = [(sub, lines_of[id(sub)]) for sub in subs]
        resp = ctx.batch(judge, subs)
        limit = limit_refused(resp)
        if limit is not None:
            judge.note(f"a batch of {len(subs)} parts refused {resp.status} over {limit}")
            continue
        judged += 1
        # MB-PART-8: "A receiver MUST take a request part's header fields other than
        # `Http-Method` and `Content-Id` as the sub-request's header fields, in order"; every
        # line here is a valid `field-line` (RFC 9110 §5.5: "field-vchar = VCHAR / obs-text";
        # §5.6.2: "tchar = ... / DIGIT / ALPHA"), which MB-PART-11 does not refuse, so a batch
        # refused whole hands no part's fields on.
        if not judge.expect_true(
            f"a batch of {len(subs)} parts holding {what}: top-level status",
            resp.status == 200,
            _refusal(resp, compose_batch(subs, BATCH_BOUNDARY)),
            "200: every field line is valid and reaches its sub-request",
            "MB-PART-8",
        ):
            continue
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-8")
        for k, (sub, lines) in enumerate(run):
            _judge_part(ctx, judge, k, sub, lines, part_status(env, k), env.parts[k].body)
    if not judged:
        judge.not_applicable("every batch was refused over a published limit")


def _judge_part(
    ctx: Context,
    judge: Judge,
    k: int,
    sub: SubRequest,
    lines: list[Line],
    status: int | None,
    body: bytes,
) -> None:
    want = _expected(lines)
    got = _received(status, body, list(want))
    wrong = [n for n in want if status != 200 or got[n] != want[n]]
    if not wrong:
        return
    # Spec 3.2.4: the same request sent alone shows what the server's HTTP stack does with
    # these field lines outside any batch.
    single = ctx.alone(judge, sub)
    alone = _received(single.status, single.body, list(want))
    if single.status == status and all(alone[n] == got[n] for n in wrong):
        judge.note(
            f"part {k} ({sub.target}): answered {status} with {len(wrong)} field(s) other than "
            "sent, as the same request alone: its HTTP stack's handling, not counted"
        )
        return
    # MB-PART-8: "take a request part's header fields other than `Http-Method` and
    # `Content-Id` as the sub-request's header fields, in order"; MB-TEST-2: the echo answers
    # "every request to that resource whose method a sub-request may carry ... with 200".
    if not judge.expect(
        f"part {k} ({sub.target}): echo status",
        status,
        {200},
        "MB-PART-8",
        allowed_text=f"200, its fields handed on (alone: {single.status})",
    ):
        return
    missing = [
        (label, n, v) for label, n, v in lines if n.lower() in wrong and v not in got[n.lower()]
    ]
    for label, name, value in missing[:MAX_SHOWN]:
        # MB-PART-8 (quoted above); MB-TEST-2: "Field values map to JSON strings one octet to
        # one character", so the value sent is among the name's values as received.
        received = [_shown(v) for v in got[name.lower()]]
        judge.expect_true(
            f"part {k} ({label}): {name} as the echo received it",
            False,
            repr(received[:8]) + (" ..." if len(received) > 8 else ""),
            f"a value {_shown(value)!r}, as sent",
            "MB-PART-8",
        )
    if len(missing) > MAX_SHOWN:
        judge.note(f"part {k}: {len(missing) - MAX_SHOWN} further values not received as sent")
    for name in wrong if not missing else ():
        # MB-PART-8: "..., in order": every value arrived, but not as the part's lines were.
        judge.expect(
            f"part {k}: {name} values in order",
            [_shown(v) for v in got[name]],
            [[_shown(v) for v in want[name]]],
            "MB-PART-8",
        )


@checker(
    "part-field-value-octets-reach-echo",
    ("MB-PART-8", "MB-PART-11", "MB-TEST-2"),
    "Every VCHAR (0x21-0x7E) and every obs-text octet (0x80-0xFF) at the start, in the middle and at the end of a part field value, in an extension field and in Accept, reaches the echo as sent; a batch refused for them, or a part whose echo reports other values than the same request alone, breaks MB-PART-8.",
    state=State.READ_ONLY,
)
def part_field_value_octets_reach_echo(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    parts = _packed(ctx, judge, echo, "mb-value-octets", _value_groups())
    _judge_runs(ctx, judge, parts, "every field-vchar in field values")


@checker(
    "part-field-name-tchars-reach-echo",
    ("MB-PART-8", "MB-PART-11", "MB-TEST-2"),
    "Every tchar that is no letter (the 15 marks and the ten digits) at the start, in the middle and at the end of a part field name reaches the echo under that name; a batch refused for them, or a part whose echo reports other fields than the same request alone, breaks MB-PART-8.",
    state=State.READ_ONLY,
)
def part_field_name_tchars_reach_echo(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    parts = _packed(ctx, judge, echo, "mb-name-tchars", _name_groups())
    _judge_runs(ctx, judge, parts, "every tchar that is no letter in field names")
