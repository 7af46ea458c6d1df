"""A part's fields are its sub-request's, not the batch's (spec 3.2.3, MB-PART-8).

Theory of operation: several rules bind the batch request by its fields: its content coding
(MB-INTER-6), its multipart/mixed media type, its Prefer (MB-PROC-5, MB-PROC-6), its
Batch-Mode (MB-PROC-17), its Accept (MB-MULTI-1). The same fields in a part are the
sub-request's: MB-PART-8 makes "a request part's header fields other than `Http-Method` and
`Content-Id`" the sub-request's header fields and "the part body as the sub-request's content",
and only MB-PART-10's list (Transfer-Encoding, Expect, ...) is refused in a part. A server that
applies a batch rule to a part's fields refuses a coded or multipart part, runs the batch under
stop or atomic, answers in another form, or decodes the part's content. Each such field goes in
a part to the `echo`, after a part that fails, and the batch must be answered as continue
answers it: every part with the status it gets alone and no outcome, in multipart/mixed, each
echo part the same request as alone (spec 3.2.4), its content octet for octet.
"""

from __future__ import annotations

import gzip
import zlib

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The content each coded part carries, before its coding.
PLAIN = b"mb-suite part content, coded by the part itself\n"
#: A body that reads as a batch of its own: a part of multipart/mixed type is content.
INNER_BATCH = b"--mb-inner\r\nHttp-Method: DELETE\r\nContent-Id: </mb-suite-inner>\r\n\r\n\r\n--mb-inner--\r\n"

#: (label, method, fields, content) of parts whose fields a batch rule would read.
PART_FIELDS: tuple[tuple[str, str, tuple[tuple[str, str], ...], bytes], ...] = (
    (
        "Content-Encoding gzip",
        "PUT",
        (("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")),
        gzip.compress(PLAIN, mtime=0),
    ),
    (
        "Content-Encoding deflate",
        "POST",
        (("Content-Type", "text/plain"), ("Content-Encoding", "deflate")),
        zlib.compress(PLAIN),
    ),
    (
        "Content-Encoding unknown",
        "POST",
        (("Content-Type", "text/plain"), ("Content-Encoding", "x-mb-part-coding")),
        PLAIN,
    ),
    ("Content-Encoding on a GET", "GET", (("Content-Encoding", "gzip"),), b""),
    (
        "Content-Type multipart/mixed",
        "POST",
        (("Content-Type", "multipart/mixed; boundary=mb-inner"),),
        INNER_BATCH,
    ),
    (
        "Content-Type multipart/mixed, no boundary",
        "POST",
        (("Content-Type", "multipart/mixed"),),
        PLAIN,
    ),
    ("Prefer batch-on-error=stop", "GET", (("Prefer", "batch-on-error=stop"),), b""),
    ("Batch-Mode atomic", "GET", (("Batch-Mode", "atomic"),), b""),
    ("Batch-Mode unknown", "GET", (("Batch-Mode", "x-mb-part-mode"),), b""),
    ("Accept XML", "GET", (("Accept", "application/xml"),), b""),
    (
        "Accept JSON multistatus",
        "GET",
        (("Accept", "application/vnd.mixbatch.multistatus+json"),),
        b"",
    ),
    ("Accept JSON", "GET", (("Accept", "application/json"),), b""),
    ("Accept-Encoding gzip", "GET", (("Accept-Encoding", "gzip"),), b""),
    ("Prefer return=minimal", "GET", (("Prefer", "return=minimal, respond-async"),), b""),
    (
        "digests and an idempotency key",
        "POST",
        (
            ("Content-Type", "text/plain"),
            ("Content-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"),
            ("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"),
            ("Digest", "SHA-256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
            ("Content-MD5", "AAAAAAAAAAAAAAAAAAAAAA=="),
            ("Idempotency-Key", '"mb-suite-part-key"'),
        ),
        PLAIN,
    ),
    (
        "content language and location",
        "PUT",
        (
            ("Content-Type", "text/plain"),
            ("Content-Language", "x-mb-part"),
            ("Content-Location", "/mb-suite/part-location"),
        ),
        PLAIN,
    ),
)


@checker(
    "part-batch-rule-fields-as-alone",
    ("MB-PART-8", "MB-PROC-5"),
    "Parts carrying Content-Encoding (gzip, deflate, unknown), a multipart/mixed Content-Type, Prefer batch-on-error=stop, Batch-Mode, Accept of a multistatus form, Accept-Encoding, digests and an idempotency key are each the same request as alone, after a failing part: no batch rule is applied to them, the batch stays multipart/mixed under continue.",
    state=State.READ_ONLY,
)
def part_batch_rule_fields_as_alone(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    echo = ctx.path(ctx.resource(judge, "echo"))
    labels = ["not_found", *(label for label, _, _, _ in PART_FIELDS), "ok"]
    subs = [
        nf,
        *(
            SubRequest(method, f"{echo}?mb-part-rule={i}", fields, body)
            for i, (_, method, fields, body) in enumerate(PART_FIELDS)
        ),
        ok,
    ]
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    # MB-PART-8: "take a request part's header fields other than `Http-Method` and `Content-Id`
    # as the sub-request's header fields ... and the part body as the sub-request's content":
    # none of these is a field MB-PART-10 refuses, so the batch is processed, in the batch's
    # own form (no Accept on the batch request: multipart/mixed).
    judge.require("top-level status", resp.status, {200}, "MB-PART-8")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-8")
    for i, (label, sub, single) in enumerate(zip(labels, subs, alone, strict=True)):
        what = f"part {i} ({label})"
        # MB-PROC-5: "apply the `continue` policy to a batch request that does not ask for
        # another policy": a part's Prefer or Batch-Mode asks nothing of the batch, so no part
        # is skipped or rolled back after the failing first one.
        judge.expect(f"{what} outcome", env.parts[i].get("Batch-Outcome"), {None}, "MB-PROC-5")
        expect_same_as_alone(
            ctx,
            judge,
            what,
            sub,
            (part_status(env, i), env.parts[i].fields, env.parts[i].body),
            (single.status, single.headers, single.body),
        )
    # MB-PART-8: the fields above are each its part's sub-request's, so the batch, asking
    # nothing itself, runs every part: a part's Prefer or Batch-Mode made the batch's is a
    # part's field taken for another request's.
    judge.expect(
        "every part's outcome",
        tuple(p.get("Batch-Outcome") for p in env.parts),
        {(None,) * len(subs)},
        "MB-PART-8",
    )
    applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
    # MB-PROC-5: no batch-on-error preference on the batch request, so none applied.
    judge.expect_true(
        "Preference-Applied",
        "batch-on-error=stop" not in applied.split(","),
        repr(applied),
        "no batch-on-error=stop",
        "MB-PROC-5",
    )
