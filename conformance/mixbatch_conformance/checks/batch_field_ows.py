"""Whitespace of every kind wherever the grammar of the batch's Content-Type and Prefer allows
it: the batch is answered as the same batch spelt plainly (MB-WIRE-4, MB-PROC-13).

Theory of operation: RFC 9110 §5.6.3 makes optional whitespace "OWS = *( SP / HTAB )", any run
of spaces and tabs. A reader that skips spaces only, or one octet only, at one of the places a
grammar puts OWS takes a valid field for a broken one. The batch's `Content-Type` has OWS
around the whole value (RFC 9112 §5: `field-line = field-name ":" OWS field-value OWS`) and on
both sides of each `;` of its parameters (RFC 9110 §5.6.6: `parameters = *( OWS ";" OWS [
parameter ] )`); MB-WIRE-4 makes the server "accept, as far as the boundary goes, every
boundary that MB-WIRE-3 allows" and refuse only a Content-Type whose parameters break that
grammar. `Prefer` (RFC 7240 §2) has OWS around each `,` of its list (RFC 9110 §5.6.1), around
each `;` of a preference's parameters (`*( OWS ";" [ OWS preference-parameter ] )`) and BWS
around its `=` (`parameter-name [ BWS "=" BWS parameter-value ]`, BWS being OWS a sender does
not write); MB-PROC-13 makes the server "recognise the `batch-on-error` preference" in every
spelling.

The other fields a batch server parses and whose grammar has OWS are varied with tabs by
their own checks: the Content-Type's and the framing fields' OWS around the whole value
(`batch-framing-fields-any-case-and-ows`), Accept's around its `;` and weights
(`accept-weight-spellings`), Content-Encoding's around its `,`
(`content-coding-stacks-decoded-in-reverse`, `content-coding-names-any-case`) and Batch-Mode's
(`implemented-mode-list-forms-run-as-plain`, `unimplemented-mode-list-forms-refused`).

`content-type-and-prefer-ows-every-kind` first sends each field spelt plainly (one space after
the colon and after each `;` and `,`, nothing else) and keeps the answer: its status, each
part's status and outcome, and the preferences `Preference-Applied` names. Then, for each
place the grammar allows OWS, it sends the same batch with that place holding each kind of
OWS (none, SP, HTAB, two of either, both in either order, four mixed), the others plain, and
then with every place holding the same kind at once; each answer must be the plain one. The
Content-Type carries the boundary as a token and as a quoted-string, beside another parameter
(before it and after it); Prefer is `wait=5, batch-on-error=stop; mb-suite=1` sent with a
part that fails (GET not_found) and one after it (GET ok), so that whether stop was read shows.
Whitespace around the `=` of a media-type parameter is not in RFC 9110 §5.6.6's grammar
(MB-WIRE-4: "whitespace around the `=`, as in `boundary = b1` ... is answered 400 under this
requirement too"): a space or a tab on either side of the boundary's `=` must be answered 400.

Over HTTP/2 the OWS around a whole value cannot be sent (a field value there neither begins
nor ends with whitespace), so only the places inside the value are varied.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import list_members, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-ows-kinds-7d21c4e09b3f5a86"
#: The kinds of OWS (RFC 9110 §5.6.3: `*( SP / HTAB )`) each place is given in turn.
KINDS = ("", " ", "\t", "  ", "\t\t", " \t", "\t ", "\t \t ")
#: The Content-Type values, each place of OWS a named slot; the first two slots are the field
#: line's OWS around the whole value.
TYPE_TEMPLATES = (
    "multipart/mixed{a};{b}boundary={bnd}{c};{d}mb-suite=1",
    'multipart/mixed{a};{b}mb-suite=1{c};{d}boundary="{bnd}"',
)
TYPE_SLOTS = ("lead", "trail", "a", "b", "c", "d")
#: The plain spelling: one space after the colon and after each `;`.
TYPE_PLAIN = {"lead": " ", "trail": "", "a": "", "b": " ", "c": "", "d": " "}
#: Prefer (RFC 7240 §2): OWS around `,`, BWS around `=`, OWS around `;`.
PREFER_TEMPLATE = "wait=5{a},{b}batch-on-error{c}={d}stop{e};{f}mb-suite=1"
PREFER_SLOTS = ("lead", "trail", "a", "b", "c", "d", "e", "f")
PREFER_PLAIN = {"lead": " ", "trail": "", "a": "", "b": " ", "c": "", "d": "", "e": "", "f": " "}
#: Whitespace around a media-type parameter's `=`, which RFC 9110 §5.6.6 does not allow.
BWS_REFUSED = (
    "multipart/mixed; boundary\t={bnd}",
    "multipart/mixed; boundary=\t{bnd}",
    "multipart/mixed; boundary =\t{bnd}",
)

Summary = tuple[int, tuple[tuple[str | None, str | None], ...], tuple[str, ...]]


def _spellings(
    slots: tuple[str, ...], plain: dict[str, str], http2: bool
) -> list[tuple[str, dict[str, str]]]:
    """(label, OWS by slot): each slot given each kind, the others plain, then every slot
    given one kind at once; the field line's own OWS left plain over HTTP/2."""
    varied = [s for s in slots if not (http2 and s in ("lead", "trail"))]
    out: list[tuple[str, dict[str, str]]] = []
    for slot in varied:
        for kind in KINDS:
            if kind != plain[slot]:
                out.append((f"{kind!r} at {slot}", {**plain, slot: kind}))
    for kind in KINDS:
        out.append((f"{kind!r} at every place", {**plain, **dict.fromkeys(varied, kind)}))
    return out


def _request(
    ctx: Context, body: bytes, ctype: tuple[str, str, str], prefer: tuple[str, str, str]
) -> bytes:
    """The batch request with Content-Type and Prefer each written as (OWS, value, OWS) after
    its colon; an empty Prefer value sends no Prefer."""
    marks = [("Content-Type", "\x00ct"), *([("Prefer", "\x00pr")] if prefer[1] else [])]
    request = ctx.raw_request("POST", ctx.batch_path, marks, body)
    for name, mark, (lead, value, trail) in (
        ("Content-Type", "\x00ct", ctype),
        ("Prefer", "\x00pr", prefer),
    ):
        line = f"{name}: {mark}".encode("latin-1")
        request = request.replace(line, f"{name}:{lead}{value}{trail}".encode("latin-1"), 1)
    return request


def _summary(resp: Response) -> Summary:
    """What the answer says of the batch: its status, each part's status and outcome, and the
    preferences named applied (lower case, whitespace dropped)."""
    applied = tuple(
        sorted(
            m.replace(" ", "").replace("\t", "").lower()
            for m in list_members(resp.get_all("Preference-Applied"))
        )
    )
    parts: tuple[tuple[str | None, str | None], ...] = ()
    if resp.status == 200 and resp.media_type == "multipart/mixed":
        try:
            boundary = parse_media_type(resp.get("Content-Type") or "")[1].get("boundary", "")
        except ValueError:
            boundary = ""
        if boundary:
            env = read_multipart(resp.body, boundary)
            parts = tuple((p.get("Http-Status-Code"), p.get("Batch-Outcome")) for p in env.parts)
    return (resp.status, parts, applied)


def _shown(summary: Summary) -> str:
    status, parts, applied = summary
    return f"status {status}, parts {list(parts)}, Preference-Applied {list(applied)}"


@checker(
    "content-type-and-prefer-ows-every-kind",
    ("MB-WIRE-4", "MB-PROC-13"),
    "A batch whose Content-Type holds spaces and tabs, one, several or mixed, around its value and before and after each semicolon, the boundary a token or quoted, or whose Prefer holds them around its value, each comma, each semicolon and the equals sign, is answered as the same batch spelt with single spaces; whitespace around a media-type parameter's equals sign is answered 400.",
    state=State.READ_ONLY,
    direct_only="an intermediary may write the request's field lines anew",
)
def content_type_and_prefer_ows_every_kind(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    http2 = ctx.settings.http2
    one = compose_batch([ok], BOUNDARY)
    two = compose_batch([nf, ok], BOUNDARY)
    no_prefer = ("", "", "")

    for template in TYPE_TEMPLATES:

        def ctype(ows: dict[str, str], template: str = template) -> tuple[str, str, str]:
            inner = {k: v for k, v in ows.items() if k not in ("lead", "trail")}
            return ows["lead"], template.format(bnd=BOUNDARY, **inner), ows["trail"]

        plain = ctx.send(judge, _request(ctx, one, ctype(TYPE_PLAIN), no_prefer), as_written=True)
        want = _summary(plain)
        judge.note(f"Content-Type {ctype(TYPE_PLAIN)[1]!r} spelt plainly: {_shown(want)}")
        if plain.status != 200:
            judge.note("the plainly spelt batch was not processed; its answer is the one compared")
        for label, ows in _spellings(TYPE_SLOTS, TYPE_PLAIN, http2):
            lead, value, trail = ctype(ows)
            resp = ctx.send(
                judge, _request(ctx, one, (lead, value, trail), no_prefer), as_written=True
            )
            # MB-WIRE-4: a server "MUST accept, as far as the boundary goes, every boundary that
            # MB-WIRE-3 allows ... and its spelling as a token or a quoted-string", refusing only
            # parameters that "break RFC 9110 §5.6.6's grammar": `parameters = *( OWS ";" OWS [
            # parameter ] )` with OWS = *( SP / HTAB ) (§5.6.3), and OWS around the field value
            # is no part of it (RFC 9112 §5), so this is the batch spelt plainly.
            judge.expect(
                f"Content-Type {lead + value + trail!r} ({label})",
                _summary(resp),
                [want],
                "MB-WIRE-4",
                allowed_text=f"as spelt plainly: {_shown(want)}",
            )

    for template in BWS_REFUSED:
        value = template.format(bnd=BOUNDARY)
        resp = ctx.send(judge, _request(ctx, one, (" ", value, ""), no_prefer), as_written=True)
        # MB-WIRE-4: "A `Content-Type` whose parameters break RFC 9110 §5.6.6's grammar (...
        # or whitespace around the `=`, as in `boundary = b1` ...) ... is answered 400 under
        # this requirement too."
        judge.expect(f"status, Content-Type {value!r}", resp.status, {400}, "MB-WIRE-4")

    def prefer(ows: dict[str, str]) -> tuple[str, str, str]:
        inner = {k: v for k, v in ows.items() if k not in ("lead", "trail")}
        return ows["lead"], PREFER_TEMPLATE.format(**inner), ows["trail"]

    plain_type = (" ", f"multipart/mixed; boundary={BOUNDARY}", "")
    plain = ctx.send(judge, _request(ctx, two, plain_type, prefer(PREFER_PLAIN)), as_written=True)
    want = _summary(plain)
    judge.note(f"Prefer {prefer(PREFER_PLAIN)[1]!r} spelt plainly: {_shown(want)}")
    for label, ows in _spellings(PREFER_SLOTS, PREFER_PLAIN, http2):
        lead, value, trail = prefer(ows)
        resp = ctx.send(
            judge, _request(ctx, two, plain_type, (lead, value, trail)), as_written=True
        )
        # MB-PROC-13: "A server MUST recognise the `batch-on-error` preference"; spec 7.4:
        # "The field is read by the grammar of RFC 7240 §2"; RFC 7240 §2: `preference = preference-parameter *( OWS ";" [ OWS
        # preference-parameter ] )`, `preference-parameter = parameter-name [ BWS "=" BWS
        # parameter-value ]`, in a list with OWS around each "," (RFC 9110 §5.6.1): this is
        # the Prefer spelt plainly.
        judge.expect(
            f"Prefer {lead + value + trail!r} ({label})",
            _summary(resp),
            [want],
            "MB-PROC-13",
            allowed_text=f"as spelt plainly: {_shown(want)}",
        )
