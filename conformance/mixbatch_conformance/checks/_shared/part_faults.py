"""Faulty request parts, one fault each, for checks that place them in a batch (spec 3.1, 3.2,
5.3).

Each fault is a part's header section and body as written, with the requirement that refuses
it with 400 and the place spec 5.3's convention gives it: the first octet of the field line at
fault, or the section's first octet for a fault of the section as a whole. The parts are GETs
of the target's ok resource, so a server that wrongly runs one changes nothing; the
Content-Length faults give the GET a body, which a part may carry on any method (MB-PART-8).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PartFault", "line_starts", "malformed_targets", "part_faults", "repeated_fields"]


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
    #: The field lines (from 0) at whose first octet spec 5.3 places the fault, any one of
    #: them; None for a fault of the header section as a whole, placed at its first octet.
    lines: tuple[int, ...] | None = None

    def places(self) -> frozenset[int]:
        """The octets of the section, counted from its first, where spec 5.3 places the fault:
        "a fault in one header field line (syntax, a bare LF or CR ending it, a forbidden or
        repeated field, a bad value, a rejected target): the offset of the line's first octet";
        "a fault of a header section as a whole (a missing field, ...): the offset of the
        section's first octet"; "a `Content-Length` mismatch: the offset of the
        `Content-Length` field line"."""
        if self.lines is None:
            return frozenset({0})
        starts = line_starts(self.section)
        return frozenset(starts[i] for i in self.lines)


def line_starts(section: str) -> list[int]:
    """The offset of each line of `section`, a line ending at a CRLF, a bare LF or a bare CR
    (spec 5.3 places a fault of a line "a bare LF or CR ending it" at that line)."""
    starts = [0]
    i = 0
    while i < len(section):
        end = 2 if section.startswith("\r\n", i) else 1 if section[i] in "\r\n" else 0
        i += end or 1
        if end and i < len(section):
            starts.append(i)
    return starts


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
        # before the next delimiter", one octet under and one over; spec 5.3: "a
        # `Content-Length` mismatch: the offset of the `Content-Length` field line".
        PartFault(
            "a Content-Length under the body",
            "MB-WIRE-17",
            f"{get}Content-Length: 2\r\n",
            "abc",
            (2,),
        ),
        PartFault(
            "a Content-Length over the body",
            "MB-WIRE-17",
            f"{get}Content-Length: 4\r\n",
            "abc",
            (2,),
        ),
        # MB-WIRE-20: "more than one Content-Length field line, or a Content-Length whose value
        # is not 1*DIGIT"; a repeated field is placed at the line that repeats it.
        PartFault(
            "two Content-Length lines",
            "MB-WIRE-20",
            f"{get}Content-Length: 3\r\nContent-Length: 3\r\n",
            "abc",
            (3,),
        ),
        PartFault(
            "a signed Content-Length", "MB-WIRE-20", f"{get}Content-Length: +3\r\n", "abc", (2,)
        ),
        # MB-PART-2: "no `Http-Method` field, more than one, or one whose value is not a token";
        # a missing field is a fault of the section as a whole.
        PartFault("no Http-Method", "MB-PART-2", f"Content-Id: <{ok}>\r\n"),
        PartFault("two Http-Method lines", "MB-PART-2", f"{get}Http-Method: GET\r\n", "", (2,)),
        PartFault(
            "an Http-Method that is no token, after the Content-Id",
            "MB-PART-2",
            f"Content-Id: <{ok}>\r\nHttp-Method: G(T\r\n",
            "",
            (1,),
        ),
        # MB-PART-4: "no `Content-Id` field, more than one, or one that is not "<"
        # URI-reference ">"".
        PartFault("no Content-Id", "MB-PART-4", "Http-Method: GET\r\n"),
        PartFault(
            "a Content-Id without brackets",
            "MB-PART-4",
            f"Http-Method: GET\r\nContent-Id: {ok}\r\n",
            "",
            (1,),
        ),
        # MB-PART-4 with spec 3.2.2 ("not `"<" URI-reference ">"`" means the RFC 3986 grammar,
        # applied exactly): a scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (§3.1) and a
        # relative reference's first segment holds no colon (§4.2), so `1a:/x` and `a_b://...`
        # are neither; a fragment holds no `#` (§3.5), and "a `[` or `]` outside an IP-literal
        # is rejected under MB-PART-4".
        *(
            PartFault(
                f"a Content-Id {what}",
                "MB-PART-4",
                f"Http-Method: GET\r\nContent-Id: <{ref}>\r\n",
                "",
                (1,),
            )
            for what, ref in malformed_targets(ok)
        ),
        # MB-PART-10: a field MB-PART-9 forbids.
        PartFault("a Host field", "MB-PART-10", f"{get}Host: example.invalid\r\n", "", (2,)),
        # MB-PART-11: "a field name followed by whitespace before the colon", "obs-fold". Spec
        # 5.3 places a line's syntax fault at that line; an obs-fold is a field line and the
        # line that continues it, so either line's first octet places it.
        PartFault("a space before a colon", "MB-PART-11", f"{get}X-Note : a\r\n", "", (2,)),
        PartFault("an obs-fold", "MB-PART-11", f"{get}X-Note: a\r\n b\r\n", "", (2, 3)),
        # MB-WIRE-8: "a bare LF or a bare CR as a line terminator ... in a part header section".
        PartFault("a bare LF ending a field line", "MB-WIRE-8", f"{get}X-Note: a\n", "", (2,)),
        PartFault(
            "a bare CR ending a field line",
            "MB-WIRE-8",
            f"{get}X-Note: a\rX-Other: b\r\n",
            "",
            (2,),
        ),
    ]


#: The fields a request part carries once, each with the requirement that refuses a second
#: line of it (MB-PART-2, MB-PART-4: "more than one"; MB-WIRE-20: "more than one
#: `Content-Length` field line") and a value that is valid alone.
SINGLETONS = (
    ("Http-Method", "MB-PART-2", "GET"),
    ("Content-Id", "MB-PART-4", "<{ok}>"),
    ("Content-Length", "MB-WIRE-20", "3"),
)


def _spelt(name: str, how: str) -> str:
    if how == "lower":
        return name.lower()
    if how == "upper":
        return name.upper()
    if how == "mixed":
        return "".join(c.lower() if i % 2 else c.upper() for i, c in enumerate(name))
    return name


def repeated_fields(ok: str) -> list[PartFault]:
    """Parts that carry Http-Method, Content-Id or Content-Length on more than one line, each
    otherwise valid: the repeat as the second line or the third, after the other fields or
    with lines between, in the spelling of the first line or another (field names are
    case-insensitive, RFC 9110 §5.1), and one field on three lines.

    Spec 5.3 places "a repeated field" at "the line's first octet": the line that repeats the
    field, not the first of its lines (the `duplicate-http-method` vector places its fault at
    the second line). A field on three lines is repeated by its second line and again by its
    third, two faults of which MB-STATUS-13 lets the problem describe either."""
    out: list[PartFault] = []
    for name, requirement, value in SINGLETONS:
        value = value.format(ok=ok)
        others = [
            f"{n}: {v.format(ok=ok)}"
            for n, _, v in SINGLETONS
            if n != name and n != "Content-Length"
        ]
        body = "abc" if name == "Content-Length" else ""
        note = "X-Note: a"
        line = {how: f"{_spelt(name, how)}: {value}" for how in ("as", "lower", "upper", "mixed")}
        layouts: list[tuple[str, list[str], tuple[int, ...]]] = [
            ("as the second line", [line["as"], line["as"], *others], (1,)),
            ("as the third line", [line["as"], others[0], line["as"], *others[1:]], (2,)),
            (
                "in lower case after the other fields and a field between",
                [line["as"], *others, note, line["lower"]],
                (len(others) + 2,),
            ),
            (
                "as written after a first line in upper case",
                [line["upper"], note, *others, line["as"]],
                (len(others) + 2,),
            ),
            (
                "on three lines in mixed, upper and written case",
                [line["mixed"], *others, line["upper"], note, line["as"]],
                (len(others) + 1, len(others) + 3),
            ),
        ]
        for how, lines, at in layouts:
            section = "".join(f"{text}\r\n" for text in lines)
            out.append(PartFault(f"{name} repeated {how}", requirement, section, body, at))
    return out
