"""What a server writes around and inside response parts (spec 3.1, 3.3).

Theory of operation: three things the framing check does not read.

- `response-boundary-valid`: the boundary of every multipart answer (a batch, a collection
  retrieval) is 1 to 70 bchars and does not end in a space (MB-WIRE-3 binds senders too).
- `response-parts-without-framing-fields`: MB-RESP-4 gives a response part "the
  sub-response's header fields, less hop-by-hop and framing fields"; so no part carries
  Connection, Keep-Alive, Transfer-Encoding, TE, Trailer, Upgrade or Proxy-Connection.
- `response-delimiter-unique`: the response's delimiter occurs exactly once per part and once
  as the close delimiter (MB-WIRE-6: "the delimiter ... occurs in no part's headers or body"),
  for parts whose bodies are full of dashes, CRLFs and boundary-like text.
- `long-field-values-unfolded`: sandbox members stored with long Content-Types (a parameter of
  words and spaces, 160-odd, 1,000-odd and 4,000-odd octets: past RFC 5322's recommended 78
  and its limit of 998) are read in a batch; each part's header section holds its value on one
  line (MB-PART-7: "does not fold any part header field, whatever its
  length"; the strict reader reports an obs-fold line). N/A when the server does not keep the
  value: nothing long comes back to be folded.
- `no-content-on-204-304`: a 204 or 304 sub-response has no content (RFC 9110 §15.3.5,
  §15.4.5), so its part body is empty (MB-RESP-4: "its content as the part body"), whatever
  the handler tried to write; for the status resource's 204 and 304, content in the part is
  the resource's (MB-TEST-6: "with no content for 204 and 304") or the batch's, and is judged
  under both (`_shared.status_parts`).
- `sub-response-fields-not-at-top`: each part kind the target's resources give (the echo's,
  a member's validators, a collection's, a HEAD's, a miss's, a 204's, a 301's, and the
  router's own miss for a path no resource is routed at, which a framework answers with fields
  of its own) stands first once; no field line a part carries appears at the top of the batch
  response in any declared form unless the server puts it there for a batch of one plain part
  (`not_found` or `ok`) that does not carry that line alone (MB-SEC-2): a line learnt from a
  batch whose part carries it would hide the copy it is meant to tell apart.
- `sub-response-fields-not-at-top-in-every-mode`: the same parts, the misses left out, in a
  batch under stop that fails at a miss after them, and in atomic batches that commit and that
  fail at a miss after them, the miss being `not_found` and then the router's miss: a server
  that buffers such a batch's answer until the outcome is known has the parts' fields in hand
  before it writes its header section, where a streaming server has not; none of them reaches
  the top in any declared form (MB-SEC-2).
- `no-transform-in-every-mode`: those batches' answers each carry `Cache-Control: no-transform`
  in every declared form, as the plain batch's do (MB-INTER-4, a SHOULD).
- `no-transform-under-request-variants`: the batch responses to batches carrying credentials
  (Authorization, Cookie, both), sent over HTTP/1.0, with chunked content, with a Prefer the
  server need not act on, and under each policy and mode offered, with credentials and without,
  each carry `Cache-Control: no-transform` in every declared form (MB-INTER-4, a SHOULD). A
  refusal of the whole batch is not a batch response (spec 10), so one is noted, not judged;
  a collection retrieval answers no batch request, so it is not one either.
- `every-part-kind-content-length`: parts with content, HEAD, 204, 304, skipped and rolled-back
  parts each carry one Content-Length equal to their body's length (MB-WIRE-15, a SHOULD).
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.requests import etag_of, ok_and_not_found, unrouted
from mixbatch_conformance.checks._shared.status_parts import expect_status_resource_empty
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.core.validator import (
    directive_names,
    loose_boundary,
    parse_media_type,
)
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: RFC 2046 §5.1.1: boundary := 0*69<bchars> bcharsnospace.
BOUNDARY = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
#: Hop-by-hop and framing fields (RFC 9110 §7.6.1, RFC 9112 §6) a response part never carries.
FRAMING = (
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
)


def _every_form(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    resp: Response,
    fields: tuple[tuple[str, str], ...] = (),
) -> list[tuple[str, Response]]:
    """(form, answer): `resp`, the multipart answer to the batch `subs` sent with `fields`, then
    the same batch's answer in each multistatus form the target claims."""
    answers = [("multipart/mixed", resp)]
    for claimed, accept, _, _ in MULTISTATUS_FORMS:
        if ctx.target.claims(claimed):
            more = (*fields, ("Accept", accept))
            answers.append((accept, ctx.batch(judge, subs, headers=more)))
    return answers


@checker(
    "response-boundary-valid",
    ("MB-WIRE-3",),
    "The boundary of every multipart answer, batch and collection alike, is 1 to 70 bchars not ending in a space.",
    state=State.READ_ONLY,
)
def response_boundary_valid(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    answers = [ctx.batch(judge, [ok, nf])]
    coll = ctx.target.resource("collection")
    if coll and ctx.target.claims("collection-get"):
        answers.append(
            ctx.send(judge, ctx.raw_request("GET", ctx.path(coll), [("Accept", "multipart/mixed")]))
        )
    for i, resp in enumerate(answers):
        if resp.media_type != "multipart/mixed":
            continue
        # MB-WIRE-3: "A sender MUST write it in the Content-Type field as batch-content-type
        # spells it": a boundary outside token is quoted.
        try:
            boundary = parse_media_type(resp.get("Content-Type") or "")[1].get("boundary", "")
        except ValueError as exc:
            judge.expect_true(
                f"answer {i} Content-Type",
                False,
                str(exc),
                "parameters as RFC 9110 §5.6.6 spells them",
            )
            boundary = loose_boundary(resp.get("Content-Type") or "")
        # MB-WIRE-3: "A boundary is 1 to 70 bchars (RFC 2046 §5.1.1) and does not end in a space."
        judge.expect_true(
            f"answer {i} boundary",
            BOUNDARY.fullmatch(boundary) is not None,
            f"{len(boundary)} characters: {boundary!r}",
            "1 to 70 bchars, not ending in a space",
        )


@checker(
    "response-parts-without-framing-fields",
    ("MB-RESP-4",),
    "No response part carries a hop-by-hop or framing field such as Connection or Transfer-Encoding.",
    state=State.READ_ONLY,
)
def parts_without_framing(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, nf]
    echo = ctx.target.resource("echo")
    if echo:
        subs.append(
            SubRequest("PUT", ctx.path(echo), (("Content-Type", "text/plain"),), b"x" * 2000)
        )
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for part in env.parts:
        found = [n for n, _ in part.fields if n.lower() in FRAMING]
        judge.expect(f"part {part.index} framing fields", found, [[]])


@checker(
    "no-content-on-204-304",
    ("MB-RESP-4", "MB-PROC-9", "MB-TEST-6"),
    "A part answered 204 or 304 has an empty body.",
    state=State.READ_ONLY,
)
def no_content_on_204_304(ctx: Context, judge: Judge) -> None:
    subs: list[SubRequest] = []
    status = ctx.target.resource("status")
    if status:
        subs += [SubRequest("GET", ctx.path(status.replace("{code}", c))) for c in ("204", "304")]
    if ctx.target.claims("conditional") and ctx.target.resource("etag_resource"):
        path, etag = etag_of(ctx, judge)
        subs.append(SubRequest("GET", path, (("If-None-Match", etag),)))
    if not subs:
        judge.not_applicable("the target declares neither a status resource nor a conditional one")
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, part in enumerate(env.parts):
        if part_status(env, i) in (204, 304):
            # MB-RESP-4: "MUST put the sub-response's content in the part body", and a 204 or
            # 304 sub-response has none (RFC 9110 §15.3.5, §15.4.5).
            judge.expect(f"part {i} ({part_status(env, i)}) body", part.body, {b""})
            if status and i < 2:
                expect_status_resource_empty(judge, f"part {i}", part_status(env, i), part.body)


#: Bodies that look like multipart framing, so a boundary chosen without looking collides.
DASHED = (
    b"--\r\n----\r\n--mb-\r\n",
    b"\r\n--" + b"-" * 70 + b"\r\n",
    b'{"a": "--"}\r\n\r\n--\r\n',
)


@checker(
    "response-delimiter-unique",
    ("MB-WIRE-6",),
    "The response delimiter occurs once per part and once as the close delimiter, never inside a part.",
    state=State.READ_ONLY,
)
def response_delimiter_unique(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, nf]
    echo = ctx.target.resource("echo")
    if echo:
        subs += [
            SubRequest("PUT", ctx.path(echo), (("Content-Type", "text/plain"),), body)
            for body in DASHED
        ]
    resp = ctx.batch(judge, subs)
    expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    _, params = judge.media_type("batch Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
    dash = b"--" + params.get("boundary", "").encode("latin-1")
    # MB-WIRE-6: "A sender ensures the delimiter (CRLF, two hyphens, boundary) occurs in no
    # part's headers or body": one per part, one closing, the first without its CRLF.
    found = resp.body.count(b"\r\n" + dash) + resp.body.startswith(dash)
    judge.expect("delimiters in the response", found, {len(subs) + 1})


#: Content-Types with words and spaces, where a writer that folds long lines would: 160-odd
#: octets, past RFC 5322's 78-character recommendation, and two past its 998-character limit on
#: a line (one just past it, one of several KiB), where a writer that keeps to that limit folds.
LONG_CONTENT_TYPES = tuple(
    'application/json; mb-note="' + " ".join(["long-field-value"] * words) + '"'
    for words in (8, 64, 240)
)


def _stored(ctx: Context, judge: Judge, coll: str, member: object, ctype: str) -> str | None:
    """The path of a member POSTed alone with the Content-Type `ctype`, or None (noted) when
    the server did not create it."""
    created = ctx.alone(
        judge, SubRequest("POST", coll, (("Content-Type", ctype),), json.dumps(member).encode())
    )
    location = created.get("Location")
    if created.status != 201 or not location:
        judge.note(f"POST {coll} with a Content-Type of {len(ctype)} octets: {created.status}")
        return None
    # MB-RESP-7 (RFC 9110 §10.2.2): resolved against the POST's target.
    return created_path(ctx, coll, location)


@checker(
    "long-field-values-unfolded",
    ("MB-PART-7",),
    "Long field values of sub-responses (stored members' Content-Types of 160-odd, 1,000-odd and 4,000-odd octets, past RFC 5322's 78 and 998) are written on one line each, unfolded.",
    state=State.WRITES_IN_SANDBOX,
)
def long_field_values_unfolded(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    paths = [p for p in (_stored(ctx, judge, coll, member, t) for t in LONG_CONTENT_TYPES) if p]
    if not paths:
        judge.not_applicable(f"POST {coll} with a long Content-Type created no member")
    subs = [SubRequest("GET", path) for path in paths]
    # expect_processed reads the answer strictly: an obs-fold line in a part header section
    # is a finding against MB-PART-7.
    resp = ctx.batch(judge, subs)
    env = expect_processed(
        ctx, judge, resp, [s.content_id for s in subs], [{200}] * len(subs), "MB-PART-7"
    )
    values = [v for part in env.parts for _n, v in part.fields]
    if not any(len(v) > 78 for v in values):
        judge.not_applicable("the members came back without a field value long enough to fold")
    longest = max(len(v) for v in values)
    judge.note(f"the longest field value of a part: {longest} octets")
    judge.expect_true(
        "long values on one line",
        not any(re.search(r"\r\n[ \t]", v) for v in values),
        repr(max(values, key=len)[:80]),
        "one line per field (MB-PART-7)",
        "MB-PART-7",
    )


#: Fields a batch response has of its own, whatever its parts hold: its framing and media type
#: (RFC 9110 §8.3, §8.6), its date and server (§6.6.1, §10.2.4).
OWN_FIELDS = ("content-type", "content-length", "transfer-encoding", "date", "server")


def _top_pairs(resp: Response) -> set[tuple[str, str]]:
    return {(n.lower(), v.strip()) for n, v in resp.headers if n.lower() not in OWN_FIELDS}


def _field_parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    """Parts answered with as many kinds of field as the target's resources give: the echo's,
    a member's validators, a status resource's, a miss's, a HEAD's."""
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, SubRequest("HEAD", ok.target), nf]
    for name in ("echo", "etag_resource", "collection"):
        path = ctx.target.resource(name)
        if path:
            subs.append(SubRequest("GET", ctx.path(path)))
    status = ctx.target.resource("status")
    if status:
        subs += [SubRequest("GET", ctx.path(status.replace("{code}", c))) for c in ("204", "301")]
    # The router's own miss: a framework may answer it with fields no resource writes.
    subs.append(unrouted(ctx))
    return subs


def _own_pairs(
    ctx: Context, judge: Judge, fields: tuple[tuple[str, str], ...] = ()
) -> set[tuple[str, str]]:
    """The field lines the server puts at the top of a batch (sent with `fields`) of its own
    accord: those at the top of a batch of one plain part (`not_found`, then `ok`) that the
    part's answer alone does not carry. A line a part carries alone is the server's own only
    where a batch of a part without it shows it too."""
    own: set[tuple[str, str]] = set()
    for plain in ok_and_not_found(ctx, judge)[::-1]:
        alone = {(n.lower(), v.strip()) for n, v in ctx.alone(judge, plain).headers}
        own |= _top_pairs(ctx.batch(judge, [plain], headers=fields)) - alone
    return own


@checker(
    "sub-response-fields-not-at-top",
    ("MB-SEC-2",),
    "No field line of any sub-response (the router's miss's included), whichever part carries it and wherever it stands, reaches the batch response's header section in any form.",
    state=State.READ_ONLY,
)
def sub_response_fields_not_at_top(ctx: Context, judge: Judge) -> None:
    subs = _field_parts(ctx, judge)
    # What the server puts at the top of a batch of its own accord, learnt from batches of one
    # plain part that does not carry it; a field line found there is the server's, not a copy.
    own = _own_pairs(ctx, judge)
    # Every part first once: a server may copy from the first part only, or from the last.
    orders = [subs[i:] + subs[:i] for i in range(len(subs))]
    for order in orders:
        resp = ctx.batch(judge, order)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in order])
        carried = {(n.lower(), v.strip()) for part in env.parts for n, v in part.fields}
        carried -= {("content-id", p.get("Content-Id") or "") for p in env.parts}
        answers = _every_form(ctx, judge, order, resp)
        for form, answer in answers:
            # MB-SEC-2: "A server MUST NOT copy a header field of a sub-response into the
            # header section of the batch response."
            copied = sorted((_top_pairs(answer) & carried) - own)
            judge.expect(
                f"{form} top-level fields copied from parts ({order[0].method} "
                f"{order[0].target} first)",
                copied,
                [[]],
                "MB-SEC-2",
            )


def _modes_with_fields(
    ctx: Context, judge: Judge
) -> list[tuple[str, tuple[tuple[str, str], ...], list[SubRequest]]]:
    """(what, fields, parts) of each batch under a policy or mode the target offers, its parts
    the field-carrying ones that succeed, then, for the failing batches, a miss and an ok (N/A
    where the target offers neither)."""
    ok, nf = ok_and_not_found(ctx, judge)
    miss = unrouted(ctx)
    carriers = [s for s in _field_parts(ctx, judge) if s.target not in (nf.target, miss.target)]
    out: list[tuple[str, tuple[tuple[str, str], ...], list[SubRequest]]] = []
    if ctx.target.claims("error-policy"):
        stop = (("Prefer", "batch-on-error=stop"),)
        out.append(("stopped under batch-on-error=stop", stop, [*carriers, nf, ok]))
        out.append(("stopped at the router's miss", stop, [*carriers, miss, ok]))
    if ctx.target.claims("atomic"):
        atomic = (("Batch-Mode", "atomic"),)
        out.append(("atomic, committed", atomic, carriers))
        out.append(("atomic, failed", atomic, [*carriers, nf, ok]))
        out.append(("atomic, failed at the router's miss", atomic, [*carriers, miss, ok]))
    if not out:
        judge.not_applicable("the target offers neither the error-policy nor the atomic profile")
    return out


@checker(
    "sub-response-fields-not-at-top-in-every-mode",
    ("MB-SEC-2",),
    "No field line of a sub-response reaches the header section of a batch that stopped under batch-on-error=stop, of an atomic batch that committed or of one that failed, at a resource's miss or at the router's, in any form.",
    state=State.READ_ONLY,
)
def sub_response_fields_not_at_top_in_every_mode(ctx: Context, judge: Judge) -> None:
    modes = _modes_with_fields(ctx, judge)
    for what, fields, subs in modes:
        # What the server puts at the top of such a batch of its own accord, learnt from
        # batches of one plain part that does not carry it, under the same policy or mode.
        own = _own_pairs(ctx, judge, fields)
        resp = ctx.batch(judge, subs, headers=fields)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
        carried = {(n.lower(), v.strip()) for part in env.parts for n, v in part.fields}
        carried -= {("content-id", p.get("Content-Id") or "") for p in env.parts}
        answers = _every_form(ctx, judge, subs, resp, fields)
        for form, answer in answers:
            # MB-SEC-2: "A server MUST NOT copy a header field of a sub-response into the
            # header section of the batch response", however long it held the answer.
            copied = sorted((_top_pairs(answer) & carried) - own)
            judge.expect(
                f"{what}, {form}: top-level fields copied from parts", copied, [[]], "MB-SEC-2"
            )


@checker(
    "no-transform-in-every-mode",
    ("MB-INTER-4",),
    "The answer to a batch that stopped under batch-on-error=stop, to an atomic batch that committed and to one that failed carries Cache-Control: no-transform in every declared form.",
    state=State.READ_ONLY,
)
def no_transform_in_every_mode(ctx: Context, judge: Judge) -> None:
    modes = _modes_with_fields(ctx, judge)
    for what, fields, subs in modes:
        resp = ctx.batch(judge, subs, headers=fields)
        expect_processed(ctx, judge, resp, [s.content_id for s in subs])
        answers = _every_form(ctx, judge, subs, resp, fields)
        for form, answer in answers:
            cache = answer.get_all("Cache-Control")
            # MB-INTER-4 (SHOULD): "include `Cache-Control: no-transform` ... in batch
            # responses": a batch that stopped or rolled back is answered with sub-responses,
            # so its answer is a batch response too.
            judge.expect_true(
                f"{what}, {form}: Cache-Control",
                "no-transform" in directive_names(cache),
                repr(cache),
                "no-transform (SHOULD)",
                "MB-INTER-4",
            )


#: Credentials a batch request may carry that the target does not ask for (its own are used
#: where it declares them).
BASIC = ("Authorization", "Basic bWItc3VpdGU6bWItc3VpdGU=")
COOKIE = ("Cookie", "mb-suite=1")
VARIANT_BOUNDARY = "mb-suite-variant-5e1c0a7d"


def _credential_variants(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """(what, fields): Authorization, Cookie and both, the target's own values where declared."""
    own = {n.lower(): (n, v) for n, v in ctx.target.credentials}
    auth = own.get("authorization", BASIC)
    cookie = own.get("cookie", COOKIE)
    return [
        ("with Authorization", (auth,)),
        ("with Cookie", (cookie,)),
        ("with Authorization and Cookie", (auth, cookie)),
    ]


def _judge_no_transform(judge: Judge, what: str, answer: Response) -> None:
    if answer.status not in (200, 207):
        # Spec 10: "A refusal of the whole batch ... is not a batch response", so its
        # Cache-Control is no departure from MB-INTER-4.
        judge.note(f"{what}: answered {answer.status}, a refusal of the whole batch, not judged")
        return
    cache = answer.get_all("Cache-Control")
    # MB-INTER-4 (SHOULD): "A sender SHOULD include `Cache-Control: no-transform` ... in batch
    # requests and batch responses": every batch response, whatever the batch request carried.
    judge.expect_true(
        f"{what}: Cache-Control",
        "no-transform" in directive_names(cache),
        repr(cache),
        "no-transform (SHOULD)",
        "MB-INTER-4",
    )


def _framed(ctx: Context, subs: list[SubRequest], fields: tuple[tuple[str, str], ...]) -> bytes:
    head = [("Content-Type", f"multipart/mixed; boundary={VARIANT_BOUNDARY}"), *fields]
    return ctx.raw_request("POST", ctx.batch_path, head, compose_batch(subs, VARIANT_BOUNDARY))


def _chunked(ctx: Context, subs: list[SubRequest], fields: tuple[tuple[str, str], ...]) -> bytes:
    framed, _ = chunked_content(compose_batch(subs, VARIANT_BOUNDARY), 16)
    head = [
        ("Content-Type", f"multipart/mixed; boundary={VARIANT_BOUNDARY}"),
        ("Transfer-Encoding", "chunked"),
        *fields,
    ]
    return ctx.raw_request("POST", ctx.batch_path, head, framed)


@checker(
    "no-transform-under-request-variants",
    ("MB-INTER-4",),
    "The batch response to a batch carrying Authorization, Cookie or both, sent over HTTP/1.0, with chunked content, with a Prefer the server need not act on, or under each policy and mode the target offers, carries Cache-Control: no-transform in every declared form, with the credentials and without.",
    state=State.READ_ONLY,
)
def no_transform_under_request_variants(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, nf]
    credentials = _credential_variants(ctx)
    both = credentials[-1][1]
    variants: list[tuple[str, tuple[tuple[str, str], ...]]] = [
        *credentials,
        ("with Prefer: return=minimal", (("Prefer", "return=minimal"),)),
        ("with Prefer: return=minimal and credentials", (("Prefer", "return=minimal"), *both)),
    ]
    if ctx.target.claims("error-policy"):
        for policy in ("stop", "continue"):
            prefer = (("Prefer", f"batch-on-error={policy}"),)
            variants.append((f"under batch-on-error={policy}", prefer))
            variants.append((f"under batch-on-error={policy} with credentials", (*prefer, *both)))
    if ctx.target.claims("atomic"):
        atomic = (("Batch-Mode", "atomic"),)
        variants.append(("atomic", atomic))
        variants.append(("atomic with credentials", (*atomic, *both)))
        # An atomic batch that fails is answered with sub-responses too.
        variants.append(("atomic, failed, with credentials", (*atomic, *both)))
    for what, fields in variants:
        parts = [ok] if what.startswith("atomic") and "failed" not in what else subs
        resp = ctx.batch(judge, parts, headers=fields)
        for form, answer in _every_form(ctx, judge, parts, resp, fields):
            _judge_no_transform(judge, f"{what}, {form}", answer)
    for what, fields in (("", ()), (" with credentials", both)):
        http10 = ctx.send(judge, with_version(_framed(ctx, subs, fields), "1.0"))
        _judge_no_transform(judge, f"over HTTP/1.0{what}", http10)
        chunked = ctx.send(judge, _chunked(ctx, subs, fields))
        _judge_no_transform(judge, f"with chunked content{what}", chunked)


@checker(
    "every-part-kind-content-length",
    ("MB-WIRE-15",),
    "Every response part, with content or without (204, 304, HEAD, skipped, rolled back, skipped for an unresolved reference), carries a Content-Length equal to its body's length.",
    state=State.READ_ONLY,
)
def every_part_kind_content_length(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, SubRequest("HEAD", ok.target), nf]
    status = ctx.target.resource("status")
    if status:
        subs += [SubRequest("GET", ctx.path(status.replace("{code}", c))) for c in ("204", "304")]
    if ctx.target.claims("conditional") and ctx.target.resource("etag_resource"):
        path, etag = etag_of(ctx, judge)
        subs.append(SubRequest("GET", path, (("If-None-Match", etag),)))
    envs = [expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])]
    if ctx.target.claims("error-policy"):
        # Parts after the failing one are skipped; their parts are answers too.
        stopped = [nf, ok, SubRequest("HEAD", ok.target)]
        resp = ctx.batch(judge, stopped, headers=(("Prefer", "batch-on-error=stop"),))
        envs.append(expect_processed(ctx, judge, resp, [s.content_id for s in stopped]))
    if ctx.target.claims("atomic"):
        # An atomic batch whose second part fails: the first is rolled back, the last skipped;
        # every part reads, so nothing is written.
        failed = [ok, nf, SubRequest("HEAD", ok.target)]
        resp = ctx.batch(judge, failed, headers=(("Batch-Mode", "atomic"),))
        envs.append(expect_processed(ctx, judge, resp, [s.content_id for s in failed]))
    if ctx.target.claims("references"):
        # A part whose reference names a failed part is skipped with a problem document the
        # server writes itself (MB-PROC-20); that part is an answer too.
        unresolved = [nf, SubRequest("GET", "$(0)"), ok]
        resp = ctx.batch(judge, unresolved, headers=(("Batch-Mode", "references"),))
        envs.append(expect_processed(ctx, judge, resp, [s.content_id for s in unresolved]))
    for n, env in enumerate(envs):
        for i, part in enumerate(env.parts):
            # MB-WIRE-15 (SHOULD): "give each part a `Content-Length` field stating the length
            # of its body", an empty body as much as any other.
            judge.expect(
                f"batch {n} part {i} ({part_status(env, i)}) Content-Length",
                part.get_all("Content-Length"),
                [[str(len(part.body))]],
                "MB-WIRE-15",
            )
