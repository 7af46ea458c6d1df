"""Faulty request parts, one fault each, for checks that place them in a batch (spec 3.1, 3.2).

Each fault is a part's header section and body as written, with the requirement that refuses
it with 400. The parts are GETs of the target's ok resource, so a server that wrongly runs one
changes nothing; the Content-Length faults give the GET a body, which a part may carry on any
method (MB-PART-8).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PartFault", "malformed_targets", "part_faults"]


@dataclass(frozen=True, slots=True)
class PartFault:
    #: What the fault is, for the report.
    what: str
    #: The requirement under which a server answers the batch 400.
    requirement: str
    #: The part's header section, each field line with its line end, without the empty line.
    section: str
    #: The part's body.
    body: str = ""


def malformed_targets(ok: str) -> list[tuple[str, str]]:
    """(what, reference) for Content-Id values that are not `"<" URI-reference ">"` (RFC 3986
    §4.1) by their structure, every character being one a URI allows."""
    return [
        ("whose scheme starts with a digit", f"1a:{ok}"),
        ("whose scheme holds an underscore", f"a_b://mb-host{ok}"),
        ("whose fragment holds a second #", f"{ok}#a#b"),
        ("whose fragment holds brackets", f"{ok}#[x]"),
        ("whose query holds a bracket", f"{ok}?a]"),
        ("whose path holds brackets", f"{ok}[x]"),
    ]


def part_faults(ok: str) -> list[PartFault]:
    """One fault per requirement that refuses a part, as a part that GETs `ok`."""
    get = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n"
    return [
        # MB-WIRE-17: "reject a part whose Content-Length differs from the number of octets
        # before the next delimiter", one octet under and one over.
        PartFault(
            "a Content-Length under the body", "MB-WIRE-17", f"{get}Content-Length: 2\r\n", "abc"
        ),
        PartFault(
            "a Content-Length over the body", "MB-WIRE-17", f"{get}Content-Length: 4\r\n", "abc"
        ),
        # MB-WIRE-20: "more than one Content-Length field line, or a Content-Length whose value
        # is not 1*DIGIT".
        PartFault(
            "two Content-Length lines",
            "MB-WIRE-20",
            f"{get}Content-Length: 3\r\nContent-Length: 3\r\n",
            "abc",
        ),
        PartFault("a signed Content-Length", "MB-WIRE-20", f"{get}Content-Length: +3\r\n", "abc"),
        # MB-PART-2: "no `Http-Method` field, more than one, or one whose value is not a token".
        PartFault("no Http-Method", "MB-PART-2", f"Content-Id: <{ok}>\r\n"),
        PartFault("two Http-Method lines", "MB-PART-2", f"{get}Http-Method: GET\r\n"),
        # MB-PART-4: "no `Content-Id` field, more than one, or one that is not "<"
        # URI-reference ">"".
        PartFault("no Content-Id", "MB-PART-4", "Http-Method: GET\r\n"),
        PartFault(
            "a Content-Id without brackets",
            "MB-PART-4",
            f"Http-Method: GET\r\nContent-Id: {ok}\r\n",
        ),
        # MB-PART-4 with spec 3.2.2 ("not `"<" URI-reference ">"`" means the RFC 3986 grammar,
        # applied exactly): a scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (§3.1) and a
        # relative reference's first segment holds no colon (§4.2), so `1a:/x` and `a_b://...`
        # are neither; a fragment holds no `#` (§3.5), and "a `[` or `]` outside an IP-literal
        # is rejected under MB-PART-4".
        *(
            PartFault(
                f"a Content-Id {what}", "MB-PART-4", f"Http-Method: GET\r\nContent-Id: <{ref}>\r\n"
            )
            for what, ref in malformed_targets(ok)
        ),
        # MB-PART-10: a field MB-PART-9 forbids.
        PartFault("a Host field", "MB-PART-10", f"{get}Host: example.invalid\r\n"),
        # MB-PART-11: "a field name followed by whitespace before the colon", "obs-fold".
        PartFault("a space before a colon", "MB-PART-11", f"{get}X-Note : a\r\n"),
        PartFault("an obs-fold", "MB-PART-11", f"{get}X-Note: a\r\n b\r\n"),
        # MB-WIRE-8: "a bare LF ... as a line terminator ... in a part header section".
        PartFault("a bare LF ending a field line", "MB-WIRE-8", f"{get}X-Note: a\n"),
    ]
