"""Accept values and the representations MB-MULTI-1 lets a server choose for each: the cases
the negotiation checks send over HTTP/1.1 and the request-version checks send again over
HTTP/1.0, so that both judge one list."""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge

MULTIPART = "multipart/mixed"
XML = "application/xml"
JSON = "application/vnd.mixbatch.multistatus+json"


def answer_under(ctx: Context, judge: Judge, head: tuple[tuple[str, str], ...]) -> str:
    """How a one-part batch with the fields `head` is answered: 406, 400 or the media type."""
    ok, _ = ok_and_not_found(ctx, judge)
    resp = ctx.batch(judge, [ok], headers=head)
    return str(resp.status) if resp.status in (400, 406) else resp.media_type or str(resp.status)


def offered_forms(ctx: Context) -> list[str]:
    forms = [MULTIPART]
    if ctx.target.claims("xml"):
        forms.append(XML)
    if ctx.target.claims("json"):
        forms.append(JSON)
    return forms


def quality_cases(offered: list[str]) -> list[tuple[str, set[str]]]:
    """(Accept value, the forms the spec allows as the answer)."""
    xml = XML in offered
    json_ = JSON in offered
    cases: list[tuple[str, set[str]]] = [
        # Quality values, not listing order: multipart/mixed ranks higher though listed last.
        (f"{XML};q=0.5, {JSON};q=0.4, {MULTIPART};q=0.9", {MULTIPART}),
        # A tie with multipart/mixed: "at least as high as any other" chooses multipart/mixed.
        (f"{JSON};q=0.8, {XML};q=0.8, {MULTIPART};q=0.8", {MULTIPART}),
        # A media range: multipart/* admits multipart/mixed.
        ("multipart/*", {MULTIPART}),
        # Media types are case-insensitive (RFC 9110 §8.3.1).
        ("Multipart/Mixed;q=0.7, text/html", {MULTIPART}),
        # A range that admits no form listed first: the list as a whole still admits one.
        (f"text/html, {MULTIPART};q=0.5", {MULTIPART}),
        # A 207 form named, but below multipart/mixed, before or after it: the answer is the
        # multipart form, so its status is 200 whatever else Accept names (MB-MULTI-2).
        (f"{MULTIPART}, {JSON};q=0.5", {MULTIPART}),
        (f"{XML};q=0.1, {MULTIPART}", {MULTIPART}),
        (f"{MULTIPART}, {XML};q=0.9, {JSON};q=0.9", {MULTIPART}),
        (f"*/*;q=0.8, {MULTIPART}", {MULTIPART}),
        # The smallest weight above zero (RFC 9110 §12.4.2: qvalue has up to three decimals,
        # and only 0 means "not acceptable"): multipart/mixed stays acceptable, named or by a
        # range, so the answer is no 406.
        (f"{MULTIPART};q=0.001", {MULTIPART}),
        ("multipart/*;q=0.001", {MULTIPART}),
    ]
    # MB-MULTI-1 prose: "A structured suffix is not a match, so `application/json` does not
    # admit `application/vnd.mixbatch.multistatus+json`, and `text/xml` does not admit the XML
    # form": alone they admit no form (406), beside multipart/mixed they leave it the only one.
    cases.append(("application/json", {"406"}))
    cases.append(("text/xml", {"406"}))
    cases.append((f"application/json, text/xml, {MULTIPART};q=0.1", {MULTIPART}))
    # The most specific range gives a type its quality (RFC 9110 §12.5.1): multipart/mixed
    # keeps q=1 under a refused multipart/* or */*, and is refused under a welcome */*.
    cases.append((f"multipart/*;q=0, {MULTIPART}", {MULTIPART}))
    cases.append((f"*/*;q=0, {MULTIPART}", {MULTIPART}))
    # q=0 is "not acceptable" (RFC 9110 §12.4.2): multipart/mixed is excluded, so the answer
    # is another offered form, or 406 when none is offered.
    others = {f for f, on in ((XML, xml), (JSON, json_)) if on}
    cases.append((f"{MULTIPART};q=0, {XML}, {JSON}", others or {"406"}))
    cases.append((f"*/*;q=0.1, {MULTIPART};q=0", others or {"406"}))
    cases.append((f"{MULTIPART};q=0.000, */*", others or {"406"}))
    # Everything refused: no form is acceptable (MB-STATUS-9).
    cases.append(("*/*;q=0", {"406"}))
    # application/* admits the XML and JSON forms, never multipart/mixed; where both are
    # offered and tie, "the server chooses between them".
    # A quoted-string parameter value holds commas and quoted-pairs that separate no member
    # (RFC 9110 §5.6.6, §5.6.4): multipart/mixed inside text/html's quoted value is text, so
    # the field admits no form; after a value holding `\"` or ending in `\\` it is a member.
    cases.append(('text/html; mb-suite="a, multipart/mixed, b"', {"406"}))
    cases.append(('text/html; mb-suite="a\\", multipart/mixed, b=\\"c"', {"406"}))
    cases.append((f'text/html; mb-suite="a\\"b", {MULTIPART}', {MULTIPART}))
    cases.append((f'text/html; mb-suite="a\\\\", {MULTIPART}', {MULTIPART}))
    # qdtext and quoted-pair take obs-text (RFC 9110 §5.6.4), one character per octet here: a
    # member whose quoted value holds 0xE9, or 0x80 and an escaped 0xFF, is a member like any
    # other. The field is read past it, and multipart/mixed under q=0 after such a value is
    # refused whether or not the parameter narrows the range (a range that does not match
    # gives it no quality at all).
    cases.append((f'text/html; mb-suite="caf\xe9", {MULTIPART}', {MULTIPART}))
    cases.append((f'{MULTIPART}; mb-suite="\x80\\\xff"; q=0, {XML}, {JSON}', others or {"406"}))
    cases.append(("application/*", others or {"406"}))
    cases.append((f"application/*;q=0.9, {MULTIPART};q=0.5", others or {MULTIPART}))
    if xml and json_:
        # A form reached only through a range takes the range's weight (RFC 9110 §12.5.1), and
        # the JSON form's structured suffix keeps it inside application/*: with the other form
        # and multipart/mixed named lower, the form the range reaches is the one best.
        cases.append((f"application/*, {XML};q=0.5, {MULTIPART};q=0.8", {JSON}))
        cases.append((f"application/*, {JSON};q=0.5, {MULTIPART};q=0.8", {XML}))
        cases.append((f"*/*;q=0.9, {XML};q=0.5, {MULTIPART};q=0.8", {JSON}))
    if xml:
        cases.append((f"{MULTIPART};q=0.2, {XML};q=0.6", {XML}))
    if json_:
        cases.append((f"*/*;q=0.3, {JSON}", {JSON}))
    return cases


#: A parameter before a weight: one no representation carries, and the charset one may.
OTHER_PARAMETERS = ("mb-suite=1", "charset=utf-8")


def weight_cases(forms: list[str]) -> list[tuple[str, set[str]]]:
    """(Accept, the forms MB-MULTI-1 allows) for the weight spellings, given the declared 207
    `forms`; each value makes the answer turn on how its weights are read."""
    cases: list[tuple[str, set[str]]] = []
    for form in forms:
        cases += [
            # OWS ";" OWS "q=": spaces and tabs on either side of the semicolon, and OWS
            # before the comma (RFC 9110 §5.6.1).
            (f"{MULTIPART}; q=0.1, {form}", {form}),
            (f"{MULTIPART} ;q=0.1, {form}", {form}),
            (f"{MULTIPART}\t;\tq=0.1, {form}", {form}),
            (f"{MULTIPART} ; q=0.1 , {form}", {form}),
            (f"{form}; q=0.9, {MULTIPART}; q=0.8", {form}),
            # Parameter names are case-insensitive (RFC 9110 §5.6.6).
            (f"{MULTIPART};Q=0.1, {form}", {form}),
            (f"{form};Q=0.4, {MULTIPART};q=0.5", {MULTIPART}),
            # qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
            (f"{MULTIPART};q=0.100, {form};q=0.2", {form}),
            (f"{form};q=1.000, {MULTIPART};q=0.999", {form}),
            (f"{MULTIPART};q=0., {form};q=0.001", {form}),
            (f"{form};q=0.5, {MULTIPART};q=0.50", {MULTIPART}),
            (f"{form};q=1., {MULTIPART};q=1", {MULTIPART}),
        ]
        for param in OTHER_PARAMETERS:
            # A parameter before the weight: multipart/mixed's range is below the form's
            # whether or not its parameter narrows it, and the form's range is below
            # multipart/mixed's whether or not it admits the form at all.
            cases.append((f"{MULTIPART};{param};q=0.3, {form};q=0.6", {form}))
            cases.append((f"{MULTIPART};q=0.5, {form};{param}; q=0.4", {MULTIPART}))
    if forms:
        everyone = set(forms)
        # Ranges with weights: the most specific range that matches gives a type its quality
        # (RFC 9110 §12.5.1); where the 207 forms tie "the server chooses between them".
        cases += [
            (f"*/*;q=0.5, {MULTIPART};q=0.4", everyone),
            (f"*/*; q=0.9, {MULTIPART} ; q=0.95", {MULTIPART}),
            (f"application/*; q=0.6, {MULTIPART}; q=0.5", everyone),
            ("multipart/*;q=0.2, application/*;Q=0.3", everyone),
            ("multipart/*\t; q=0.7, application/*; q=0.3", {MULTIPART}),
        ]
    return cases


#: Accept members that look like patterns over a batch form's type or subtype but are media
#: types of their own: RFC 9110 §12.5.1 gives `*` meaning only as a whole subtype (`type/*`) or
#: in `*/*`, and `*`, `.` and `+` are token characters (§5.6.2), so `application/*+json` is the
#: subtype `*+json`, which no batch form has. Each admits a form only to a reading as a glob,
#: a regular expression or a prefix.
LITERAL_LOOKALIKES = (
    "application/*+json",
    "application/vnd.mixbatch.*",
    "application/vnd.mixbatch.multistatus+*",
    "application/vnd.mixbatch.multistatus",
    "application/x*",
    "application/*ml",
    "application/.*",
    "app*/*",
    "multipart/*mixed",
    "multipart/mix*",
    "multipart/mixed*",
    "multipart/mix",
    "multi*/*",
)
#: Members whose type is `*` with a subtype other than `*`: RFC 9110 §12.5.1 names `*/*` alone
#: as the range of every type, so such a member either names a type `*` no form has or is no
#: media range a server can read.
STAR_TYPE_LOOKALIKES = ("*/json", "*/mixed", "*/xml", "*/*+xml", "*/*+json")


def lookalike_cases(offered: list[str]) -> list[tuple[str, set[str]]]:
    """(Accept, the answers the spec allows: forms, "406" or "400") for each lookalike member,
    alone and beside valid ranges whose answer it must not change, given the `offered` forms
    (multipart/mixed first)."""
    cases: list[tuple[str, set[str]]] = []
    for member in (*LITERAL_LOOKALIKES, *STAR_TYPE_LOOKALIKES):
        # A member of type `*` that a server cannot read may be skipped (the field then holds
        # no range and counts as absent: multipart/mixed) or refuse the request (400), as for
        # any member that is no media range; a literal lookalike is a media type, and admits
        # nothing.
        unread = {MULTIPART, "400"} if member in STAR_TYPE_LOOKALIKES else set()
        extra = {"400"} if unread else set()
        cases.append((member, {"406"} | unread))
        cases.append((f"{member}, {MULTIPART};q=0.5", {MULTIPART} | extra))
        cases.append((f"*/*;q=0.5, {member};q=0", {MULTIPART} | extra))
        for form in offered[1:]:
            cases.append((f"{form};q=0.5, {member}", {form} | extra))
    return cases


def parameter_cases(offered: list[str]) -> list[tuple[str, str]]:
    """(Accept value, the one form it selects) for media ranges that carry parameters other
    than the weight, which spec 6.1 says "take no part in the match": each range admits its
    form with the weight it gives, whatever the parameter."""
    cases: list[tuple[str, str]] = [
        # "`multipart/mixed; boundary=x` [admits] the multipart form": the response's boundary
        # is not known before it is made.
        (f"{MULTIPART}; boundary=mb-suite-boundary", MULTIPART),
        (f"{MULTIPART};charset=utf-8", MULTIPART),
    ]
    for form in offered[1:]:
        # RFC 9110 §5.6.4: a quoted-string is one value, so a `;` and a `q=` inside one are
        # text: they end no parameter and give the range no weight.
        cases += [
            (f'{MULTIPART};mb-suite="a;q=0.5", {form};q=0.8', MULTIPART),
            (f'{form};mb-suite="b;q=0";q=0.9, {MULTIPART};q=0.8', form),
        ]
        cases += [
            # "So `application/xml; charset=utf-8` admits the XML form".
            (f"{form}; charset=utf-8", form),
            (f"{form};mb-suite=1;q=0.5, {MULTIPART};q=0.4", form),
            # A parameter does not turn a q=0 range into one that admits nothing else.
            (f"{MULTIPART};boundary=mb-suite-boundary;q=0, {form};q=0.5", form),
            (f'{form};mb-suite="a, b";q=0.9, {MULTIPART};q=0.8', form),
        ]
    return cases
