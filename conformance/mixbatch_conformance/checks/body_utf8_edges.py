"""The JSON form's body member chosen by the whole body's octets, and every form carrying them,
wherever the octet that decides it sits (spec 6.3, 6.4).

Theory of operation: MB-MULTI-7 puts a part's body "in `body`, as a JSON string, when the body
octets are valid UTF-8 ...; otherwise in `body_base64`", and spec 6.4 adds "The rule depends on
the octets alone". A writer that reads only part of a body to decide, the first 512 octets as
content sniffing does, the first buffer or page of 1, 4, 8 or 64 KiB, each chunk on its own, or
the start and the end, decides right on short bodies and wrong on one whose decisive octet lies
elsewhere: a body that turns invalid past the window goes out as text, its invalid octets
replaced by U+FFFD, and a valid character cut by a chunk edge sends valid text to base64. So the
check writes bodies of both kinds, with the decisive octet at each edge such a writer has:

- not UTF-8 (RFC 3629 §3, §4): a lone 0xFF, a sequence cut short, an overlong form, an encoded
  surrogate (ED A0 80) and a code point past U+10FFFF, each first at octet 0, 1, 511, 512,
  513, 1023, 1024, 4095, 4096, 8192, 65535 and 65536 of a body that goes on for 1,000 valid
  octets after it, and each ending a body of 8,193 octets before it, so the body's very last
  octet is what makes it invalid;
- valid UTF-8: 2-, 3- and 4-octet characters (the smallest and largest of each length, those
  either side of the surrogates, and U+FFFD) placed across each of those offsets but 0, with
  the edge after each octet of the character but the last, each body ending with a character
  at its last octet; each goes in `body`;
- valid UTF-8 holding every C0 control (0x00 to 0x1F) and DEL (0x7F), all in a row and each
  between letters: a JSON string must escape the controls (RFC 8259 §7), so each is written
  as a backslash, `u` and four hex digits (or a two-character form), and a writer that
  formats the code otherwise (in decimal, say, so that 0x1B reads back as 0x27, an
  apostrophe) carries another character than the part's (MB-MULTI-5).

A body reaches a part through the sandbox: the check writes it to a member as
application/octet-stream by a `PUT` part and reads it by the next `GET` part, in one batch sent
once per form the target declares. MB-TEST-3 lets a sandbox refuse content that is not a member
document, and MB-TEST-4 makes one that reads back answer "for any other media type, the same
octets", so the check first learns, by one such write and read alone, whether the sandbox keeps
the octets, and judges the forms only when it does. Each `GET` part then carries, in the
multipart form, the octets written (MB-TEST-4); in the JSON form the member the octets choose
(MB-MULTI-7) holding the same octets; in the XML form an `mb:body` whose base64 decodes to them
(MB-MULTI-5: "the same information in every representation ... its body").

The target's random resource gives bodies the check does not choose (MB-TEST-5: "The octets may
differ from one request to the next"), so their number is what is judged: random bodies either
side of the same edges, in every form, each of exactly the count asked, whichever member the
JSON form puts it in (the form's reader refuses valid UTF-8 in `body_base64` and a `body` that
is no UTF-8, whatever the length).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.echo_content import is_utf8
from mixbatch_conformance.checks._shared.octet_patterns import filler
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    BODY_REQUIREMENT,
    JSON_FORM,
    answers_in_every_form,
)
from mixbatch_conformance.core.validator import parse_media_type
from mixbatch_conformance.transport.http import Response

__all__ = ["EDGES", "NOT_UTF8", "bodies"]

#: Offsets where a writer's window or chunk may end: the start, either side of 512 octets (what
#: content sniffing reads), 1 KiB, 4 KiB (a page), 8 KiB and 64 KiB (common buffer sizes).
EDGES = (0, 1, 511, 512, 513, 1023, 1024, 4095, 4096, 8192, 65535, 65536)
#: Octet sequences that are no UTF-8 (RFC 3629 §1: "The octet values C0, C1, F5 to FF never
#: appear"; §4's syntax leaves out overlong forms, surrogates and code points past U+10FFFF).
NOT_UTF8: tuple[tuple[str, bytes], ...] = (
    ("a lone 0xFF", b"\xff"),
    ("a sequence cut short", b"\xe2\x82"),
    ("an overlong encoding", b"\xc0\xaf"),
    ("an encoded surrogate", b"\xed\xa0\x80"),
    ("a code point past U+10FFFF", b"\xf4\x90\x80\x80"),
)
#: Valid octets after the first invalid one, so that its place is neither the body's start nor
#: its end (a writer that reads both ends decides on neither).
TAIL = 1000
#: Octets before a sequence that ends its body: past every edge but the 64 KiB ones.
BEFORE_LAST = 8193
#: Characters placed across the edges, by length: the smallest and largest of each length,
#: those either side of the surrogates, and U+FFFD.
CROSSING = {
    2: ("\u0080", "\u07ff"),
    3: ("\u0800", "\ud7ff", "\ue000", "\ufffd"),
    4: ("\U00010000", "\U0010ffff"),
}
#: The edges (all but the start, which no character crosses) in groups far enough apart that
#: a 4-octet character across one ends before the next begins.
CROSSED = ((1, 512, 1024, 4096, 8192, 65536), (511, 1023, 4095, 65535), (513,))
#: Valid octets after the last edge in a body of valid UTF-8, before its final character.
VALID_TAIL = 600
#: Random body counts either side of the same edges (65,536 and its neighbours are asked by
#: `random-bodies-every-form`).
RANDOM_COUNTS = (511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193)
OCTETS = "application/octet-stream"
#: Octets a part adds to its content in a batch: framing, Content-Id and Content-Type.
PART_OVERHEAD = 300


@dataclass(frozen=True)
class Body:
    """One body the check writes: what it holds, and its octets."""

    name: str
    octets: bytes


def _text(n: int) -> bytes:
    """n octets of valid UTF-8 holding characters of every length."""
    cycle = "ab\u00e9\u20ac\U0001f600 c\u0800\U0010ffff\n".encode()
    return (cycle * (n // len(cycle) + 1))[: n - n % len(cycle)] + b"x" * (n % len(cycle))


def _invalid_bodies() -> list[Body]:
    out: list[Body] = []
    for kind, seq in NOT_UTF8:
        for at in EDGES:
            octets = filler(at) + seq + _text(TAIL)
            out.append(Body(f"{kind} at octet {at} of {len(octets)}", octets))
        octets = filler(BEFORE_LAST) + seq
        out.append(Body(f"{kind} ending {len(octets)} octets", octets))
    return out


def _crossing(length: int, inside: int, edges: tuple[int, ...]) -> Body:
    """Valid UTF-8 with a `length`-octet character across each of `edges`, `inside` octets of
    it before the edge, and one more character ending the body."""
    chars = [c.encode() for c in CROSSING[length]]
    out = bytearray()
    for n, edge in enumerate(edges):
        at = edge - inside
        out += filler(at - len(out), len(out)) + chars[n % len(chars)]
    out += filler(VALID_TAIL, len(out)) + chars[-1]
    name = (
        f"valid UTF-8, {length}-octet characters across octets {', '.join(map(str, edges))}, "
        f"{inside} octets of each before it"
    )
    return Body(name, bytes(out))


#: Every C0 control and DEL: valid UTF-8 that a JSON string carries only escaped.
CONTROLS = (*range(0x20), 0x7F)


def _control_bodies() -> list[Body]:
    return [
        Body("every C0 control and DEL in a row", bytes(CONTROLS)),
        Body(
            "each C0 control and DEL between letters",
            b"".join(b"a" + bytes([c]) + b"b" for c in CONTROLS),
        ),
    ]


def bodies() -> list[Body]:
    """Every body the check writes: those that are no UTF-8, then those that are."""
    valid = [
        _crossing(length, inside, edges)
        for edges in CROSSED
        for length in CROSSING
        for inside in range(1, length)
    ]
    return [*_invalid_bodies(), *valid, *_control_bodies()]


def _essence(ctype: str | None) -> str:
    try:
        return parse_media_type(ctype or "")[0].lower()
    except ValueError:
        return (ctype or "").split(";")[0].strip().lower()


def _chunks(ctx: Context, judge: Judge, chosen: list[Body]) -> list[list[Body]]:
    """`chosen` in runs whose writes and reads fit one batch under the published limits; a body
    too large for any batch or part is left out."""
    parts = ctx.limit("max_parts")
    octets = ctx.limit("max_batch_bytes")
    part_octets = ctx.limit("max_part_bytes")
    if parts is not None and parts < 2:
        judge.note(f"max_parts {parts} leaves no room for a write and a read in one batch")
        return []
    out: list[list[Body]] = [[]]
    size = 0
    for body in chosen:
        need = len(body.octets) + 2 * PART_OVERHEAD
        if (octets and need > octets) or (part_octets and len(body.octets) > part_octets):
            judge.note(f"{body.name}: over a published limit; left out")
            continue
        full = parts is not None and 2 * (len(out[-1]) + 1) > parts
        if out[-1] and (full or (octets and size + need > octets)):
            out.append([])
            size = 0
        out[-1].append(body)
        size += need
    return [c for c in out if c]


def _member(ctx: Context, judge: Judge, coll: str) -> str | None:
    """A sandbox member of the check's own, created by a POST of sandbox.member alone, or None
    when the sandbox created none (the sandbox checks judge that answer)."""
    made = ctx.alone(
        judge,
        SubRequest(
            "POST",
            coll,
            (("Content-Type", "application/json"),),
            json.dumps(ctx.target.sandbox_member).encode(),
        ),
    )
    path = created_path(ctx, coll, made.get("Location"))
    if made.status != 201 or path is None:
        judge.note(f"a POST of sandbox.member alone answered {made.status}")
        return None
    return path


def _keeps_octets(ctx: Context, judge: Judge, member: str, sample: Body) -> bool:
    """Whether the sandbox stores `sample` as application/octet-stream and reads back its
    octets, learned by a write and a read alone (MB-TEST-3 lets it refuse such content)."""
    put = ctx.alone(judge, SubRequest("PUT", member, (("Content-Type", OCTETS),), sample.octets))
    if put.status not in (200, 201, 204):
        judge.note(f"a PUT of {len(sample.octets)} octets of {OCTETS} answered {put.status}")
        return False
    got = ctx.alone(judge, SubRequest("GET", member))
    kept = (
        got.status == 200
        and _essence(got.get("Content-Type")) == OCTETS
        and got.body == sample.octets
    )
    if not kept:
        judge.note(
            f"{OCTETS} written to {member} read back {got.status} {got.get('Content-Type')!r}, "
            f"{len(got.body)} octets: not the octets written"
        )
    return kept


def _json_members(resp: Response) -> list[str]:
    """The member each entry of a JSON form carries its body in (the reader checked the
    document against the schema and found exactly one in each)."""
    doc = loads_json_text(resp.body)
    return ["body" if "body" in entry else "body_base64" for entry in doc["responses"]]


def _written_and_read(ctx: Context, judge: Judge, member: str, chunk: list[Body]) -> None:
    """Write each body of `chunk` to `member` by a PUT part and read it by the next GET part,
    in every form; judge what each GET part carries."""
    subs: list[SubRequest] = []
    for body in chunk:
        subs.append(SubRequest("PUT", member, (("Content-Type", OCTETS),), body.octets))
        subs.append(SubRequest("GET", member))
    forms = answers_in_every_form(ctx, judge, subs)
    base = forms[0][2]
    read = [(m, e, _json_members(r) if m == JSON_FORM else []) for m, r, e in forms[1:]]
    for k, body in enumerate(chunk):
        put, get = base[2 * k], base[2 * k + 1]
        ctype = next((v for n, v in get.fields if n.lower() == "content-type"), None)
        if put.status not in (200, 201, 204) or get.status != 200 or _essence(ctype) != OCTETS:
            # MB-TEST-3: "a sandbox may store it or refuse it"; content taken for another media
            # type is not "the same octets" of the one written, and is not judged as such.
            judge.note(f"{body.name}: written {put.status}, read {get.status} {ctype!r}; left out")
            continue
        # MB-TEST-4: "for any other media type, the same octets".
        judge.expect_true(
            f"{body.name}: multipart/mixed part {2 * k + 1}",
            get.body == body.octets,
            f"{len(get.body)} octets",
            f"the {len(body.octets)} octets written",
            "MB-TEST-4",
        )
        for media, entries, members in read:
            entry = entries[2 * k + 1]
            label = f"{body.name}: {media} entry {2 * k + 1}"
            if media == JSON_FORM:
                # MB-MULTI-7: "in `body`, as a JSON string, when the body octets are valid
                # UTF-8 ...; otherwise in `body_base64`"; spec 6.4: "The rule depends on the
                # octets alone": all of them, wherever the one that decides lies.
                want = "body" if is_utf8(get.body) else "body_base64"
                judge.expect(f"{label} member", members[2 * k + 1], {want}, "MB-MULTI-7")
            # MB-MULTI-5: "carry the same information in every representation of one batch
            # result: for each part, in order, ... its body"; the readers decode `body`,
            # `body_base64` and `mb:body` as MB-MULTI-11 and MB-MULTI-6 say.
            judge.expect_true(
                f"{label} body as in multipart/mixed",
                entry.body == get.body,
                f"{len(entry.body)} octets, {_first_difference(entry.body, get.body)}",
                f"the {len(get.body)} octets of the multipart part",
                "MB-MULTI-5",
            )


def _first_difference(got: bytes, want: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
    if at is None:
        return (
            "equal"
            if len(got) == len(want)
            else f"differing in length at {min(len(got), len(want))}"
        )
    return f"first differing at octet {at}: {got[at : at + 8]!r} for {want[at : at + 8]!r}"


def _sandbox_bodies(ctx: Context, judge: Judge) -> bool:
    """Judge the chosen bodies through the sandbox; False when it does not keep such octets."""
    coll = ctx.target.resource("sandbox_collection")
    if not coll or ctx.target.sandbox_member is None or not ctx.target.sandbox_reads_back:
        judge.note("the target declares no sandbox member that reads back")
        return False
    member = _member(ctx, judge, ctx.path(coll))
    if member is None:
        return False
    chosen = bodies()
    invalid = [b for b in chosen if not is_utf8(b.octets)]
    valid = [b for b in chosen if is_utf8(b.octets)]
    try:
        if not _keeps_octets(ctx, judge, member, invalid[EDGES.index(512)]):
            return False
        # The bodies of each kind in batches of their own, so that a form refused for one kind
        # (a reader refuses valid UTF-8 in body_base64) leaves the other judged first.
        chunks = [*_chunks(ctx, judge, invalid), *_chunks(ctx, judge, valid)]
        for chunk in chunks:
            _written_and_read(ctx, judge, member, chunk)
    finally:
        ctx.alone(judge, SubRequest("DELETE", member))
    return bool(chunks)


def _random_bodies(ctx: Context, judge: Judge) -> bool:
    """Judge random bodies either side of the edges in every form; False without a random
    resource that serves them."""
    template = ctx.target.resource("random")
    if not template:
        return False
    random = ctx.path(template)
    part_limit = ctx.limit("max_part_bytes")
    counts = [n for n in RANDOM_COUNTS if part_limit is None or n <= part_limit]
    parts_limit = ctx.limit("max_parts")
    if parts_limit is not None:
        counts = counts[: int(parts_limit)]
    if not counts:
        return False
    largest = SubRequest("GET", random.replace("{n}", str(counts[-1])))
    if 400 <= ctx.alone(judge, largest).status < 500:
        # MB-TEST-5: "with a 4xx status for any larger *n*": the resource serves no such body.
        judge.note(f"the random resource refused a body of {counts[-1]} octets")
        return False
    subs = [SubRequest("GET", random.replace("{n}", str(n))) for n in counts]
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for n, entry in zip(counts, entries, strict=True):
            # MB-TEST-5: "exactly *n* octets of content", which each form carries by its own
            # sentence; in the JSON form MB-MULTI-7's member decodes to those octets, so a body
            # written as text with its invalid octets replaced or dropped has another count.
            judge.expect(
                f"{media} random body of {n} octets", len(entry.body), {n}, BODY_REQUIREMENT[media]
            )
    return True


@checker(
    "multistatus-body-members-whole-body",
    ("MB-MULTI-7", "MB-MULTI-5", "MB-TEST-4", "MB-MULTI-6", "MB-RESP-4"),
    "The JSON form chooses body or body_base64 by every octet of a body, and every form carries its octets, for bodies written to a sandbox member whose first octet that is no UTF-8 (0xFF, a cut sequence, an overlong form, a surrogate, a code point past U+10FFFF) lies at 0, 1, either side of 512, 1 KiB, 4 KiB, 8 KiB or 64 KiB or at the last octet, for valid characters across those offsets, for every C0 control and DEL, and for random bodies of those sizes.",
    profile="json",
    state=State.WRITES_IN_SANDBOX,
)
def multistatus_body_members_whole_body(ctx: Context, judge: Judge) -> None:
    judged = _sandbox_bodies(ctx, judge)
    judged = _random_bodies(ctx, judge) or judged
    if not judged:
        judge.not_applicable(
            "the sandbox keeps no application/octet-stream octets and no random resource serves "
            "bodies of these sizes"
        )
