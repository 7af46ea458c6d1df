"""A refusal names the requirement the request broke (spec 5.3, MB-STATUS-4).

Theory of operation: MB-STATUS-4 gives every 4xx a problem document "with a `requirement`
member naming the ID of the requirement the request broke, when it broke one". A server that
refuses several kinds of part through one code path is tempted to name one requirement for all
of them (every refused target "a forbidden target"). Each batch here breaks exactly one
requirement, one part at a time: the refusal must name it. Where the spec states the same rule
twice, once for the client that must not send it and once for the server that refuses it
(MB-PART-1 and MB-PART-2, MB-PART-3 and MB-PART-4, MB-PART-7 and MB-PART-11, MB-PART-9 and
MB-PART-10), either ID names what the request broke. Each batch is sent under no Accept and
under the Accept of each form the target declares, since a 207 form's code path may refuse
with its own problem documents. `envelope-refusal-names-broken-requirement` does the same for
faults of the batch as a whole: its media type (415), no Content-Type (415, or 400 naming
MB-WIRE-4 for the missing boundary, spec 3.1.1), two Content-Type lines, equal or naming
different boundaries (400 naming MB-WIRE-4, or 415 naming MB-WIRE-2 from a server that combines
the lines; a server that runs the batch by one of them fails), its content coding (415, whose document
names MB-INTER-6 or MB-WIRE-2 as spec 5.3 says), its framing (400) and a mode the target does not implement
(501: an unknown one, and atomic or references where the target does not claim it).

`malformed-target-refusal-named-and-located` sends Content-Id values that hold only characters a
URI allows yet are no URI-reference by RFC 3986's structure (spec 3.2.2: "the RFC 3986 grammar,
applied exactly"): a scheme that starts with a digit or holds an underscore (§3.1), a relative
reference whose first segment holds a colon (`<:a>`, which path-noscheme forbids, §4.2), a
fragment holding `#` or brackets (§3.5), brackets in a path or query. Each is answered 400 under
MB-PART-4, and the problem document names MB-PART-4 (or MB-PART-3), not the other-origin rule a
parser that splits by Appendix B alone reaches, with `part_index` 1 and, when it gives one, the
`byte_offset` of the Content-Id line's first octet (spec 5.3), under every Accept.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.content_codings import UNKNOWN_CODING
from mixbatch_conformance.checks._shared.part_faults import malformed_targets
from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS

__all__: list[str] = []

BOUNDARY = "mb-named-6e2a9d41c07b35f8"
#: What makes a Content-Id value not "<" URI-reference ">" (spec 3.2.2), appended to a valid
#: path: a space, a `%` without two hex digits, a non-ASCII octet (sent as Latin-1), brackets
#: outside an IP-literal.
MALFORMED_TARGET_TAILS = (
    ("a space", " x"),
    ("a bad percent-encoding", "%zz"),
    ("a non-ASCII octet", "\xe9"),
    ("brackets in its path", "[1]"),
    ("brackets in its fragment", "#[1]"),
    ("a bracket in its query", "?a]"),
)


def _is_count(value: object) -> bool:
    """A JSON integer as the problem schema's "integer" has it (100.0 as well as 100, never
    `true`)."""
    return is_json_integer(value)


def _faults(ctx: Context, ok: str) -> list[tuple[str, tuple[str, ...], str]]:
    """(what, the IDs that name the broken requirement, the server's first, the faulty part's
    header section)."""
    get = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n"
    scheme, authority = ctx.target.base_url.split("://", 1)
    other_scheme = "http" if scheme.lower() == "https" else "https"
    get_only = "Http-Method: GET\r\nContent-Id: "
    endpoint = ctx.batch_path
    return [
        (
            "the batch endpoint as target",
            ("MB-SUB-4",),
            f"Http-Method: POST\r\nContent-Id: <{endpoint}>\r\n",
        ),
        (
            "the batch endpoint as an absolute URI",
            ("MB-SUB-4",),
            f"Http-Method: GET\r\nContent-Id: <{ctx.target.base_url}{endpoint}>\r\n",
        ),
        ("an asterisk target", ("MB-SUB-8",), "Http-Method: OPTIONS\r\nContent-Id: <*>\r\n"),
        (
            "another authority",
            ("MB-SUB-2",),
            f"Http-Method: GET\r\nContent-Id: <http://elsewhere.invalid{ok}>\r\n",
        ),
        (
            "a network-path reference",
            ("MB-SUB-2",),
            f"Http-Method: GET\r\nContent-Id: <//elsewhere.invalid{ok}>\r\n",
        ),
        ("a fragment", ("MB-SUB-2",), f"Http-Method: GET\r\nContent-Id: <{ok}#f>\r\n"),
        # RFC 3986 §4.4: a reference that is a fragment alone still carries a fragment.
        ("a fragment alone", ("MB-SUB-2",), "Http-Method: GET\r\nContent-Id: <#f>\r\n"),
        (
            "userinfo on the batch's own authority",
            ("MB-SUB-2",),
            f"Http-Method: GET\r\nContent-Id: <http://user@{authority}{ok}>\r\n",
        ),
        # Spec 3.2.2: "A reference such as `<a:b>` is not malformed: it parses as an absolute
        # URI with the scheme `a`, and MB-SUB-2 rejects it as another scheme".
        ("the scheme a", ("MB-SUB-2",), "Http-Method: GET\r\nContent-Id: <a:b>\r\n"),
        # A scheme at the far ends of its character ranges (RFC 3986 §3.1: ALPHA *( ALPHA /
        # DIGIT / "+" / "-" / "." )) is still a scheme, another than the batch's.
        ("the scheme zZ9+.-", ("MB-SUB-2",), "Http-Method: GET\r\nContent-Id: <zZ9+.-:b>\r\n"),
        ("the scheme mailto", ("MB-SUB-2",), "Http-Method: GET\r\nContent-Id: <mailto:x@y>\r\n"),
        (
            "the batch's own authority under another scheme",
            ("MB-SUB-2",),
            f"Http-Method: GET\r\nContent-Id: <{other_scheme}://{authority}{ok}>\r\n",
        ),
        # Spec 3.2.2: "a value with a non-ASCII octet, a space, a `%` not followed by two hex
        # digits, or a `[` or `]` outside an IP-literal is rejected under MB-PART-4".
        *(
            (f"a target with {what}", ("MB-PART-4", "MB-PART-3"), f"{get_only}<{ok}{text}>\r\n")
            for what, text in MALFORMED_TARGET_TAILS
        ),
        ("a TRACE part", ("MB-SUB-3",), f"Http-Method: TRACE\r\nContent-Id: <{ok}>\r\n"),
        ("a CONNECT part", ("MB-SUB-3",), f"Http-Method: CONNECT\r\nContent-Id: <{ok}>\r\n"),
        ("a forbidden field", ("MB-PART-10", "MB-PART-9"), f"{get}Transfer-Encoding: chunked\r\n"),
        ("a Host field", ("MB-PART-10", "MB-PART-9"), f"{get}Host: {authority}\r\n"),
        ("no Http-Method", ("MB-PART-2", "MB-PART-1"), f"Content-Id: <{ok}>\r\n"),
        ("two Http-Method fields", ("MB-PART-2", "MB-PART-1"), f"{get}Http-Method: GET\r\n"),
        ("no Content-Id", ("MB-PART-4", "MB-PART-3"), "Http-Method: GET\r\n"),
        ("two Content-Id fields", ("MB-PART-4", "MB-PART-3"), f"{get}Content-Id: <{ok}>\r\n"),
        ("an obs-fold", ("MB-PART-11", "MB-PART-7"), f"{get}X-Folded: a\r\n b\r\n"),
    ]


@checker(
    "refusal-names-broken-requirement",
    ("MB-STATUS-4",),
    "Each refused part (the batch endpoint, an asterisk, another authority or scheme, a malformed target, a fragment, TRACE, CONNECT, a forbidden field, a missing or repeated Http-Method or Content-Id, an obs-fold) is answered 400 with a problem document naming the requirement that part broke and the part's index (1), under every Accept the target offers.",
    state=State.READ_ONLY,
)
def refusal_names_broken_requirement(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    d = f"--{BOUNDARY}"
    first = f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n"
    accepts: list[str | None] = [None] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    for what, named, section in _faults(ctx, ok):
        # A valid part first, then the faulty one: the fault is the second part's only.
        body = f"{first}{d}\r\n{section}\r\n\r\n{d}--".encode("latin-1")
        for accept in accepts:
            head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
            if accept is not None:
                head.append(("Accept", accept))
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
            asked = f"{what}" + (f" with Accept {accept}" if accept else "")
            expect_rejected(judge, resp, {400}, named[0])
            doc = problem_of(resp)
            if resp.status != 400 or doc is None:
                continue
            # MB-STATUS-4: "with a `requirement` member naming the ID of the requirement the
            # request broke"; this request broke only this one.
            judge.expect(
                f"{asked}: problem requirement",
                doc.get("requirement"),
                set(named),
                "MB-STATUS-4",
            )
            # MB-STATUS-4: "with `part_index` (from 0) and `byte_offset` ... members when the
            # server knows them": the server refused this part by itself, so it knows its
            # index; spec 5.3 places a rejected target or a bad field line at "the offset of
            # the line's first octet", a section's fault at the section's, both inside part 1.
            index = doc.get("part_index")
            judge.expect_true(
                f"{asked}: problem part_index",
                _is_count(index) and index == 1,
                repr(index),
                "the integer 1, the refused part's index",
                "MB-STATUS-4",
            )
            offset = doc.get("byte_offset")
            judge.expect_true(
                f"{asked}: problem byte_offset",
                offset is None or (_is_count(offset) and len(first) <= offset < len(body)),
                repr(offset),
                f"absent or an integer from {len(first)} to {len(body) - 1}, inside part 1",
                "MB-STATUS-4",
            )


def _envelope_faults(
    ctx: Context, ok: str
) -> list[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], bytes, int]]:
    """(what, the IDs naming the broken requirement, the server's first, the batch's header
    fields, its content, the status the fault's requirement gives) for faults of the batch as
    a whole: its media type, its framing and its modes."""
    d = f"--{BOUNDARY}"
    get = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n"
    whole = f"{d}\r\n{get}\r\n\r\n{d}--".encode()
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    out: list[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], bytes, int]] = [
        ("a text/plain batch", ("MB-WIRE-2",), (("Content-Type", "text/plain"),), whole, 415),
        (
            "no boundary parameter",
            ("MB-WIRE-4", "MB-WIRE-3"),
            (("Content-Type", "multipart/mixed"),),
            whole,
            400,
        ),
        ("no close delimiter", ("MB-WIRE-13",), (ctype,), f"{d}\r\n{get}\r\n".encode(), 400),
        ("no part", ("MB-WIRE-18",), (ctype,), f"{d}--".encode(), 400),
        (
            "a bare LF ending a part header line",
            ("MB-WIRE-8", "MB-WIRE-7"),
            (ctype,),
            f"{d}\r\nHttp-Method: GET\nContent-Id: <{ok}>\r\n\r\n\r\n{d}--".encode(),
            400,
        ),
        (
            "a Content-Length one over the body",
            ("MB-WIRE-17", "MB-WIRE-16"),
            (ctype,),
            f"{d}\r\nHttp-Method: PUT\r\nContent-Id: <{ok}>\r\nContent-Length: 4\r\n\r\nabc\r\n{d}--".encode(),
            400,
        ),
        (
            "text after the dash-boundary",
            ("MB-WIRE-19",),
            (ctype,),
            f"{d}x\r\n{get}\r\n\r\n{d}--".encode(),
            400,
        ),
        (
            "a Batch-Mode no server implements",
            ("MB-PROC-17", "MB-PROC-12"),
            (ctype, ("Batch-Mode", "mb-suite-no-such-mode")),
            whole,
            501,
        ),
    ]
    # Spec 5.1's table: the 501 for "a `Batch-Mode` value not supported" names MB-PROC-7,
    # MB-PROC-12 or MB-PROC-17, whichever mode it is; the rules of how a mode runs (MB-PROC-18
    # for references, say) are no rule the request broke.
    for mode in ("atomic", "references"):
        if not ctx.target.claims(mode):
            out.append(
                (
                    f"Batch-Mode: {mode} unclaimed",
                    ("MB-PROC-7", "MB-PROC-12", "MB-PROC-17"),
                    (ctype, ("Batch-Mode", mode)),
                    whole,
                    501,
                )
            )
    return out


def _content_type_faults(
    ok: str,
) -> list[tuple[str, dict[int, set[str]], tuple[tuple[str, str], ...], bytes]]:
    """(what, each status allowed with the IDs its problem document may name, the batch's
    header fields, its content) for a batch whose Content-Type lines leave it two refusals."""
    d = f"--{BOUNDARY}"
    whole = f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n{d}--".encode()
    mine = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    other = ("Content-Type", "multipart/mixed; boundary=mb-named-other")
    # Spec 3.1.1: "A batch request with more than one `Content-Type` field line ... is refused
    # before any part runs: 400 under this requirement [MB-WIRE-4]. ... A server that combines
    # the lines into one value ... may answer 415 under MB-WIRE-2 instead".
    repeated = {400: {"MB-WIRE-4"}, 415: {"MB-WIRE-2"}}
    return [
        # Spec 3.1.1: "A batch request without a `Content-Type` field ... is answered 415 under
        # MB-WIRE-2. It also has no boundary, so MB-STATUS-13 lets a server answer 400 under
        # MB-WIRE-4 instead".
        ("no Content-Type", {415: {"MB-WIRE-2"}, 400: {"MB-WIRE-4"}}, (), whole),
        ("two equal Content-Type lines", repeated, (mine, mine), whole),
        ("a second Content-Type line naming another boundary", repeated, (mine, other), whole),
        ("a first Content-Type line naming another boundary", repeated, (other, mine), whole),
    ]


@checker(
    "envelope-refusal-names-broken-requirement",
    ("MB-STATUS-4", "MB-WIRE-4"),
    "Each refused batch (another media type, no Content-Type, two Content-Type lines, a content coding no server decodes, no boundary, no close delimiter, no part, a bare LF, a wrong Content-Length, text after a delimiter, a mode not implemented) is answered with a problem document naming the requirement it broke.",
    state=State.READ_ONLY,
)
def envelope_refusal_names_broken_requirement(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    for what, named, head, body, status in _envelope_faults(ctx, ok):
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, list(head), body))
        expect_rejected(judge, resp, {status}, named[0])
        doc = problem_of(resp)
        if resp.status != status or doc is None:
            continue
        # MB-STATUS-4: "with a `requirement` member naming the ID of the requirement the
        # request broke"; this request broke only this one.
        judge.expect(
            f"{what}: problem requirement", doc.get("requirement"), set(named), "MB-STATUS-4"
        )
    for what, allowed, head, body in _content_type_faults(ok):
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, list(head), body))
        judge.note(f"{what}: {resp.status}")
        # MB-WIRE-4 for a repeated line, which no server runs whichever line it reads; MB-WIRE-2
        # for a missing one (spec 3.1.1).
        expect_rejected(judge, resp, set(allowed), "MB-WIRE-4" if head else "MB-WIRE-2")
        doc = problem_of(resp)
        if resp.status not in allowed or doc is None:
            continue
        # MB-STATUS-4: "with a `requirement` member naming the ID of the requirement the
        # request broke": the one that calls for the status given.
        judge.expect(
            f"{what}: problem requirement",
            doc.get("requirement"),
            allowed[resp.status],
            "MB-STATUS-4",
        )
    # MB-INTER-6 gives the status ("MUST answer 415 with an Accept-Encoding field"); spec 5.3
    # names the requirement its problem document carries: "A 415 for an unsupported content
    # coding (section 10.1) names MB-INTER-6, the requirement under which it answers, or
    # MB-WIRE-2".
    d = f"--{BOUNDARY}"
    whole = f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n{d}--".encode()
    coded = [
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Content-Encoding", UNKNOWN_CODING),
    ]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, coded, whole))
    expect_rejected(judge, resp, {415}, "MB-INTER-6")
    doc = problem_of(resp)
    if resp.status == 415 and doc is not None:
        judge.expect(
            "a content coding no server decodes: problem requirement",
            doc.get("requirement"),
            {"MB-INTER-6", "MB-WIRE-2"},
            "MB-STATUS-4",
        )


@checker(
    "malformed-target-refusal-named-and-located",
    ("MB-PART-4", "MB-STATUS-4"),
    "A Content-Id of URI characters that is no URI-reference (a scheme starting with a digit or holding an underscore, <:a>, a fragment holding # or brackets, brackets in a path or query) is answered 400 naming MB-PART-4, part_index 1 and the Content-Id line's offset, under every Accept the target offers.",
    state=State.READ_ONLY,
)
def malformed_target_refusal_named_and_located(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    d = f"--{BOUNDARY}"
    first = f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n"
    # The Content-Id line's first octet in part 1 (spec 5.3: "a fault in one header field line
    # (..., a rejected target): the offset of the line's first octet").
    line_at = len(first) + len(f"{d}\r\nHttp-Method: GET\r\n")
    accepts: list[str | None] = [None] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    cases = [
        *malformed_targets(ok),
        ("a relative reference whose first segment holds a colon", ":a"),
    ]
    for what, ref in cases:
        section = f"Http-Method: GET\r\nContent-Id: <{ref}>\r\n"
        body = f"{first}{d}\r\n{section}\r\n\r\n{d}--".encode("latin-1")
        for accept in accepts:
            head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
            if accept is not None:
                head.append(("Accept", accept))
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
            asked = f"<{ref}> ({what})" + (f" with Accept {accept}" if accept else "")
            judge.note(f"{asked}: {resp.status}")
            # MB-PART-4: "answer 400 to a batch request in which any request part has ... one
            # that is not `"<" URI-reference ">"`".
            if not judge.expect(f"{asked}: top-level status", resp.status, {400}, "MB-PART-4"):
                continue
            expect_rejected(judge, resp, {400}, "MB-PART-4")
            doc = problem_of(resp) or {}
            # MB-STATUS-4: "a `requirement` member naming the ID of the requirement the request
            # broke": no scheme, authority or fragment can be read from what is no reference.
            judge.expect(
                f"{asked}: problem requirement",
                doc.get("requirement"),
                {"MB-PART-4", "MB-PART-3"},
                "MB-STATUS-4",
            )
            index = doc.get("part_index")
            judge.expect_true(
                f"{asked}: problem part_index",
                _is_count(index) and index == 1,
                repr(index),
                "the integer 1, the refused part's index",
                "MB-STATUS-4",
            )
            offset = doc.get("byte_offset")
            judge.expect_true(
                f"{asked}: problem byte_offset",
                offset is None or (_is_count(offset) and offset == line_at),
                repr(offset),
                f"absent or {line_at}, the first octet of part 1's Content-Id line",
                "MB-STATUS-4",
            )
