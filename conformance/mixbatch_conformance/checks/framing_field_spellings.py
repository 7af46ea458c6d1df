"""The batch request's framing and type fields named in any case, with any OWS around their
values: the same well-formed batch, processed (MB-STATUS-1).

Theory of operation: a batch request frames its content by `Content-Length` or by
`Transfer-Encoding: chunked`, names its media type by `Content-Type` and its authority by
`Host`. HTTP lets each of these field lines be written more than one way: "Field names are
case-insensitive" (RFC 9110 §5.1), and "field-line = field-name ":" OWS field-value OWS" (RFC
9112 §5), with "OWS = *( SP / HTAB )" (RFC 9110 §5.6.3) excluded from the value ("a field value
does not include leading or trailing whitespace", RFC 9110 §5.5). A server, or the HTTP stack
in front of it, that reads these fields as one spelling only (the name as RFC 9112 writes it, a
space but no tab around the value, one octet of whitespace at most) refuses, or misframes, a
batch that is well-formed, and MB-STATUS-1 says "A server MUST answer a well-formed batch that
it processed with 200 (OK)". The two spellings meet where a stack takes them apart: a name in
another case whose value a tab follows is the form neither the case variant nor the
whitespace variant of a run (core.variants) sends, each sending one alone.

The check sends one-part batches (a GET of the ok resource) spelt:

- with all four fields alike: each OWS form of `OWS_FORMS` (none, SP, HTAB, one or several,
  before, after or on both sides of the value) with their names as written, in lower, upper
  and alternating case;
- with one field so spelt, the others as written, for each field, OWS form and name spelling;

each framed by `Content-Length` and by the chunked transfer coding (`Content-Length` and
`Transfer-Encoding` each in its own framing). The requests framed by `Content-Length` share a
kept connection, in order, as a client's do: a server that takes one for another framing than
it has reads the next request from the wrong octet, and the name spellings alternate so that a
request named as written follows one named otherwise. Each answer is 200 with the part answered
(MB-STATUS-1), and where the `Transfer-Encoding` line is the one spelt otherwise, MB-INTER-5 is
the requirement it breaks: the chunked content is not accepted.

What is learned first: the batch written as usual (`Host`, `Content-Type` and the framing
field as RFC 9112 spells them, one space after the colon) must be processed, else nothing is
judged; the chunked framing is judged only when the batch so framed, written as usual, is
processed (whether it is, MB-INTER-5, is the chunked checks' to judge). Not applicable over
HTTP/2, which has no field lines to spell, and through an intermediary, which may write the
request anew before the origin sees it.
"""

from __future__ import annotations

from collections.abc import Iterator

from mixbatch_conformance.checks._shared.spellings import spellings
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-framing-spelt-4b7e1c09a36d52f8"
#: The fields of the batch request's own header section whose spelling the check varies.
FIELDS = ("Host", "Content-Type", "Content-Length", "Transfer-Encoding")
#: OWS (RFC 9110 §5.6.3: `*( SP / HTAB )`) before and after a value: none, one SP, one HTAB
#: before or after alone or on both sides, and several of either, mixed.
OWS_FORMS = (
    ("", ""),
    (" ", " "),
    ("\t", ""),
    ("", "\t"),
    ("\t", "\t"),
    (" \t", "\t "),
    ("\t\t", "  \t"),
    ("", " \t \t"),
)
#: How each name of `_names` is spelt, in its order.
CASES = ("as written", "in lower case", "in upper case", "in alternating case")
#: The framings: by Content-Length, and by the chunked transfer coding.
LENGTH, CHUNKED = "Content-Length", "Transfer-Encoding"


def _names(field: str) -> tuple[str, ...]:
    """`field` as RFC 9112 spells it, then in lower, upper and alternating case."""
    return (field, *spellings(field))


def _chunked(body: bytes) -> bytes:
    """`body` in the chunked transfer coding (RFC 9112 §7.1), in two chunks and the last."""
    half = len(body) // 2
    out = b""
    for piece in (body[:half], body[half:]):
        if piece:
            out += f"{len(piece):X}\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def _request(
    ctx: Context,
    framing: str,
    body: bytes,
    spelt: dict[str, tuple[str, str, str]],
) -> bytes:
    """The batch request framed by `framing`, each field of `spelt` written as (name, OWS
    before, OWS after) and every other as RFC 9112 spells it with one space after the colon."""
    values = {
        "Host": ctx.authority,
        "Content-Type": f"multipart/mixed; boundary={BOUNDARY}",
        LENGTH: str(len(body)),
        CHUNKED: "chunked",
    }
    order = ("Host", "Content-Type", framing)
    lines = [f"POST {ctx.batch_path} HTTP/1.1"]
    for field in order:
        name, before, after = spelt.get(field, (field, " ", ""))
        lines.append(f"{name}:{before}{values[field]}{after}")
    names = {f.lower() for f in order}
    lines += [f"{n}: {v}" for n, v in ctx.target.credentials if n.lower() not in names]
    content = _chunked(body) if framing == CHUNKED else body
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + content


def _cases(framing: str) -> Iterator[tuple[str, dict[str, tuple[str, str, str]]]]:
    """(label, spelling) for every case of `framing`: all fields alike, then one at a time."""
    fields = [f for f in FIELDS if f in ("Host", "Content-Type", framing)]
    for before, after in OWS_FORMS:
        for i, case in enumerate(CASES):
            spelt = {f: (_names(f)[i], before, after) for f in fields}
            yield f"every field named {case}, OWS {before!r} {after!r}", spelt
    for field in fields:
        for before, after in OWS_FORMS:
            for name in _names(field):
                yield f"{name!r} with OWS {before!r} {after!r}", {field: (name, before, after)}


@checker(
    "batch-framing-fields-any-case-and-ows",
    ("MB-STATUS-1", "MB-INTER-5"),
    "A one-part batch whose Host, Content-Type, Content-Length or Transfer-Encoding is named as written or in lower, upper or alternating case, with no, one or several spaces and tabs before and after its value (each field so, and all of them at once), framed by Content-Length on one kept connection and chunked, is answered 200 with its part processed.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may write the request's field lines anew",
)
def batch_framing_fields_any_case_and_ows(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 carries fields without field lines to spell")
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    body = compose_batch([ok], BOUNDARY)
    framings: list[str] = []
    for framing in (LENGTH, CHUNKED):
        resp = ctx.send(judge, _request(ctx, framing, body, {}), as_written=True)
        judge.note(f"the batch framed by {framing}, written as usual: {resp.status}")
        if resp.status == 200:
            framings.append(framing)
    if LENGTH not in framings:
        judge.not_applicable("the batch written as usual was not answered 200")
    for framing in framings:
        how = "chunked" if framing == CHUNKED else "by Content-Length"
        for label, spelt in _cases(framing):
            resp = ctx.send(judge, _request(ctx, framing, body, spelt), as_written=True)
            what = f"framed {how}, {label}"
            # MB-STATUS-1: "A server MUST answer a well-formed batch that it processed with
            # 200 (OK)": field names are case-insensitive (RFC 9110 §5.1) and OWS around a
            # field value is no part of it (RFC 9112 §5, RFC 9110 §5.5), so this is the batch
            # written as usual.
            # MB-INTER-5: a server "MUST accept batch request content framed by the chunked
            # transfer coding": a Transfer-Encoding spelt otherwise still names it.
            cited = "MB-INTER-5" if CHUNKED in spelt else "MB-STATUS-1"
            judge.expect(f"status, {what}", resp.status, {200}, cited)
            if resp.status == 200:
                expect_processed(ctx, judge, resp, [ok.content_id], [{200}], cited)
