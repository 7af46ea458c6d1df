"""Conditional fields judged by RFC 9110 §13 itself, not only by the request sent alone.

Theory of operation: MB-PROC-9 asks a part's conditional fields to be evaluated "(RFC 9110
§13) exactly as for the standalone request". Comparing a part with the same request alone
sees nothing when a server evaluates a field wrongly in both places, so these checks judge the
part by the status RFC 9110 §13 gives for the validators the same server sends (ETag and
Last-Modified of a plain GET): If-None-Match uses the weak comparison (§8.8.3.2), so the tag,
its W/ form, a list holding it and `*` all match and GET and HEAD get 304 (§13.1.2);
If-Modified-Since equal to Last-Modified is not "modified since" (§13.1.3); If-Match uses the
strong comparison, so the W/ form of the tag fails with 412 (§13.1.1); If-None-Match: * on an
unsafe method to an existing member is 412, and so is the W/ form of its tag, the weak
comparison holding for every method (§13.1.2); If-Unmodified-Since one second before
Last-Modified is 412 and equal to it lets the write run (§13.1.4); If-Match: * is false where
the target has no current representation, so a PUT with it to a member that does not exist
does not run, and true where it has one, deciding before an If-Unmodified-Since that would
fail (§13.1.1, §13.2.2 step 2); If-Modified-Since on a PUT is ignored (§13.1.3). The write cases use a
member the check creates in the sandbox, right before reading its validators, so a server
that keeps a finer modification time than the second Last-Modified carries is seen.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from email.utils import format_datetime, parsedate_to_datetime

from mixbatch_conformance.checks._shared.requests import etag_of, new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

OTHER = '"mb-suite-other-etag"'
EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"
JSON_TYPE = ("Content-Type", "application/json")
# RFC 9110 §13.2.1: preconditions are evaluated only when the request without them would be
# 2xx or 412; a method the member does not offer is answered without evaluating them.
NOT_OFFERED = frozenset({405, 501})


def _runs(status: object) -> bool:
    """2xx: the request ran."""
    return isinstance(status, int) and 200 <= status < 300


def _opaque(etag: str) -> str:
    """The entity-tag without its weakness indicator (RFC 9110 §8.8.3)."""
    return etag[2:] if etag.startswith("W/") else etag


def _read_cases(path: str, etag: str, modified: str) -> list[SubRequest]:
    """GET and HEAD requests every one of which RFC 9110 §13.1.2/§13.1.3 answers 304."""
    tag = _opaque(etag)
    out: list[SubRequest] = []
    for method in ("GET", "HEAD"):
        for name, value in (
            ("If-None-Match", tag),
            ("If-None-Match", f"W/{tag}"),
            ("If-None-Match", f"{OTHER}, {etag}"),
            ("If-None-Match", "*"),
            ("If-Modified-Since", modified),
        ):
            out.append(SubRequest(method, path, ((name, value),)))
    return out


def _validators(ctx: Context, judge: Judge, path: str) -> tuple[str, str]:
    """The ETag and Last-Modified a plain GET of `path` answers alone (SETUP-ERROR without)."""
    got = ctx.alone(judge, SubRequest("GET", path))
    etag, modified = got.get("ETag"), got.get("Last-Modified")
    if got.status != 200 or not etag or not modified:
        judge.setup_error(
            f"GET {path} alone answered {got.status} with ETag {etag!r}, Last-Modified {modified!r}"
        )
    return etag, modified


def _judge_parts(
    judge: Judge, subs: list[SubRequest], statuses: list[int | None], want: int
) -> None:
    for i, sub in enumerate(subs):
        fields = "; ".join(f"{n}: {v}" for n, v in sub.headers if n != "Content-Type")
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly
        # as for the standalone request, answering 304 (Not Modified) or 412 (Precondition
        # Failed) in the part when the standalone request would get them".
        judge.expect(f"part {i} ({sub.method} with {fields})", statuses[i], {want}, "MB-PROC-9")


@checker(
    "conditional-rfc-reads",
    ("MB-PROC-9",),
    "GET and HEAD parts whose If-None-Match matches by the weak comparison (the tag, its W/ form, a list holding it, *) or whose If-Modified-Since is the resource's own Last-Modified are answered 304, as RFC 9110 §13 evaluates them.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_rfc_reads(ctx: Context, judge: Judge) -> None:
    path, _ = etag_of(ctx, judge)
    etag, modified = _validators(ctx, judge, path)
    subs = _read_cases(path, etag, modified)
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    _judge_parts(judge, subs, [part_status(env, i) for i in range(len(subs))], 304)


@checker(
    "conditional-rfc-writes",
    ("MB-PROC-9",),
    "On a member just written in the sandbox: If-Modified-Since with its own Last-Modified gives 304; If-Match with the W/ form of its tag, If-None-Match: * or the W/ form of its tag, and If-Unmodified-Since a second before Last-Modified give 412 on PUT and DELETE; If-Unmodified-Since equal to Last-Modified lets a PUT run, If-Match with the exact tag lets a DELETE run, If-None-Match: * lets a PUT to the deleted member run, If-Match: * with a failing If-Unmodified-Since and If-Modified-Since alone let a PUT run, and If-Match: * keeps a PUT to a member that does not exist from running.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_rfc_writes(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    etag, modified = _validators(ctx, judge, path)
    try:
        before = format_datetime(parsedate_to_datetime(modified) - timedelta(seconds=1), True)
    except (TypeError, ValueError):
        judge.setup_error(f"GET {path} alone carries an unreadable Last-Modified {modified!r}")
    reads = [SubRequest(m, path, (("If-Modified-Since", modified),)) for m in ("GET", "HEAD")]
    json_type = ("Content-Type", "application/json")
    weak = f"W/{_opaque(etag)}"
    writes = [
        SubRequest("PUT", path, (json_type, ("If-Match", weak)), doc),
        SubRequest("DELETE", path, (("If-Match", weak),)),
        SubRequest("PUT", path, (json_type, ("If-None-Match", "*")), doc),
        SubRequest("PUT", path, (json_type, ("If-None-Match", f"{OTHER}, {etag}")), doc),
        SubRequest("PUT", path, (json_type, ("If-Unmodified-Since", before)), doc),
        SubRequest("DELETE", path, (("If-None-Match", "*"),)),
        SubRequest("DELETE", path, (("If-Unmodified-Since", before),)),
        # If-None-Match uses the weak comparison whatever the method (§13.1.2), so the W/
        # form of the tag matches on a PUT and a DELETE too.
        SubRequest("PUT", path, (json_type, ("If-None-Match", weak)), doc),
        SubRequest("DELETE", path, (("If-None-Match", weak),)),
    ]
    subs = reads + writes
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    statuses = [part_status(env, i) for i in range(len(subs))]
    _judge_parts(judge, reads, statuses[: len(reads)], 304)
    offered = []
    for sub, status in zip(writes, statuses[len(reads) :], strict=True):
        # A method the member does not offer is answered alike without the fields: learnt
        # from the same request alone, sent only when the part did not answer 412.
        if status != 412 and ctx.alone(judge, sub).status in NOT_OFFERED:
            continue
        offered.append((sub, status))
    _judge_parts(judge, [s for s, _ in offered], [st for _, st in offered], 412)
    _if_match_star_on_absent(ctx, judge, doc)
    methods = {s.method for s, _ in offered}
    if judge.failed or "PUT" not in methods:
        return
    _preconditions_that_hold(ctx, judge, path, doc, modified, "DELETE" in methods)


def _if_match_star_on_absent(ctx: Context, judge: Judge, doc: bytes) -> None:
    """A PUT part with If-Match: * to a sandbox member that does not exist must not run."""
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    absent = f"{coll.rstrip('/')}/mb-suite-absent-{secrets.token_hex(6)}"
    status = _one_part(ctx, judge, SubRequest("PUT", absent, (JSON_TYPE, ("If-Match", "*")), doc))
    # MB-PROC-9 (RFC 9110 §13.1.1): "If the field value is "*", the condition is false if the
    # origin server does not have a current representation for the target resource", and "MUST
    # NOT perform the requested method if the condition evaluates to false".
    judge.expect(
        f"PUT part with If-Match: * to {absent}, a member that does not exist",
        status,
        lambda s: not _runs(s),
        "MB-PROC-9",
        allowed_text="not 2xx (412, or what the PUT gets without the field: it does not run)",
    )
    if _runs(status):
        ctx.alone(judge, SubRequest("DELETE", absent))


def _one_part(ctx: Context, judge: Judge, sub: SubRequest) -> int | None:
    env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
    return part_status(env, 0)


def _preconditions_that_hold(
    ctx: Context, judge: Judge, path: str, doc: bytes, modified: str, deletes: bool
) -> None:
    """PUT with If-Unmodified-Since equal to Last-Modified, DELETE with If-Match of the exact
    current tag, then PUT with If-None-Match: * to the member now absent: each runs."""
    json_type = ("Content-Type", "application/json")
    run = SubRequest("PUT", path, (json_type, ("If-Unmodified-Since", modified)), doc)
    # MB-PROC-9 (RFC 9110 §13.1.4): "If the selected representation's last modification date
    # is earlier than or equal to the date provided in the field value, the condition is true."
    judge.expect(
        "PUT part with If-Unmodified-Since equal to the member's Last-Modified",
        _one_part(ctx, judge, run),
        _runs,
        "MB-PROC-9",
        allowed_text="2xx (the write runs)",
    )
    since = SubRequest("PUT", path, (JSON_TYPE, ("If-Modified-Since", modified)), doc)
    # MB-PROC-9 (RFC 9110 §13.1.3): "A recipient MUST ignore If-Modified-Since if ... the
    # request method is neither GET nor HEAD", so a PUT carrying it runs.
    judge.expect(
        "PUT part with If-Modified-Since equal to the member's Last-Modified",
        _one_part(ctx, judge, since),
        _runs,
        "MB-PROC-9",
        allowed_text="2xx (If-Modified-Since is ignored on PUT; the write runs)",
    )
    star = SubRequest(
        "PUT", path, (JSON_TYPE, ("If-Match", "*"), ("If-Unmodified-Since", EPOCH)), doc
    )
    # MB-PROC-9 (RFC 9110 §13.2.2 step 2): "When If-Match is not present, and
    # If-Unmodified-Since is present, evaluate" it -- If-Match: * is present and true for a
    # member that exists (§13.1.1), so the failing If-Unmodified-Since is not evaluated.
    judge.expect(
        "PUT part with If-Match: * and If-Unmodified-Since: the epoch, to the existing member",
        _one_part(ctx, judge, star),
        _runs,
        "MB-PROC-9",
        allowed_text="2xx (If-Match decides; the write runs)",
    )
    if not deletes:
        return
    etag, _ = _validators(ctx, judge, path)
    # MB-PROC-9 (RFC 9110 §13.1.1): "An origin server MUST use the strong comparison function
    # when comparing entity tags for If-Match" -- the exact current tag matches.
    if not judge.expect(
        f"DELETE part with If-Match: {etag} (the member's current tag)",
        _one_part(ctx, judge, SubRequest("DELETE", path, (("If-Match", etag),))),
        _runs,
        "MB-PROC-9",
        allowed_text="2xx (the delete runs)",
    ):
        return
    create = SubRequest("PUT", path, (json_type, ("If-None-Match", "*")), doc)
    status = _one_part(ctx, judge, create)
    # MB-PROC-9 (RFC 9110 §13.1.2): "If the field value is "*", the condition is false if the
    # origin server has a current representation for the target resource" -- it has none, so
    # the PUT is answered as without the field (201, 404 or 405 by MB-TEST-3), never 412.
    judge.expect(
        "PUT part with If-None-Match: * to the member just deleted",
        status,
        lambda s: s != 412,
        "MB-PROC-9",
        allowed_text="not 412 (no current representation: the precondition holds)",
    )
    if status == 201:
        ctx.alone(judge, SubRequest("DELETE", path))
