"""The characters on either side of a refusal rule's character set (spec 3.1.1, 3.2.1).

Theory of operation: two refusal rules are character sets. MB-PART-2 refuses an `Http-Method`
"whose value is not a `token`" (RFC 9110 §5.6.2: `tchar` is a visible ASCII character other
than the delimiters `"(),/:;<=>?@[\\]{}`), and MB-WIRE-4 refuses a boundary that "contains a
character outside `bchars`" while it MUST accept "every boundary that MB-WIRE-3 allows ... its
`bchars` (space, `'`, `(`, `)`, `+`, `,`, `.`, `/`, `:`, `=` and `?` included)", MB-WIRE-3
allowing any of them last but the space. A server that writes the set as "no whitespace", as
"printable", as Unicode letters and digits, or that checks the characters of a token boundary
and not those of a quoted one, runs a batch the rule refuses; one that holds the last character
to letters and digits refuses a valid boundary. Each value sits alone in a batch of one part, so
an answer names the value it was given for.

- `http-method-delimiters-refused`: `GE?T` for each delimiter `?` of RFC 9110 §5.6.2, and a
  letter outside US-ASCII (É in Latin-1 and in UTF-8), each answered 400 with a problem
  document.
- `quoted-boundary-octets-outside-bchars-refused`: a quoted boundary holding one visible ASCII
  character outside `bchars` (a quoted-string may hold every one of them, `"` and `\\` as
  quoted-pairs), each answered 400 with a problem document.
- `boundary-last-characters-accepted`: a boundary ending in each `bcharsnospace` character that
  is neither a letter nor a digit, sent as a quoted-string, each batch processed.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-edges-3f81c6d2a05e"
#: The delimiters RFC 9110 §5.6.2 keeps out of a token: "(),/:;<=>?@[\]{}" and DQUOTE.
TOKEN_DELIMITERS = '"(),/:;<=>?@[\\]{}'
#: A letter outside US-ASCII inside a method, as Latin-1 (one octet) and as UTF-8 (two).
NON_ASCII_LETTERS = (("É in Latin-1", "\xc9"), ("É in UTF-8", "\xc3\x89"))
#: bchars (RFC 2046 §5.1.1): DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." /
#: "/" / ":" / "=" / "?" and a space that is not last.
BCHARS_SPECIALS = "'()+_,-./:=? "
#: The visible ASCII characters that are not bchars.
OUTSIDE_BCHARS = "".join(
    c for c in map(chr, range(0x21, 0x7F)) if not c.isalnum() and c not in BCHARS_SPECIALS
)


def _send(ctx: Context, judge: Judge, ctype: str, boundary: str, section: str) -> Response:
    """A batch of one part with `section` as its header section, delimited by `boundary`."""
    d = f"--{boundary}"
    body = f"{d}\r\n{section}\r\n\r\n{d}--".encode("latin-1")
    head = [("Content-Type", ctype)]
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))


@checker(
    "http-method-delimiters-refused",
    ("MB-PART-2",),
    'A part whose Http-Method holds one of the delimiters a token excludes ("(),/:;<=>?@[\\]{}) or a letter outside US-ASCII (in Latin-1 or UTF-8), each in a batch of its own, is answered 400 with a problem document.',
    state=State.READ_ONLY,
)
def http_method_delimiters_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    ctype = f"multipart/mixed; boundary={BOUNDARY}"
    methods = [(f"the delimiter {c}", f"GE{c}T") for c in TOKEN_DELIMITERS]
    methods += [(what, f"G{letter}T") for what, letter in NON_ASCII_LETTERS]
    for what, method in methods:
        resp = _send(ctx, judge, ctype, BOUNDARY, f"Http-Method: {method}\r\nContent-Id: <{ok}>")
        judge.note(f"Http-Method {method!r} ({what}): {resp.status}")
        # MB-PART-2: "answer 400 to a batch request in which any request part has ... one whose
        # value is not a `token`"; RFC 9110 §5.6.2: tchar has no delimiter and no octet outside
        # US-ASCII.
        expect_rejected(judge, resp, {400}, "MB-PART-2")


@checker(
    "quoted-boundary-octets-outside-bchars-refused",
    ("MB-WIRE-4",),
    'A batch whose quoted boundary holds one visible ASCII character outside bchars (each of !"#$%&*;<>@[\\]^`{|}~, the quote and backslash as quoted-pairs) first, in the middle or last, each in a batch of its own, is answered 400 with a problem document.',
    state=State.READ_ONLY,
)
def quoted_boundary_octets_outside_bchars_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    # Each character first, in the middle and last: a test that checks the characters between
    # the first and the last (the last being checked only for a space) lets the ends through.
    boundaries = [
        b
        for c in OUTSIDE_BCHARS
        for b in (f"{c}mb-edges3f81", f"mb-edges{c}3f81", f"mb-edges3f81{c}")
    ]
    for boundary in boundaries:
        # RFC 9110 §5.6.4: a quoted-string holds `"` and `\` as quoted-pairs only.
        written = boundary.replace("\\", "\\\\").replace('"', '\\"')
        ctype = f'multipart/mixed; boundary="{written}"'
        resp = _send(ctx, judge, ctype, boundary, f"Http-Method: GET\r\nContent-Id: <{ok}>")
        judge.note(f"{ctype}: {resp.status}")
        # MB-WIRE-4: "answer 400 (Bad Request) to a batch request whose `boundary` parameter
        # ... contains a character outside `bchars`", whichever way it is spelled.
        expect_rejected(judge, resp, {400}, "MB-WIRE-4")


@checker(
    "boundary-last-characters-accepted",
    ("MB-WIRE-4", "MB-WIRE-3"),
    "A batch whose quoted boundary ends in each bchar other than a letter, a digit or the space ('()+_,-./:=?), each in a batch of its own, is processed.",
    state=State.READ_ONLY,
)
def boundary_last_characters_accepted(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    cid = f"<{ok}>"
    for c in BCHARS_SPECIALS.strip():
        boundary = f"mb-edges-3f81{c}"
        ctype = f'multipart/mixed; boundary="{boundary}"'
        resp = _send(ctx, judge, ctype, boundary, f"Http-Method: GET\r\nContent-Id: {cid}")
        judge.note(f"{ctype}: {resp.status}")
        # MB-WIRE-3: "A boundary MUST consist of 1 to 70 `bchars` and MUST end in a character
        # other than space"; MB-WIRE-4: "MUST accept, as far as the boundary goes, every
        # boundary that MB-WIRE-3 allows, whatever its length from 1 to 70, its `bchars` (space,
        # `'`, `(`, `)`, `+`, `,`, `.`, `/`, `:`, `=` and `?` included)".
        if judge.expect(
            f"boundary ending in {c}: top-level status", resp.status, {200}, "MB-WIRE-4"
        ):
            expect_processed(ctx, judge, resp, [cid], [{200}], "MB-WIRE-4")
