"""The trailer section of a chunked batch is not read as its header section (spec 8.2, 10.1).

Theory of operation: a chunked batch request may end with a trailer section (RFC 9112 §7.1.2),
and RFC 9110 §6.5.1 keeps its fields out of the header section: "A recipient MUST NOT merge a
trailer field into a header section unless the recipient understands the corresponding header
field definition and that definition explicitly permits and defines how trailer field values
can be safely merged". No field the spec gives meaning on a batch request permits it:
`Batch-Mode` appears in the "batch request header section" (spec 13.1), and `Authorization`,
`Cookie`, `Prefer`, `Accept` and `Accept-Encoding` are defined as request header fields. A
server whose HTTP stack hands the trailer fields over with the header fields once the content
has been read (Go's `Request.Trailer` copied into `Request.Header`, a servlet container whose
`getHeader` answers trailer fields after the content ends) lets a field the client sent only
after the last chunk pass on to the parts as an inherited credential, or choose the policy,
the mode, the form or the coding of the answer.

RFC 9112 §7.1.2 lets a recipient "selectively retain or discard the received trailer fields",
so the one answer allowed is the one the same chunked batch gets without its trailer section,
which MB-INTER-5 makes the answer to the content framed by `Content-Length`. That answer is
learnt from the same server: two batches, one of an `echo` part and one of the `not_found`
part, which fails, then an `echo` part, are each sent chunked without a trailer, then once for
each field of `TRAILER_FIELDS` sent only as a trailer field, both announced by a `Trailer`
header field naming it and unannounced. Each answer must have the status, media type,
`Content-Encoding` and `Preference-Applied` of the batch without the trailer, each part the
status and `Batch-Outcome` it has there, and each echo part the request it received there
(compared as spec 3.2.4 compares requests). Over HTTP/2 the suite's client carries no request
trailer fields, so the check does not apply.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import small_chunked
from mixbatch_conformance.checks._shared.parts_alike import BaselineBatch
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-trailer-fields-5e0c27a94d1b"
#: The query that marks the echo parts.
ECHO_QUERY = "mb-trailer-field="

#: MB-SUB-5 inherits the batch request's Authorization and Cookie, MB-SUB-6 nothing else: "A
#: server MUST NOT apply any other header field of the batch request to a sub-request".
INHERIT = "MB-SUB-6"
#: MB-PROC-5: "A server MUST apply the `continue` policy to a batch request that does not ask
#: for another policy: every part runs whatever earlier parts returned".
POLICY = "MB-PROC-5"
#: MB-MULTI-1: "A server MUST choose the representation of a batch result by the request's
#: `Accept` field ..., and MUST choose `multipart/mixed` when `Accept` is absent".
FORM = "MB-MULTI-1"
#: MB-INTER-5: "A server MUST accept batch request content framed by the chunked transfer
#: coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
#: `Content-Length`": content so framed has no trailer section.
FRAMING = "MB-INTER-5"

#: (name, value, the requirement the batch's answer breaks when the field is applied): each
#: field would change the batch if read as a header field. Whatever the field, an echo part
#: that receives it breaks MB-SUB-6.
TRAILER_FIELDS: tuple[tuple[str, str, str], ...] = (
    # Inherited by every part without its own (MB-SUB-5), when in the header section.
    ("Cookie", "mb-trailer-cookie=1", INHERIT),
    ("Authorization", "Bearer mb-trailer-token", INHERIT),
    # The stop policy: the echo after the failing part skipped.
    ("Prefer", "batch-on-error=stop", POLICY),
    # The atomic mode: the echo after the failing part skipped (or 501 where not offered);
    # a mode no server implements: 501 (MB-PROC-12).
    ("Batch-Mode", "atomic", POLICY),
    ("Batch-Mode", "mb-trailer-mode", FRAMING),
    # Another form of the result, and one the server cannot give: 406.
    *((("Accept", accept, FORM) for _, accept, _, _ in MULTISTATUS_FORMS)),
    ("Accept", "text/x-mb-trailer-form", FORM),
    # A content coding of the answer.
    ("Accept-Encoding", "gzip", FRAMING),
    ("Accept-Encoding", "deflate", FRAMING),
    # A media type the batch endpoint refuses (415), had it replaced the header's.
    ("Content-Type", "text/plain", FRAMING),
    # Fields a server passes on to parts where it passes on every field.
    ("Cache-Control", "no-store", INHERIT),
    ("X-Mb-Trailer-Probe", "mb-trailer-only", INHERIT),
)


def _request(
    ctx: Context, subs: list[SubRequest], trailer: tuple[str, str] | None, announce: bool
) -> bytes:
    """`subs` as a chunked batch, with `trailer` as its one trailer field (announced by a
    Trailer header field when `announce`)."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    if trailer is not None and announce:
        head.append(("Trailer", trailer[0]))
    head.append(("Transfer-Encoding", "chunked"))
    lines = (f"{trailer[0]}: {trailer[1]}",) if trailer is not None else ()
    content = small_chunked(compose_batch(subs, BOUNDARY), "", "", lines)
    return ctx.raw_request("POST", ctx.batch_path, head, content)


def _top(resp: Response, name: str) -> tuple[str, ...]:
    return tuple(v for n, v in resp.headers if n.lower() == name.lower())


class _Batch(BaselineBatch):
    """One batch as answered chunked without a trailer section: what each answer with a
    trailer field must be."""

    def __init__(self, ctx: Context, judge: Judge, name: str, subs: list[SubRequest]) -> None:
        resp = ctx.send(judge, _request(ctx, subs, None, False))
        super().__init__(ctx, judge, name, subs, resp, ECHO_QUERY)

    def expect_like(
        self, ctx: Context, judge: Judge, label: str, resp: Response, requirement: str
    ) -> None:
        """Expect `resp` to answer this batch as it was answered without a trailer."""
        what = f"{label}, {self.name}"
        # RFC 9112 §7.1.2 ("MAY selectively retain or discard the received trailer fields")
        # and RFC 9110 §6.5.1 ("MUST NOT merge a trailer field into a header section unless
        # ..."): the batch is answered as the same content without the trailer, under the
        # requirement the field would break if read as a header field: MB-INTER-5 (the
        # answer to the content framed by Content-Length), MB-PROC-5 (the batch asks for no
        # other policy in its header section), MB-MULTI-1 (its header section holds no
        # Accept, so the form is multipart/mixed) or MB-SUB-6.
        if not judge.expect(
            f"{what}: top-level status", resp.status, {self.resp.status}, requirement
        ):
            return
        if not judge.expect(
            f"{what}: media type", resp.media_type, {self.resp.media_type}, requirement
        ):
            return
        # MB-INTER-5: the answer is coded as without the trailer (no Accept-Encoding read
        # from it); a coded answer is not read further.
        if not judge.expect(
            f"{what}: top-level Content-Encoding",
            _top(resp, "Content-Encoding"),
            {_top(self.resp, "Content-Encoding")},
            FRAMING,
        ):
            return
        # MB-PROC-5: the batch asks for no policy in its header section, so no
        # Preference-Applied reports one it does not have without the trailer.
        judge.expect(
            f"{what}: top-level Preference-Applied",
            _top(resp, "Preference-Applied"),
            {_top(self.resp, "Preference-Applied")},
            POLICY,
        )
        env = ctx.read_batch(judge, resp)
        if not judge.expect(f"{what}: part count", len(env.parts), {len(self.subs)}, requirement):
            return
        # The part runs as in the batch without the trailer: under the continue policy
        # (MB-PROC-5), and with only the header's credentials (MB-SUB-6); its resource
        # receives the request it receives without the trailer (MB-SUB-6).
        self.expect_parts_alike(
            ctx,
            judge,
            what,
            env,
            without="the trailer",
            part_requirement=requirement,
            echo_requirement=INHERIT,
            echo_after_change=False,
        )


@checker(
    "chunked-trailer-fields-not-read-as-header",
    (FRAMING, INHERIT, POLICY, FORM),
    "A chunked batch (an echo part; a failing part then an echo part) whose trailer section alone carries Cookie, Authorization, Prefer: batch-on-error=stop, Batch-Mode, Accept, Accept-Encoding, Content-Type or another field, announced by Trailer or not, is answered as without the trailer: the same status, media type, Content-Encoding, Preference-Applied, part statuses and outcomes, and each echo part the same request.",
    state=State.READ_ONLY,
    direct_only=(
        "an intermediary removes the chunked coding and forwards the content in framing of its "
        "own, so the trailer section never reaches the server as sent (mitmproxy stalls on a "
        "request's trailer section)"
    ),
)
def chunked_trailer_fields_not_read_as_header(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the suite's HTTP/2 client sends no request trailer fields")
    echo = ctx.path(ctx.resource(judge, "echo"))
    _, nf = ok_and_not_found(ctx, judge)
    batches = [
        _Batch(ctx, judge, "an echo part", [SubRequest("GET", f"{echo}?{ECHO_QUERY}one")]),
        _Batch(
            ctx,
            judge,
            "a failing part then an echo part",
            [nf, SubRequest("GET", f"{echo}?{ECHO_QUERY}after-failure")],
        ),
    ]
    for name, value, requirement in TRAILER_FIELDS:
        for announce in (True, False):
            how = "announced by Trailer" if announce else "unannounced"
            label = f"trailer field {name}: {value} ({how})"
            for batch in batches:
                resp = ctx.send(judge, _request(ctx, batch.subs, (name, value), announce))
                batch.expect_like(ctx, judge, label, resp, requirement)
