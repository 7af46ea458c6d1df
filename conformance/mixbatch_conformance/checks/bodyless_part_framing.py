"""The empty line after the header section of a response part that has no body (spec 3.1.2).

Theory of operation: RFC 2046 writes `body-part := MIME-part-headers [CRLF *OCTET]`, so a
part may end with its last field line, the CRLF before the next delimiter being the
delimiter's own. MB-WIRE-21 makes a receiver accept that; MB-WIRE-7 makes a sender always write
the empty line. A writer that writes the empty line only "when a body follows" is caught only
by a part with no body, so the check asks for every kind of bodyless part a read-only batch
can hold, in the first, a middle and the last position: a HEAD, a GET answered 304 through
`If-None-Match: *`, an OPTIONS, and, where the target offers the modes, the `skipped` parts
after a stop and the `rolled-back` HEAD of an atomic batch. Each answer is read by the
suite's strict reader (`Context.read_batch`), which reports a header section that runs into
the next delimiter as a finding citing MB-WIRE-7. It writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The modes that leave bodyless outcome parts: (profile, the request field asking for it).
STOPPING_MODES = (
    ("error-policy", ("Prefer", "batch-on-error=stop")),
    ("atomic", ("Batch-Mode", "atomic")),
)


@checker(
    "bodyless-response-parts-keep-empty-line",
    ("MB-WIRE-7",),
    "A response part without a body (HEAD, 304, OPTIONS, skipped, rolled-back), first, middle or last, still ends its header section with the empty line.",
    state=State.READ_ONLY,
)
def bodyless_response_parts_keep_empty_line(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    head = SubRequest("HEAD", ok)
    # RFC 9110 §13.1.2: If-None-Match `*` is false when a current representation exists, so a
    # GET of the ok resource is answered 304 with no content.
    not_modified = SubRequest("GET", ok, (("If-None-Match", "*"),))
    options = SubRequest("OPTIONS", ok)
    batches: list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]] = [
        ("plain batch", [head, not_modified, options, not_modified, head], ()),
    ]
    for profile, field in STOPPING_MODES:
        if ctx.target.claims(profile):
            # The part after the failing GET is skipped (MB-PROC-6, MB-PROC-8), an outcome
            # part with no body; in the atomic batch the HEAD before it is rolled back.
            batches.append((profile, [head, SubRequest("GET", nf), head, head], (field,)))
    for label, subs, fields in batches:
        resp = ctx.batch(judge, subs, headers=fields)
        judge.note(f"{label}: {resp.status} with {len(resp.body)} octets")
        # MB-WIRE-7: "A sender MUST end every delimiter line, every part header line and the
        # empty line that ends a part header section with CRLF": the reader judges every part,
        # and a part whose header section meets the next delimiter without the empty line is
        # a finding against MB-WIRE-7.
        env = ctx.read_batch(judge, resp)
        judge.expect("part count", len(env.parts), {len(subs)}, "MB-RESP-1")
