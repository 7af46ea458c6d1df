"""Pipelining checks (spec 11): pipelined plain and batch requests are answered in order.

Theory of operation: five requests, plain and batch mixed, are written on one connection
before any answer is read; the statuses and the batch part counts must come back in the order
sent (MB-PIPE-1). Answers that come back in order only because they were also completed in
order prove little, so when the target declares a `delay` resource the first request is a GET
of it that takes `SLOW_FIRST_MS` (MB-TEST-7: 200, no sooner): a server that runs pipelined
requests side by side and writes each answer when it is ready puts the 404 of the third request
first. An intermediary may de-pipeline, so the check runs direct only.

A server that answers a batch and then closes its connection leaves the requests pipelined
behind it unanswered; it may do so only after some kinds of answer (a 207 form, a part that
failed, a refusal). So `pipelining-behind-every-answer` sends one plain GET pipelined behind
each kind of batch answer the target can give, in every form it declares: parts that failed,
parts skipped under the stop policy, parts rolled back in an atomic batch (the failing part
in the middle and last), an abort, a refused batch (415 and 400 problems, an Accept
no form satisfies, an unknown Batch-Mode, an atomic batch the target does not offer, and the
400s found in content read whole: each refusal of section 8 and a forbidden part field), a HEAD
and a PUT of the batch endpoint, a HEAD with content and a DELETE with chunked content there, a
batch holding a HEAD part, a GET with content; with the collection-get profile, collection retrievals answered
200, 304, 204 and 400 (chunked content on the GET). Content framed by the chunked transfer
coding declares no length, and a server that cannot tell where it ended (a trailer section read
with the content, chunk extensions) may give up the connection after it: so a batch that runs,
in every declared form, and one refused for a TRACE part are also sent chunked, with plain
chunks, with chunk extensions and with a trailer section (MB-INTER-5 has a server answer each
as it answers the content framed by Content-Length). Each leading request is first sent
alone, and pipelined it must get the same status, with the GET behind it answered 200; an
abort, which takes seconds, is sent only pipelined (its status is judged with the aborts).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.chunking import CHUNKED_FRAMINGS, small_chunked
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.outlast import outlast_fits, outlasting_batch
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Exchange, Response

BOUNDARY = "mb-pipe-3e8a1f0c7b2d9465"
#: Milliseconds the first request takes when the target has a delay resource: far longer than
#: the four behind it take on loopback, short enough for the smoke tier.
SLOW_FIRST_MS = 300
#: The kind of answer that outlasts the whole-batch time limit: several seconds each, so it is
#: sent only pipelined, never first alone.
ABORT = "an abort"


@checker(
    "pipelining-in-order",
    ("MB-PIPE-1",),
    "Pipelined plain and batch requests on one connection are answered in the order sent.",
    profile="pipelining",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    delay = ctx.target.resource("delay")
    # MB-TEST-7: a GET of the delay resource is answered 200 "no sooner than ms milliseconds".
    first = ctx.path(delay.replace("{ms}", str(SLOW_FIRST_MS))) if delay else ok.target
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch_a = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([nf, ok], BOUNDARY))
    batch_b = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok], BOUNDARY))
    requests = [
        ctx.raw_request("GET", first),
        batch_a,
        ctx.raw_request("GET", nf.target),
        batch_b,
        ctx.raw_request("GET", ok.target),
    ]
    # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other requests
    # alike, in the order it received them"; MB-TEST-1 fixes 200 for ok and 404 for not_found.
    exchanges = ctx.send_many(judge, requests)
    statuses = [ex.response.status if ex.response else None for ex in exchanges]
    judge.require("statuses in order", statuses, [[200, 200, 404, 200, 200]])
    counts = []
    for ex in (exchanges[1], exchanges[3]):
        assert ex.response is not None
        _, params = judge.media_type(
            "batch Content-Type", ex.response.get("Content-Type"), "MB-WIRE-3"
        )
        counts.append(len(read_multipart(ex.response.body, params.get("boundary", "")).parts))
    judge.expect("batch part counts in order", counts, [[2, 1]])


#: The Content-Length line of a request the suite writes.
_LENGTH = re.compile(rb"(?im)^(Content-Length:[ \t]*)([0-9]+)")


def _leaders(ctx: Context, judge: Judge) -> list[tuple[str, bytes]]:
    """(what, request) for each kind of answer a request pipelined behind must not be lost to."""
    ok, nf = ok_and_not_found(ctx, judge)
    accepts: list[tuple[str, tuple[tuple[str, str], ...]]] = [("multipart", ())] + [
        (profile, (("Accept", accept),))
        for profile, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(profile)
    ]
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    stop = ("Prefer", "batch-on-error=stop")
    atomic = ("Batch-Mode", "atomic")

    def batch(subs: list[SubRequest], *head: tuple[str, str]) -> bytes:
        body = compose_batch(subs, BOUNDARY)
        return ctx.raw_request("POST", ctx.batch_path, [mixed, *head], body)

    out: list[tuple[str, bytes]] = []
    for form, accept in accepts:
        out.append((f"{form}: a failed part", batch([nf, ok], *accept)))
        out.append((f"{form}: a HEAD part", batch([SubRequest("HEAD", ok.target), ok], *accept)))
        if ctx.target.claims("error-policy"):
            out.append((f"{form}: skipped parts", batch([ok, nf, ok], *accept, stop)))
        if ctx.target.claims("atomic"):
            # MB-PROC-8: rolled-back parts before the failing one, skipped parts after it; and
            # a failing last part, with nothing skipped.
            out.append((f"{form}: rolled-back parts", batch([ok, nf, ok], *accept, atomic)))
            out.append(
                (
                    f"{form}: a rolled-back part, then the failing one",
                    batch([ok, nf], *accept, atomic),
                )
            )
    out += _chunked_leaders(ctx, judge, accepts)
    if outlast_fits(ctx):
        subs = outlasting_batch(ctx, judge)
        out += [(f"{form}: {ABORT}", batch(subs, *accept)) for form, accept in accepts]
    plain = compose_batch([ok], BOUNDARY)
    # MB-WIRE-2 refuses a batch whose media type is not multipart/mixed with a 415; MB-WIRE-4
    # one with no boundary parameter with a 400. Both bodies are framed by Content-Length, so
    # the connection stays readable after them.
    text = [("Content-Type", "text/plain")]
    out.append(("a refused media type", ctx.raw_request("POST", ctx.batch_path, text, plain)))
    bare = [("Content-Type", "multipart/mixed")]
    out.append(("a refused boundary", ctx.raw_request("POST", ctx.batch_path, bare, plain)))
    # Refusals of a well-formed batch: an Accept no form satisfies, a Batch-Mode no server
    # defines (MB-PROC-17). Whatever status each gets alone, it gets pipelined.
    out.append(("an Accept no form satisfies", batch([ok], ("Accept", "text/plain"))))
    mode = ("Batch-Mode", "mb-suite-undefined")
    out.append(("an unknown Batch-Mode", batch([ok], mode)))
    if not ctx.target.claims("atomic"):
        # MB-PROC-7: 501 for `Batch-Mode: atomic` from a server without the atomic profile.
        out.append(("an atomic batch the target does not offer", batch([ok], atomic)))
    # Refusals found in the content once it was read whole: section 8's (another origin, a
    # fragment, TRACE, a nested batch, the asterisk: MB-SUB-2, -3, -4, -8) and a part field
    # MB-PART-10 refuses. Spec 11 lets a server close only after an answer given before it read
    # the content whole, so each leaves the connection answering.
    refused_parts = (
        ("a part for another origin", SubRequest("GET", f"http://elsewhere.invalid{ok.target}")),
        ("a part with a fragment", SubRequest("GET", f"{ok.target}#mb-pipe")),
        ("a TRACE part", SubRequest("TRACE", ok.target)),
        ("a nested batch", SubRequest("POST", ctx.batch_path)),
        ("an asterisk target", SubRequest("OPTIONS", "*")),
        ("a forbidden part field", SubRequest("GET", ok.target, (("Expect", "100-continue"),))),
    )
    out += [(f"a batch refused for {what}", batch([ok, sub])) for what, sub in refused_parts]
    out.append(("a HEAD of the batch endpoint", ctx.raw_request("HEAD", ctx.batch_path)))
    # Spec 9.1: a server reads a batch's Content-Length "leading zeros counted among them", so
    # a batch so framed runs, and the connection goes on as after any batch that ran.
    padded = _LENGTH.sub(rb"\g<1>000\g<2>", batch([ok]), count=1)
    out.append(("a batch whose Content-Length has leading zeros", padded))
    # MB-METHOD-2's 405 (or a refusal of content on HEAD or DELETE, RFC 9110 §9.3.2, §9.3.5)
    # comes from the header section alone: "The server then reads and discards the content to
    # find the next request", framed by Content-Length or chunked.
    typed = [("Content-Type", "text/plain")]
    out.append(
        (
            "a HEAD with content to the batch endpoint",
            ctx.raw_request("HEAD", ctx.batch_path, typed, b"GET / HTTP/1.1\r\n\r\n"),
        )
    )
    chunked = [*typed, ("Transfer-Encoding", "chunked")]
    out.append(
        (
            "a DELETE with chunked content to the batch endpoint",
            ctx.raw_request("DELETE", ctx.batch_path, chunked, b"1\r\nx\r\n0\r\n\r\n"),
        )
    )
    # MB-METHOD-2: 405 for a method the endpoint does not support, its content read or not.
    put = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    out.append(("a PUT to the batch endpoint", ctx.raw_request("PUT", ctx.batch_path, put, plain)))
    # MB-METHOD-3 refuses a GET with content (400, or 405 under MB-METHOD-2): a server that
    # answers before reading that content would read it as the next request.
    get_content = [("Content-Type", "text/plain")]
    out.append(
        (
            "a GET with content to the batch endpoint",
            ctx.raw_request("GET", ctx.batch_path, get_content, b"GET / HTTP/1.1\r\n\r\n"),
        )
    )
    if ctx.target.claims("collection-get"):
        out += _retrievals(ctx, judge)
    return out


def _chunked_leaders(
    ctx: Context, judge: Judge, accepts: list[tuple[str, tuple[tuple[str, str], ...]]]
) -> list[tuple[str, bytes]]:
    """Batches whose content is chunked in each of `CHUNKED_FRAMINGS`: one that runs, in each
    form of `accepts`, and one refused once its content was read whole (a TRACE part)."""
    ok, nf = ok_and_not_found(ctx, judge)
    head = [
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Transfer-Encoding", "chunked"),
    ]
    ran = compose_batch([nf, ok], BOUNDARY)
    refused = compose_batch([ok, SubRequest("TRACE", ok.target)], BOUNDARY)
    out: list[tuple[str, bytes]] = []
    for framing, ext, last_ext, trailer in CHUNKED_FRAMINGS:
        # MB-INTER-5: a server MUST "answer it as it answers the same content framed by
        # `Content-Length`", and spec 11: a refusal "leaves the connection answering the
        # requests behind it, as a batch that ran does", whatever framed its content.
        for form, accept in accepts:
            content = small_chunked(ran, ext, last_ext, trailer)
            request = ctx.raw_request("POST", ctx.batch_path, [*head, *accept], content)
            out.append((f"{form}: a batch that ran, {framing}", request))
        # MB-SUB-3: "answer 400 to a batch request in which any part's `Http-Method` is
        # `CONNECT` or `TRACE`", found in the content read whole.
        content = small_chunked(refused, ext, last_ext, trailer)
        request = ctx.raw_request("POST", ctx.batch_path, head, content)
        out.append((f"a batch refused for a TRACE part, {framing}", request))
    return out


def _retrievals(ctx: Context, judge: Judge) -> list[tuple[str, bytes]]:
    """Collection retrievals the target declares, answered 200, 304, 204 and 400 (content on a
    GET, chunked)."""
    accept = ("Accept", "multipart/mixed")
    out: list[tuple[str, bytes]] = []
    coll = ctx.target.resource("collection")
    if coll:
        path = ctx.path(coll)
        out.append(("a collection retrieval", ctx.raw_request("GET", path, [accept])))
        etag = ctx.send(judge, ctx.raw_request("GET", path, [accept])).get("ETag")
        if etag:
            matched = ctx.raw_request("GET", path, [accept, ("If-None-Match", etag)])
            out.append(("a collection retrieval answered 304", matched))
        chunked = [accept, ("Transfer-Encoding", "chunked")]
        body = b"7\r\ncontent\r\n0\r\n\r\n"
        out.append(
            ("a collection retrieval with content", ctx.raw_request("GET", path, chunked, body))
        )
    empty = ctx.target.resource("empty_collection")
    if empty:
        out.append(("an empty collection", ctx.raw_request("GET", ctx.path(empty), [accept])))
    return out


def _cut_short(resp: Response | None) -> bool:
    """Whether an abort's answer ended before its close delimiter (or was not received)."""
    if resp is None:
        return True
    if resp.media_type != "multipart/mixed":
        return False
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        return False
    return bool(read_multipart(resp.body, params.get("boundary", "")).findings)


@checker(
    "pipelining-behind-every-answer",
    ("MB-PIPE-1",),
    "A plain GET pipelined behind every kind of batch answer, in every declared form (failed, skipped, rolled-back and HEAD parts, an abort, a batch refused for its headers or for a part section 8 or MB-PART-10 refuses, a HEAD, a PUT, a batch whose Content-Length has leading zeros, a HEAD with content, a DELETE with chunked content, a GET with content, a batch that ran and one refused whose content came chunked, with chunk extensions or with a trailer section), and behind collection retrievals answered 200, 304, 204 and 400, is answered after it.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_every_answer(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    follower = ctx.raw_request("GET", ok.target)
    leaders = _leaders(ctx, judge)
    # The aborts each wait out the time budget: pipelined at once, each on its own connection,
    # they cost the check one budget.
    aborts = [(what, leader) for what, leader in leaders if what.endswith(ABORT)]
    pipelined: dict[str, list[Exchange]] = {}
    if aborts:
        with ThreadPoolExecutor(len(aborts), thread_name_prefix="mixbatch-pipe-abort") as pool:
            sent = [pool.submit(ctx.send_many, judge, [leader, follower]) for _, leader in aborts]
            pipelined = {what: f.result() for (what, _), f in zip(aborts, sent, strict=True)}
    for what, leader in leaders:
        alone = None if what.endswith(ABORT) else ctx.send(judge, leader)
        exchanges = pipelined.get(what) or ctx.send_many(judge, [leader, follower])
        got = [ex.response.status if ex.response else None for ex in exchanges]
        if alone is None:
            if _cut_short(exchanges[0].response):
                # Spec 5.4 allows an abort "cut short without the close delimiter" when the
                # server cannot write the abort part; a server that gives up the connection
                # then leaves the GET behind it to be sent again.
                judge.note(f"{what}: answered cut short, so the GET behind it is not judged")
                continue
            # MB-PIPE-1 for an abort (spec 5.4): the abort's own status is judged where aborts
            # are (MB-STATUS-6); here the GET behind it is answered 200 after it.
            judge.expect(f"status behind {what}", got[1], {200}, "MB-PIPE-1")
            continue
        # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other
        # requests alike, in the order it received them"; MB-TEST-1 fixes 200 for ok. The
        # leading request's status is the one it gets alone.
        judge.expect(f"statuses behind {what}", got, [[alone.status, 200]], "MB-PIPE-1")
