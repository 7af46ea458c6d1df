"""Negotiation checks beyond the defaults (spec 6.1): quality values, q=0, ranges, Vary.

Theory of operation: MB-MULTI-1 makes Accept decide the form "by the request's `Accept` field
(RFC 9110 §12.5.1)", so quality values outrank listing order, `q=0` means "not acceptable",
and `multipart/*` admits multipart/mixed. Each case names the Accept value and the forms the
spec allows for it, computed from the profiles the target claims (a form it does not claim is
never expected); a form the target does not offer at all leaves 406 (MB-STATUS-9). The
status follows the form chosen: 200 for multipart/mixed, even when Accept also names a 207 form
below it (MB-MULTI-2), 207 for the others.
A media range's quoted parameter value holds commas and quoted-pairs that separate no member
(RFC 9110 §5.6.4, §5.6.6), so `multipart/mixed` written inside one is text, not a range.
Each Accept that lists several ranges is also sent split over field lines, one range each.
`accept-unparsed-member-beside-valid` puts a member that is no media range (`mb-suite-word`,
`text/`, `/mixed`) beside valid ones: RFC 9110 fixes no reading of it, so the answer must be
one the same server gives the valid members alone, or no Accept at all (the field
disregarded), or a 400, and the same when the members come on separate field lines
(MB-MULTI-1).
`accept-weight-spellings` spells the weights RFC 9110 §12.4.2 allows in every way its grammar
admits (`weight = OWS ";" OWS "q=" qvalue`): spaces and tabs on either side of the semicolon,
`Q=` (parameter names are case-insensitive, §5.6.6), qvalues of no to three decimals (`q=0.`,
`q=0.100`, `q=1.000`, `q=1`), a parameter other than q before the weight, `*/*` and
`application/*` with weights, each also split over field lines; each value weighs
multipart/mixed against each 207 form the target declares so that only the weight as written
decides (N/A when it declares none). A parameter before the weight sits on a range whose
answer is the same whether media-range parameters narrow the match or not.
`accept-lookalike-ranges-admit-no-form` sends Accept members that look like patterns over a
batch form but are media types of their own (`application/*+json`, `multipart/*mixed`,
`application/vnd.mixbatch.*`, a prefix such as `multipart/mix`, `app*/*`): RFC 9110 §12.5.1
gives `*` a meaning only as a whole subtype or in `*/*`, and spec 6.1 matches ranges "by type
and subtype, or by a wildcard", so each admits no form: alone it is 406 (MB-STATUS-9), and beside
valid ranges it leaves the answer theirs (MB-MULTI-1). A member of type `*` with another subtype
(`*/json`, `*/mixed`) names no range RFC 9110 defines, so a server may also skip it as a member
it cannot read (alone: as no Accept, multipart/mixed) or refuse the request with 400.
`accept-range-parameters-ignored` sends media ranges carrying parameters other than the weight
(`charset=utf-8`, a boundary, a parameter of the suite's own, one quoted around a comma), alone
and weighed against another form: spec 6.1 says they "take no part in the match", so each
range admits its form with the weight it gives (MB-MULTI-1), and one alone is never 406
(MB-STATUS-9).
`accept-unparsed-member-beside-valid` also sends each member that is no media range alone (a
word, a type or subtype alone, each 207 form with a parameter that does not parse), and
`;;;`: spec 6.1 lets a server treat such a field as absent, read its valid elements alone
(none: 406) or refuse it 400, never read it as a form.
`vary-in-every-form` asks for every form the target claims and expects `Vary: Accept` on each
answer (MB-MULTI-10, a SHOULD: WARN when missing). `refusals-are-problems-under-every-accept`
sends a malformed batch, a batch of another media type, a Batch-Mode nobody implements, a part
header section over the published max_part_header_bytes and a valid batch under each Accept in `REFUSAL_ACCEPTS` (none, any, the batch form only, and ones
admitting no batch form): every 4xx or 5xx is a problem document, whatever Accept asked for
(MB-STATUS-4), and an Accept admitting no batch form may be answered 406 first (MB-STATUS-9).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.accept_cases import (
    JSON,
    MULTIPART,
    XML,
    answer_under,
    lookalike_cases,
    offered_forms,
    parameter_cases,
    quality_cases,
    weight_cases,
)
from mixbatch_conformance.checks._shared.content_codings import UNKNOWN_CODING
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import list_members

#: The Accept values a refusal is judged under (None sends no Accept field): absent, any, the
#: batch form alone, and values that admit no batch representation, a problem document's
#: own media type among them.
REFUSAL_ACCEPTS: tuple[str | None, ...] = (
    None,
    "*/*",
    MULTIPART,
    "text/html",
    "text/plain",
    "application/problem+json",
    "text/html, */*;q=0",
)
REFUSAL_BOUNDARY = "mb-neg-2b7e1a90c4d3f658"
#: The largest max_part_header_bytes the refusal check goes over (one field line that long).
MAX_FILLER = 1_000_000
#: The status each form is answered with (spec 6.1's table).
STATUS = {MULTIPART: 200, XML: 207, JSON: 207}


def _expect_status_of_form(judge: Judge, accept: str, form: str, status: int) -> None:
    """The status follows the form chosen, never whether Accept names a 207 form (MB-MULTI-2:
    "MUST NOT send a 207 response with `multipart/mixed` content")."""
    if form in STATUS:
        judge.expect(
            f"status for Accept {accept!r}",
            status,
            {STATUS[form]},
            "MB-MULTI-2" if form == MULTIPART else "MB-MULTI-1",
        )


@checker(
    "accept-quality-values",
    ("MB-MULTI-1", "MB-STATUS-9"),
    "Accept is read by quality value, not by listing order: q=0 excludes a form, multipart/* admits multipart/mixed, and a tie chooses multipart/mixed.",
    state=State.READ_ONLY,
)
def accept_quality_values(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    sendings: list[tuple[str, tuple[tuple[str, str], ...], set[str]]] = []
    for accept, allowed in quality_cases(offered_forms(ctx)):
        sendings.append((accept, (("Accept", accept),), allowed))
        members = list_members([accept])
        if len(members) > 1:
            # Field lines of one name are one list (RFC 9110 5.3): the same Accept split over
            # lines, one member each, chooses the same form.
            lines = tuple(("Accept", m) for m in members)
            sendings.append((f"{accept} on {len(lines)} lines", lines, allowed))
    for accept, head, allowed in sendings:
        resp = ctx.batch(judge, [ok], headers=head)
        got = "406" if resp.status == 406 else resp.media_type
        # MB-MULTI-1: "choose `multipart/mixed` when `Accept` ... gives `multipart/mixed` a
        # quality value at least as high as any other representation it offers"; MB-STATUS-9:
        # 406 "when `Accept` admits none of the batch representations it offers".
        judge.expect(
            f"form for Accept {accept!r}",
            got,
            allowed,
            "MB-STATUS-9" if allowed == {"406"} else "MB-MULTI-1",
        )
        _expect_status_of_form(judge, accept, got, resp.status)


@checker(
    "accept-weight-spellings",
    ("MB-MULTI-1", "MB-MULTI-2"),
    "Accept weights are read in every spelling RFC 9110 allows: OWS (spaces, tabs) around the semicolon, Q= in upper case, qvalues with no to three decimals, a parameter before q, weighted */* and application/* ranges, one line or several, each choosing the form its weights choose among multipart/mixed and the declared 207 forms.",
    state=State.READ_ONLY,
)
def accept_weight_spellings(ctx: Context, judge: Judge) -> None:
    forms = offered_forms(ctx)[1:]
    if not forms:
        judge.not_applicable("the target declares no 207 form to weigh multipart/mixed against")
    ok, _ = ok_and_not_found(ctx, judge)
    for accept, allowed in weight_cases(forms):
        members = list_members([accept])
        spellings: list[tuple[str, tuple[tuple[str, str], ...]]] = [
            (repr(accept), (("Accept", accept),))
        ]
        if len(members) > 1:
            # RFC 9110 §5.3: field lines of one name are one list, read as the one line is.
            lines = tuple(("Accept", m) for m in members)
            spellings.append((f"{accept!r} on {len(lines)} lines", lines))
        for shown, head in spellings:
            resp = ctx.batch(judge, [ok], headers=head)
            got = "406" if resp.status == 406 else resp.media_type
            # MB-MULTI-1: "choose the representation of a batch result by the request's
            # `Accept` field (RFC 9110 §12.5.1), and MUST choose `multipart/mixed` when ...
            # [it] gives `multipart/mixed` a quality value at least as high as any other
            # representation it offers"; RFC 9110 §12.4.2: `weight = OWS ";" OWS "q=" qvalue`.
            judge.expect(f"form for Accept {shown}", got, allowed, "MB-MULTI-1")
            if got in STATUS:
                # MB-MULTI-2: "MUST NOT send a 207 response with `multipart/mixed` content".
                judge.expect(
                    f"status for Accept {shown}",
                    resp.status,
                    {STATUS[got]},
                    "MB-MULTI-2" if got == MULTIPART else "MB-MULTI-1",
                )


@checker(
    "accept-lookalike-ranges-admit-no-form",
    ("MB-STATUS-9", "MB-MULTI-1"),
    "Accept members that look like patterns over a batch form (application/*+json, multipart/*mixed, application/vnd.mixbatch.*, */json, a prefix of a form) admit no form: alone the batch is 406, beside valid ranges the valid ranges choose.",
    state=State.READ_ONLY,
)
def accept_lookalike_ranges_admit_no_form(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    for accept, allowed in lookalike_cases(offered_forms(ctx)):
        resp = ctx.batch(judge, [ok], headers=(("Accept", accept),))
        got = str(resp.status) if resp.status in (400, 406) else resp.media_type
        # MB-MULTI-1: "Media ranges match as RFC 9110 §12.5.1 says: by type and subtype, or by
        # a wildcard. A structured suffix is not a match"; MB-STATUS-9: "MUST answer 406 (Not
        # Acceptable) to a batch request whose `Accept` field admits none of the batch
        # representations the server offers".
        judge.expect(
            f"form for Accept {accept!r}",
            got,
            allowed,
            "MB-STATUS-9" if "406" in allowed else "MB-MULTI-1",
        )
        _expect_status_of_form(judge, accept, got, resp.status)


@checker(
    "accept-range-parameters-ignored",
    ("MB-MULTI-1", "MB-STATUS-9"),
    "Accept ranges carrying parameters other than the weight (charset, a boundary, a parameter of the suite's own, a quoted one) admit their form with the weight they give: alone a range is answered in its form, never 406, and weighed against another form its weight decides.",
    state=State.READ_ONLY,
)
def accept_range_parameters_ignored(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    for accept, form in parameter_cases(offered_forms(ctx)):
        resp = ctx.batch(judge, [ok], headers=(("Accept", accept),))
        got = "406" if resp.status == 406 else resp.media_type
        # Spec 6.1 (MB-MULTI-1's matching): "Parameters of a media range other than its weight
        # take no part in the match ... each with the weight its range gives"; MB-STATUS-9's
        # 406 is for an Accept that "admits none of the batch representations".
        judge.expect(
            f"form for Accept {accept!r}",
            got,
            {form},
            "MB-STATUS-9" if got == "406" else "MB-MULTI-1",
        )
        _expect_status_of_form(judge, accept, got, resp.status)


@checker(
    "vary-in-every-form",
    ("MB-MULTI-10",),
    "Every form of a batch response (multipart, XML and JSON alike) carries Vary naming Accept when the target offers more than one.",
    state=State.READ_ONLY,
)
def vary_in_every_form(ctx: Context, judge: Judge) -> None:
    offered = offered_forms(ctx)
    if len(offered) < 2:
        judge.not_applicable("the target offers one representation only")
    ok, _ = ok_and_not_found(ctx, judge)
    for form in offered:
        resp = ctx.batch(judge, [ok], headers=(("Accept", form),))
        vary = [v.strip().lower() for v in ",".join(resp.get_all("Vary")).split(",")]
        # MB-MULTI-10: "SHOULD send `Vary: Accept` in its batch responses" - every form.
        judge.expect_true(
            f"Vary on the {form} answer",
            "accept" in vary,
            repr(resp.get_all("Vary")),
            "Vary naming Accept (SHOULD)",
        )


#: Accept members that are no media range (RFC 9110 §12.5.1: `media-range = ( "*/*" / ( type
#: "/*" ) / ( type "/" subtype ) ) parameters`): a bare word, a type without its subtype, a
#: subtype without its type.
UNPARSED_MEMBERS = ("mb-suite-word", "text/", "/mixed")


def unparsed_members(offered: list[str]) -> tuple[str, ...]:
    """Members that are no media range: `UNPARSED_MEMBERS`, and each 207 form `offered` with a
    parameter that does not parse (RFC 9110 §5.6.6: `parameter = parameter-name "="
    parameter-value`), a name without "=" or "=" without a name: a reader that keeps the type
    it read before the fault takes the form at weight 1."""
    broken = tuple(f"{form}{fault}" for form in offered[1:] for fault in (";charset", "; =utf-8"))
    return (*UNPARSED_MEMBERS, *broken)


@checker(
    "accept-unparsed-member-beside-valid",
    ("MB-MULTI-1",),
    "An Accept member that is no media range (a word, a type or subtype alone, a 207 form with a parameter that does not parse), beside valid ones on one field line or on separate lines, is answered as the valid members alone are, as no Accept is, or 400, the same on either spelling; alone, or as ;;;, as no Accept is, 406 or 400.",
    state=State.READ_ONLY,
)
def accept_unparsed_member_beside_valid(ctx: Context, judge: Judge) -> None:
    offered = offered_forms(ctx)
    valid_lists = [[MULTIPART], [f"{MULTIPART};q=0.5", *offered[1:]], [f"{MULTIPART};q=0"]]
    absent = answer_under(ctx, judge, ())
    unparsed = unparsed_members(offered)
    for bad in (*unparsed, ";;;"):
        got = answer_under(ctx, judge, (("Accept", bad),))
        # Spec 6.1: "A server may treat such a field as absent, read its valid elements alone
        # and answer 406 (MB-STATUS-9) when they admit no batch representation, or refuse the
        # request 400 as malformed; it never reads such an element as a form."
        judge.expect(
            f"answer for Accept {bad!r} alone",
            got,
            {absent, "406", "400"},
            "MB-MULTI-1",
            allowed_text=f"{absent!r} (no Accept), 406 or 400",
        )
    for bad in unparsed:
        for valid in valid_lists:
            alone = answer_under(ctx, judge, (("Accept", ", ".join(valid)),))
            for members in ([bad, *valid], [*valid, bad]):
                one = ", ".join(members)
                got = answer_under(ctx, judge, (("Accept", one),))
                # MB-MULTI-1: the form is chosen "by the request's `Accept` field (RFC 9110
                # §12.5.1)", which says nothing of a member that is no media range: a server
                # may skip it (the valid members choose), disregard the field (as absent: MB-MULTI-1's
                # multipart/mixed) or refuse the request as malformed; it may not read it as
                # some other form, nor as refusing the forms the valid members admit.
                judge.expect(
                    f"answer for Accept {one!r}",
                    got,
                    {alone, absent, "400"},
                    "MB-MULTI-1",
                    allowed_text=f"{alone!r} (the valid members alone), {absent!r} (no Accept) or 400",
                )
                lines = tuple(("Accept", m) for m in members)
                # RFC 9110 §5.3: field lines of one name combine into one list "without
                # changing the semantics", so the lines are answered as the one line is.
                judge.expect(
                    f"answer for Accept {one!r} on {len(lines)} lines",
                    answer_under(ctx, judge, lines),
                    {got},
                    "MB-MULTI-1",
                    allowed_text=f"{got!r}, as on one line",
                )


def _admits_a_form(accept: str | None, offered: list[str]) -> bool:
    """Whether `accept` admits one of `offered` (no Accept admits everything)."""
    if accept is None:
        return True
    ranges = [r.split(";") for r in accept.lower().split(",")]
    for media in offered:
        top = media.split("/")[0] + "/*"
        for r in ranges:
            name = r[0].strip()
            q = next((p.split("=")[1].strip() for p in r[1:] if p.strip().startswith("q=")), "1")
            if name in (media, top, "*/*") and float(q) > 0:
                return True
    return False


@checker(
    "refusals-are-problems-under-every-accept",
    ("MB-STATUS-4", "MB-STATUS-9", "MB-INTER-6"),
    "A malformed batch, a batch of another media type, a batch in an unknown content coding, an unknown Batch-Mode, a part header section over its limit and an unacceptable Accept are each answered with a problem document whatever Accept asks for: none, */*, multipart/mixed only, text/html only or problem+json only.",
    state=State.READ_ONLY,
)
def refusals_are_problems_under_every_accept(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    offered = offered_forms(ctx)
    valid = compose_batch([ok], REFUSAL_BOUNDARY)
    mixed = f"multipart/mixed; boundary={REFUSAL_BOUNDARY}"
    # (what is sent, Content-Type, extra fields, body, the status it calls for or None).
    faults: list[tuple[str, str, tuple[tuple[str, str], ...], bytes, int | None, str]] = [
        # MB-WIRE-13 / MB-STATUS-2: no close delimiter is malformed, 400.
        ("a batch without its close delimiter", mixed, (), valid[: -len("--")], 400, "MB-STATUS-2"),
        # MB-WIRE-2: "answer 415" to a media type other than multipart/mixed.
        ("a text/plain batch", "text/plain", (), valid, 415, "MB-WIRE-2"),
        # MB-PROC-12: "A Batch-Mode value the server does not implement is answered 501".
        (
            "an unknown Batch-Mode",
            mixed,
            (("Batch-Mode", "mb-suite-no-such-mode"),),
            valid,
            501,
            "MB-PROC-12",
        ),
        # MB-INTER-6: "A server that receives a batch request with a content coding it does
        # not support MUST answer 415".
        (
            "a batch in a content coding no server supports",
            mixed,
            (("Content-Encoding", UNKNOWN_CODING),),
            valid,
            415,
            "MB-INTER-6",
        ),
        ("a valid batch", mixed, (), valid, None, "MB-STATUS-9"),
    ]
    header_limit = ctx.limit("max_part_header_bytes")
    if header_limit is not None and header_limit <= MAX_FILLER:
        filler = f"X-Filler: {'x' * header_limit}\r\n".encode()
        split = valid.index(b"\r\n\r\n") + 2
        # MB-STATUS-3: "431 ... when a part header section exceeds `max_part_header_bytes`".
        faults.append(
            (
                "a part header section over max_part_header_bytes",
                mixed,
                (),
                valid[:split] + filler + valid[split:],
                431,
                "MB-STATUS-3",
            )
        )
    for accept in REFUSAL_ACCEPTS:
        admits = _admits_a_form(accept, offered)
        asked = () if accept is None else (("Accept", accept),)
        for what, ctype, extra, body, status, requirement in faults:
            if status is None and admits:
                continue
            allowed = {s for s in (status,) if s is not None}
            if not admits:
                # MB-STATUS-9: "MUST answer 406 ... whose `Accept` field admits none of the
                # batch representations"; which fault a server reports first is its choice.
                allowed.add(406)
            head = [("Content-Type", ctype), *asked, *extra]
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
            judge.note(f"sent {what} with Accept {accept!r}: {resp.status}")
            # MB-STATUS-4: "MUST give each 4xx or 5xx response it makes to a batch request an
            # `application/problem+json` body", whatever the request's Accept admits.
            expect_rejected(
                judge, resp, allowed, "MB-STATUS-9" if resp.status == 406 else requirement
            )
            if resp.status == 415 and ("Content-Encoding", UNKNOWN_CODING) in extra:
                # MB-INTER-6: "MUST answer 415 with an `Accept-Encoding` field naming the codings
                # it does decode (RFC 9110 §15.5.16)".
                judge.expect_true(
                    "Accept-Encoding on the 415 for a content coding",
                    resp.get("Accept-Encoding") is not None,
                    "no Accept-Encoding field",
                    "an Accept-Encoding field",
                    "MB-INTER-6",
                )


#: Proactive negotiation fields other than Accept, each in a value that admits no UTF-8 text or
#: no language a server has.
OTHER_NEGOTIATION = (
    ("Accept-Charset", "iso-8859-1"),
    ("Accept-Charset", "utf-8;q=0, *;q=0.5"),
    ("Accept-Language", "x-mb-suite"),
    ("Accept-Language", "*;q=0"),
)


@checker(
    "accept-alone-chooses-the-form",
    ("MB-MULTI-1",),
    "A batch whose Accept prefers one form (each offered form first, the others at q=0.5) carrying Accept-Charset or Accept-Language values that admit no UTF-8 or no language is answered in the form Accept alone chooses, never another form or 406.",
    state=State.READ_ONLY,
)
def accept_alone_chooses_the_form(ctx: Context, judge: Judge) -> None:
    offered = offered_forms(ctx)
    for first in offered:
        rest = [f"{form};q=0.5" for form in offered if form != first]
        accept = ", ".join([first, *rest])
        alone = answer_under(ctx, judge, (("Accept", accept),))
        for field in OTHER_NEGOTIATION:
            got = answer_under(ctx, judge, (("Accept", accept), field))
            # Spec 6.1 (MB-MULTI-1): "`Accept` alone chooses among them. The other proactive
            # negotiation fields ... take no part in the choice and give no 406".
            judge.expect(
                f"answer for Accept {accept!r} with {field[0]}: {field[1]}",
                got,
                {alone},
                "MB-MULTI-1",
                allowed_text=f"{alone!r}, as under Accept alone",
            )
