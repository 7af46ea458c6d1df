"""Streaming in order in the XML and JSON forms (spec 7.3, MB-PROC-4): entry 0 arrives before a
slow part 1 finishes.

Theory of operation: MB-PROC-4 (SHOULD) asks a server to "write each response part as soon as
that part and every part before it are complete, without waiting for later parts", and names no
representation; in a 207 form the part's response is its entry (MB-MULTI-3, MB-MULTI-4). The
check sends the [ok, delay] batch of `parts-streamed-in-order` asking for each 207 form the
target offers, reads the answer as it arrives, and notes when entry 0 is complete and when the
answer ends:

    XML    entry 0 is complete when the first `response` element of any prefix has closed
           (`</D:response>`): bodies are base64 and field values escaped (MB-MULTI-6), so the
           text cannot hold such a tag
    JSON   entry 0 is complete when the first element of the top-level `responses` array has
           closed, found by a scanner that follows strings, escapes and nesting; a document that
           writes `summary` first, as the spec's example does, can only do so once every part has
           run (its counts are known only then), which holds entry 0 back as holding the part does
           (spec 6.4: member order in the document is free)

An answer that is not the form asked for, or not a 207, or one in a content coding (identity is
asked for), or one that came whole before the slow part could have waited, is noted and not
judged (the negotiation checks judge which representation a server chooses). A target whose
delay resource declares a largest wait below the slow part's is not applicable. The atomic profile's batches
are the spec's exception and none is sent. An intermediary may buffer a whole response, so the
check runs direct only, over plain HTTP/1.1, and waits out the slow part (standard tier).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import h11

from mixbatch_conformance.checks._shared.accept_cases import JSON, XML, offered_forms
from mixbatch_conformance.checks._shared.arrivals import arrivals, quick_and_slow
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: How long the slow part waits; entry 0 must arrive this much earlier, less the margin.
DELAY_MS = 1500
MARGIN_S = 0.5
BOUNDARY = "mb-stream-forms-5e2a81c4d09b"
BUFFERING_INTERMEDIARY = "an intermediary may buffer a whole response before it forwards any of it"
#: The close of a `DAV:response` element under any prefix: an XML name may hold characters
#: past US-ASCII (XML 1.0 §2.3), so a prefix is any run of octets that cannot end a name.
_XML_RESPONSE_END = re.compile(rb"</(?:[^\x00-\x20<>/:='\"]+:)?response\s*>")


def xml_entry0_complete(content: bytes) -> bool:
    """Whether the first `response` element of an XML multistatus document has closed."""
    return _XML_RESPONSE_END.search(content) is not None


def json_entry0_complete(content: bytes) -> bool:
    """Whether the first element of the top-level `responses` array of a JSON document has
    closed: a scan that follows strings (and their escapes) and nesting, so that a `]` or `}`
    inside a string, or the same member name deeper down, is not taken for it."""
    depth = 0
    in_string = escaped = False
    string_start = 0
    last_key = b""
    in_responses = False
    for i, octet in enumerate(content):
        if in_string:
            if escaped:
                escaped = False
            elif octet == 0x5C:  # backslash
                escaped = True
            elif octet == 0x22:  # the closing quote
                in_string = False
                if depth == 1:
                    last_key = content[string_start:i]
            continue
        if octet == 0x22:
            in_string, string_start = True, i + 1
        elif octet in (0x7B, 0x5B):  # { [
            depth += 1
            if depth == 2 and octet == 0x5B and last_key == b"responses":
                in_responses = True
        elif octet in (0x7D, 0x5D):  # } ]
            depth -= 1
            if in_responses and depth == 2:
                return True
            if depth <= 1:
                in_responses = False
        elif octet == 0x2C and depth == 1:  # a comma between top-level members
            last_key = b""
    return False


class Timed(NamedTuple):
    """An answer read as it arrived: its status, media type and content, and the seconds until
    entry 0 was complete and until the answer ended (None: never)."""

    status: int | None
    media: str
    content: bytes
    first: float | None
    last: float | None
    #: Whether the answer names a content coding other than identity.
    coded: bool = False


def _timed_read(ctx: Context, request: bytes, complete: Callable[[bytes], bool]) -> Timed:
    status: int | None = None
    media = ""
    content = bytearray()
    first = last = None
    coded = False
    for at, arrival in arrivals(ctx, request):
        if isinstance(arrival, h11.Response):
            status = arrival.status_code
            for name, value in arrival.headers:
                if name == b"content-type":
                    media = value.decode("latin-1").split(";")[0].strip().lower()
                if name == b"content-encoding":
                    coded = coded or value.strip().lower() not in (b"", b"identity")
        elif isinstance(arrival, bytes):
            content += arrival
            if first is None and complete(bytes(content)):
                first = at
        else:
            last = at
    return Timed(status, media, bytes(content), first, last, coded)


@checker(
    "parts-streamed-in-every-form",
    ("MB-PROC-4",),
    "In the XML and JSON forms the target offers, entry 0 of a batch whose part 1 is slow is written before that part finishes (in the JSON form, the responses array before the summary).",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=BUFFERING_INTERMEDIARY,
)
def parts_streamed_in_every_form(ctx: Context, judge: Judge) -> None:
    forms = [form for form in offered_forms(ctx) if form in (XML, JSON)]
    if not forms:
        judge.not_applicable("the target offers neither the xml nor the json profile")
    subs = list(quick_and_slow(ctx, judge, DELAY_MS))
    body = compose_batch(subs, BOUNDARY)
    judged = 0
    for form in forms:
        # Identity asked for, so that entry 0 is read from the octets as they come.
        head = [
            ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
            ("Accept", form),
            ("Accept-Encoding", "identity"),
        ]
        request = ctx.raw_request("POST", ctx.batch_path, head, body)
        complete = xml_entry0_complete if form == XML else json_entry0_complete
        timed = _timed_read(ctx, request, complete)
        if timed.status != 207 or timed.media != form or timed.last is None or timed.coded:
            judge.note(
                f"Accept: {form}: answered {timed.status} {timed.media!r}"
                f"{'' if timed.last is not None else ', not ended'}"
                f"{', in a content coding' if timed.coded else ''}: not judged"
            )
            continue
        if timed.last < DELAY_MS / 1000 - MARGIN_S:
            # The slow part did not wait (a delay the resource refused, or served sooner):
            # nothing was there to stream ahead of.
            judge.note(f"Accept: {form}: answered whole in {timed.last:.2f} s: not judged")
            continue
        judged += 1
        first, last = timed.first, timed.last
        # MB-PROC-4: "SHOULD write each response part as soon as that part and every part
        # before it are complete, without waiting for later parts".
        judge.expect_true(
            f"Accept: {form}: entry 0 before the slow part finished",
            first is not None and first <= last - DELAY_MS / 1000 + MARGIN_S,
            "entry 0 never complete"
            if first is None
            else f"entry 0 complete at {first:.2f} s, the answer at {last:.2f} s",
            f"entry 0 at least {DELAY_MS / 1000 - MARGIN_S:g} s before the end (SHOULD)",
            "MB-PROC-4",
        )
    if not judged:
        judge.not_applicable("no 207 form was answered as asked for")
