"""A batch sent over HTTP/1.0, answered in every form as over HTTP/1.1 (spec 3.3, 6.3, 6.4).

Theory of operation: the spec says nothing of the batch request's HTTP version. A server may
refuse an HTTP/1.0 request (RFC 9110 §2.5 leaves a server free to answer in the highest minor
version it supports, RFC 9112 §2.3 free to refuse a version with 505), so whether an HTTP/1.0
batch is answered as a batch is learnt from the server, form by form, and a form not answered
as a batch is not judged. A form that is answered as a batch is the batch result, and the
values in it that name a version are fixed by the spec, not by the request's version:
MB-MULTI-6 writes each `DAV:status` as "`HTTP/1.1 NNN`, a space and a reason phrase", the
JSON form carries the status as an integer (MB-MULTI-4's schema), and a multipart response
part carries "the sub-response's three-digit status code" (MB-RESP-2). A server that writes
its 207 status lines the way it writes its own status line, with the request's version,
answers an HTTP/1.0 client with `HTTP/1.0 200 OK`.

`http10-batch-in-every-form` sends one batch per mode the target implements (continue, and
stop and atomic when claimed, each with a part that fails so that skipped and rolled-back
entries are written too) over HTTP/1.1 and over HTTP/1.0, in each form the target offers;
each HTTP/1.0 answer that is a batch answer must be the form asked for (MB-MULTI-1), be read
by the same strict readers as any other (the XML reader refuses a `DAV:status` that is not
`HTTP/1.1 NNN ...`, under MB-MULTI-6), and carry for each part the status, outcome and
Content-Id echo the same batch gets over HTTP/1.1: the parts' requests are the same whatever
the version of the envelope that carried them (MB-SUB-1). The continue batch also asks the
`random` resource, where the target names one (and `max_parts` leaves room), for 256 octets or
its `random_max_n`: a server that answers HTTP/1.0 whole may gather the answer as text, which
changes octets past 0x7F, and the part must carry exactly that many octets (MB-TEST-5) in each
form (MB-RESP-4, MB-MULTI-6, MB-MULTI-7).

`http10-accept-chooses-as-over-http11` sends each Accept value the HTTP/1.1 negotiation checks
send (none, an empty one, `*/*`, `multipart/*`, each form alone, the quality and weight lists of
`accept-quality-values` and `accept-weight-spellings`) on a one-part batch over HTTP/1.1 and
over HTTP/1.0: the HTTP/1.0 answer must be the form the HTTP/1.1 one is (or, where the 207 forms
tie, another the spec allows), and multipart/mixed for no Accept, an empty one and the ranges
MB-MULTI-1 answers with it. A server that answers HTTP/1.0 with a Content-Length only may
prefer a 207 form it can hold whole, but MB-MULTI-1 decides by Accept alone; whether the
server answers HTTP/1.0 batches at all is learnt first, and N/A when it answers none.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.accept_cases import (
    offered_forms,
    quality_cases,
    weight_cases,
)
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    BODY_REQUIREMENT,
    ENTRY_COUNT_REQUIREMENT,
    FORM_REQUIREMENT,
    MULTISTATUS_FORMS,
    Entry,
    entries_from_multipart,
    require_readable,
)
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-suite-version-5e0c"
MULTIPART = "multipart/mixed"
#: Octets asked of the random resource: a body of random octets this long holds octets past
#: 0x7F, which a writer that turns the answer into text and back may change.
RANDOM_OCTETS = 256
#: The media types a batch result comes in (spec 6.1's table).
BATCH_MEDIA = frozenset({MULTIPART, *(accept for _, accept, _, _ in MULTISTATUS_FORMS)})


def _modes(
    ctx: Context, judge: Judge, random: tuple[SubRequest, int] | None
) -> list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]]:
    """(name, parts, header fields) of each error policy and mode the target implements,
    each batch with a failing part so that every kind of entry is written; the continue batch
    ends with the `random` part where max_parts leaves room."""
    ok, nf = ok_and_not_found(ctx, judge)
    first = [ok, nf, ok]
    if random is not None and len(first) < (ctx.limit("max_parts") or len(first) + 1):
        first = [*first, random[0]]
    out: list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]] = [("continue", first, ())]
    if ctx.target.claims("error-policy"):
        out.append(("stop", [ok, nf, ok], (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        out.append(("atomic", [ok, nf, ok], (("Batch-Mode", "atomic"),)))
    return out


def _random_part(ctx: Context) -> tuple[SubRequest, int] | None:
    """A GET of RANDOM_OCTETS octets of the random resource (fewer when the target serves no
    more), whose body holds octets past 0x7F, and its count; None when the target names no
    random resource or serves no octet."""
    template = ctx.target.resource("random")
    served = ctx.target.random_max_n
    n = RANDOM_OCTETS if served is None else min(RANDOM_OCTETS, served)
    if not template or n == 0:
        return None
    return SubRequest("GET", ctx.path(template.replace("{n}", str(n)))), n


def _send(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    head: tuple[tuple[str, str], ...],
    version: str,
) -> Response:
    """The batch `subs` with `head`, sent with a request line of HTTP `version`."""
    fields = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *head]
    request = ctx.raw_request("POST", ctx.batch_path, fields, compose_batch(subs, BOUNDARY))
    line, rest = request.split(b"\r\n", 1)
    line = line.rsplit(b" ", 1)[0] + f" HTTP/{version}".encode("ascii")
    return ctx.send(judge, line + b"\r\n" + rest)


def _entries(
    ctx: Context, judge: Judge, label: str, accept: str, resp: Response, subs: list[SubRequest]
) -> list[Entry]:
    """The entries of `resp`, a batch answer in the form `accept`, read strictly."""
    if accept == MULTIPART:
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-RESP-1")
        return entries_from_multipart(env)
    reader, requirement = next((r, q) for _, a, r, q in MULTISTATUS_FORMS if a == accept)
    # MB-STATUS-1: "with 207 for the representations of section 6, whatever the statuses of
    # its parts".
    judge.require(f"{label}: status", resp.status, {207}, "MB-STATUS-1")
    entries, problem = reader(resp.body)
    # MB-MULTI-6: "`DAV:status` (`HTTP/1.1 NNN`, a space and a reason phrase ...)"; the XML
    # reader refuses any other text, the JSON reader any document the schema does not admit.
    require_readable(judge, f"{label}: readable", problem, requirement)
    count = ENTRY_COUNT_REQUIREMENT[accept]
    judge.require(f"{label}: entry count", len(entries), {len(subs)}, count)
    return entries


@checker(
    "http10-batch-in-every-form",
    ("MB-MULTI-6", "MB-MULTI-4", "MB-RESP-2", "MB-MULTI-1", "MB-SUB-1"),
    "A batch sent over HTTP/1.0 (continue, with a random part of up to 256 octets, stop, atomic, each with a failing part) that the server answers as a batch is answered in the form asked for, its XML DAV:status lines written HTTP/1.1 NNN, its JSON statuses integers and its multipart parts three-digit Http-Status-Code fields, each part with the status, outcome, Content-Id echo and number of body octets the same batch gets over HTTP/1.1.",
    state=State.READ_ONLY,
)
def http10_batch_in_every_form(ctx: Context, judge: Judge) -> None:
    forms = [MULTIPART] + [a for p, a, _, _ in MULTISTATUS_FORMS if ctx.target.claims(p)]
    random = _random_part(ctx)
    judged = 0
    for mode, subs, head in _modes(ctx, judge, random):
        for accept in forms:
            asked = (*head, ("Accept", accept))
            base_label = f"{mode} batch, Accept: {accept}, over HTTP/1.1"
            base = _entries(
                ctx, judge, base_label, accept, _send(ctx, judge, subs, asked, "1.1"), subs
            )
            label = f"{mode} batch, Accept: {accept}, over HTTP/1.0"
            resp = _send(ctx, judge, subs, asked, "1.0")
            if resp.status not in (200, 207) or resp.media_type not in BATCH_MEDIA:
                # Nothing in the spec makes a server take an HTTP/1.0 batch: a refusal is not
                # judged.
                judge.note(f"{label}: answered {resp.status} {resp.media_type}, not as a batch")
                continue
            judged += 1
            # MB-MULTI-1: "choose the representation of a batch result by the request's
            # `Accept` field"; the request's version is not named as overriding it.
            if not judge.expect(f"{label}: media type", resp.media_type, {accept}, "MB-MULTI-1"):
                continue
            entries = _entries(ctx, judge, label, accept, resp, subs)
            for i, (got, want) in enumerate(zip(entries, base, strict=True)):
                # MB-SUB-1: each part is the same request over either version, so its status
                # and outcome are those of the same batch over HTTP/1.1.
                judge.expect(f"{label}: part {i} status", got.status, {want.status}, "MB-SUB-1")
                judge.expect(f"{label}: part {i} outcome", got.outcome, {want.outcome}, "MB-SUB-1")
                if random is not None and subs[i] == random[0] and got.status == want.status == 200:
                    # The random part's octets differ from one request to the next (spec
                    # 14.4), so they are judged by their number: MB-TEST-5 "exactly *n*
                    # octets", which each form carries by its own sentence.
                    judge.expect(
                        f"{label}: part {i} (random) body octets",
                        len(got.body),
                        {random[1]},
                        BODY_REQUIREMENT[accept],
                    )
                if accept != MULTIPART:
                    # MB-MULTI-6 / MB-MULTI-4: the Content-Id echo, as over HTTP/1.1 (the
                    # multipart reader holds each part's echo to its request part already).
                    judge.expect(
                        f"{label}: part {i} content-id",
                        got.content_id,
                        {want.content_id},
                        FORM_REQUIREMENT[accept],
                    )
    if not judged:
        judge.not_applicable("the server answers no HTTP/1.0 batch as a batch")


#: The Accept values whose answer MB-MULTI-1 fixes whatever the forms offered (None sends no
#: Accept field), then the ranges that admit multipart/mixed among others.
FIXED_ACCEPTS: tuple[str | None, ...] = (None, "", "*/*", "multipart/*", MULTIPART)


def _answer(resp: Response) -> str:
    """406, or the media type of a batch answer; another answer as its status and media type."""
    if resp.status == 406:
        return "406"
    if resp.status in (200, 207) and resp.media_type in BATCH_MEDIA:
        return resp.media_type or ""
    return f"{resp.status} {resp.media_type}"


def _accept_cases(offered: list[str]) -> list[tuple[str | None, set[str]]]:
    """(Accept, the answers the spec allows) for the values the HTTP/1.1 negotiation checks
    send: no Accept and the ranges MB-MULTI-1 answers with multipart/mixed, each 207 form alone,
    and the quality and weight lists of `accept-quality-values` and `accept-weight-spellings`."""
    cases: list[tuple[str | None, set[str]]] = [(a, {MULTIPART}) for a in FIXED_ACCEPTS]
    cases += [(form, {form}) for form in offered[1:]]
    cases += quality_cases(offered) + weight_cases(offered[1:])
    out: dict[str | None, set[str]] = {}
    for accept, allowed in cases:
        out.setdefault(accept, allowed)
    return list(out.items())


@checker(
    "http10-accept-chooses-as-over-http11",
    ("MB-MULTI-1", "MB-MULTI-2", "MB-STATUS-9"),
    "A one-part batch sent over HTTP/1.0, by a server that answers HTTP/1.0 batches, is answered in the form the same Accept chooses over HTTP/1.1 (no Accept, an empty one, */*, multipart/*, each 207 form, weighted lists): multipart/mixed with 200 when Accept is absent or empty.",
    state=State.READ_ONLY,
)
def http10_accept_chooses_as_over_http11(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    offered = offered_forms(ctx)
    # Whether the server answers an HTTP/1.0 batch at all is learnt by asking for each form it
    # offers by name: nothing in the spec makes a server take one (RFC 9112 §2.3 lets it
    # refuse the version), so a server that answers none as a batch is not judged.
    taken = [
        form
        for form in offered
        if _answer(_send(ctx, judge, [ok], (("Accept", form),), "1.0")) == form
    ]
    if not taken:
        judge.not_applicable("the server answers no HTTP/1.0 batch as a batch")
    judge.note(f"HTTP/1.0 batches answered in {', '.join(taken)}")
    for accept, allowed in _accept_cases(offered):
        head = () if accept is None else (("Accept", accept),)
        shown = "no Accept" if accept is None else f"Accept {accept!r}"
        over11 = _answer(_send(ctx, judge, [ok], head, "1.1"))
        resp = _send(ctx, judge, [ok], head, "1.0")
        got = _answer(resp)
        if accept in FIXED_ACCEPTS:
            # MB-MULTI-1: "MUST choose `multipart/mixed` when `Accept` is absent or empty, or
            # gives `multipart/mixed` a quality value at least as high as any other
            # representation it offers" - the request's version is no part of that rule.
            judge.expect(f"form for {shown} over HTTP/1.0", got, {MULTIPART}, "MB-MULTI-1")
            continue
        # Where the 207 forms tie "the server chooses between them": the HTTP/1.1 answer is
        # one choice, any the spec allows is another; elsewhere the spec fixes one answer, and
        # the HTTP/1.1 answer is taken as the server's reading of it.
        same = allowed if len(allowed) > 1 and over11 in allowed else {over11}
        # MB-MULTI-1: "choose the representation of a batch result by the request's `Accept`
        # field (RFC 9110 §12.5.1)": the same Accept over HTTP/1.0 chooses the same form.
        judge.expect(
            f"form for {shown} over HTTP/1.0",
            got,
            same,
            "MB-STATUS-9" if same == {"406"} else "MB-MULTI-1",
            allowed_text=f"{sorted(same)} (the answer over HTTP/1.1: {over11})",
        )
        if got in BATCH_MEDIA:
            # MB-MULTI-2: "MUST NOT send a 207 response with `multipart/mixed` content"; the
            # 207 forms are answered 207 (spec 6.1's table).
            judge.expect(
                f"status for {shown} over HTTP/1.0",
                resp.status,
                {200 if got == MULTIPART else 207},
                "MB-MULTI-2" if got == MULTIPART else "MB-MULTI-1",
            )
