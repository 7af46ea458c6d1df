"""The suite's own strict reader of the mixbatch wire format.

Theory of operation: the suite judges a server with this module, never with the reference
codec (a test scans our imports to keep it so). Two readers written apart from each other
disagree where one of them is wrong, which is what a conformance suite is for.

`read_multipart` walks the bytes once, following the RFC 2046 grammar as mixbatch narrows it:

    multipart-body  = [preamble CRLF] dash-boundary transport-padding CRLF
                      body-part *encapsulation close-delimiter transport-padding
                      [CRLF epilogue]
    dash-boundary   = "--" boundary
    encapsulation   = delimiter transport-padding CRLF body-part
    delimiter       = CRLF dash-boundary
    close-delimiter = delimiter "--"
    transport-padding = *( SP / HTAB )          ; accepted, never sent (MB-WIRE-11, -12)
    body-part       = *( field-line CRLF ) [CRLF *OCTET]
    field-line      = field-name ":" OWS field-value OWS       ; RFC 9110 §5, no obs-fold

It never raises on bad input. Each departure from the grammar becomes a `Finding` that names
two requirement IDs: the one a RECEIVER enforces by rejecting (`receiver`, None when a
receiver must accept, e.g. transport padding) and the one the SENDER broke (`sender`). A
server's response is judged on `sender`; a request the suite sends is predicted on
`receiver`. Fatal findings stop the walk; the parts read whole before it are kept, which is
what a client needs to report an incomplete batch (MB-WIRE-14).

Header values are decoded as ISO-8859-1 so that every octet survives a round trip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "FORBIDDEN_REQUEST_FIELDS",
    "Envelope",
    "Finding",
    "Part",
    "boundary_problem",
    "directive_names",
    "list_members",
    "loose_boundary",
    "names_media_type",
    "parse_media_type",
    "read_multipart",
    "request_part_findings",
    "response_part_findings",
]

# RFC 9110 §5.6.2: token = 1*tchar
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
TOKEN_STR = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# RFC 9110 §5.5: field-value characters are VCHAR, obs-text, SP and HTAB.
FIELD_VALUE = re.compile(rb"[\x21-\x7e\x80-\xff \t]*")
# RFC 2046 §5.1.1: bchars := bcharsnospace / " "
BCHARS = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
#: Spec 3.4: Http-Status-Code = status-code, "a final status, 200 to 599, in a response part";
#: RFC 9110 §15: "All valid status codes are within the range of 100 to 599" (a 1xx is judged
#: under MB-RESP-9).
THREE_DIGITS = re.compile(r"[1-5][0-9]{2}")
DIGITS = re.compile(rb"[0-9]+")

# MB-PART-9 / MB-PART-10: fields a request part never carries.
FORBIDDEN_REQUEST_FIELDS = (
    "Connection",
    "Keep-Alive",
    "Proxy-Connection",
    "TE",
    "Transfer-Encoding",
    "Upgrade",
    "Expect",
    "Host",
    "Trailer",
    "Content-Transfer-Encoding",
    "Http-Status-Code",
)
BATCH_OUTCOMES = ("skipped", "rolled-back", "aborted")


@dataclass(frozen=True)
class Finding:
    """One departure from the grammar, with the requirements it touches."""

    sender: str
    receiver: str | None
    offset: int
    message: str
    fatal: bool = True


@dataclass(frozen=True)
class Part:
    """One body part: its header fields as sent and its body octets."""

    index: int
    fields: tuple[tuple[str, str], ...]
    body: bytes
    offset: int
    body_offset: int

    def get(self, name: str) -> str | None:
        values = self.get_all(name)
        return values[0] if values else None

    def get_all(self, name: str) -> list[str]:
        lowered = name.lower()
        return [v for (n, v) in self.fields if n.lower() == lowered]


@dataclass(frozen=True)
class Envelope:
    """What `read_multipart` made of a body."""

    boundary: str
    parts: tuple[Part, ...]
    preamble: bytes
    epilogue: bytes
    complete: bool
    findings: tuple[Finding, ...] = field(default=())

    @property
    def fatal(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.fatal)

    def receiver_rejects(self) -> tuple[Finding, ...]:
        """Findings for which a receiver must reject the message."""
        return tuple(f for f in self.findings if f.receiver is not None)


def parse_media_type(value: str) -> tuple[str, dict[str, str]]:
    """Split a Content-Type value into its lower-cased type and its parameters.

    RFC 9110 §5.6.6: parameters = *( OWS ";" OWS [ parameter ] ), parameter names are
    case-insensitive, values are a token or a quoted-string. Raises ValueError.
    """
    text = value.strip(" \t")
    m = re.match(r"([!#$%&'*+\-.^_`|~0-9A-Za-z]+)/([!#$%&'*+\-.^_`|~0-9A-Za-z]+)", text)
    if not m:
        raise ValueError(f"not a media type: {value!r}")
    media = f"{m.group(1)}/{m.group(2)}".lower()
    params: dict[str, str] = {}
    rest = text[m.end() :]
    param = re.compile(
        r'[ \t]*;[ \t]*(?:([!#$%&\'*+\-.^_`|~0-9A-Za-z]+)=(?:([!#$%&\'*+\-.^_`|~0-9A-Za-z]+)|"((?:[^"\\]|\\.)*)"))?'
    )
    while rest.strip(" \t"):
        pm = param.match(rest)
        if not pm or pm.end() == 0:
            raise ValueError(f"bad parameter syntax in {value!r} at {rest!r}")
        if pm.group(1):
            name = pm.group(1).lower()
            if name in params:
                raise ValueError(f"parameter {name!r} repeated in {value!r}")
            raw = pm.group(2) if pm.group(2) is not None else pm.group(3)
            params[name] = re.sub(r"\\(.)", r"\1", raw) if pm.group(3) is not None else raw
        rest = rest[pm.end() :]
    return media, params


def list_members(values: list[str]) -> list[str]:
    """The members of a list-valued field over all its lines (RFC 9110 §5.6.1, §5.3): split at
    commas outside quoted-strings, trimmed, empty members dropped."""
    members: list[str] = []
    for value in values:
        current: list[str] = []
        quoted = escaped = False
        for ch in value:
            if escaped:
                escaped = False
            elif quoted and ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = not quoted
            elif ch == "," and not quoted:
                members.append("".join(current).strip(" \t"))
                current = []
                continue
            current.append(ch)
        members.append("".join(current).strip(" \t"))
    return [m for m in members if m]


def names_media_type(values: list[str], media: str) -> bool:
    """Whether a list of media types or ranges (Accept-Post, Accept) names `media` exactly,
    whatever its case and parameters: `multipart/mixedx` does not name `multipart/mixed`."""
    return any(m.split(";", 1)[0].strip(" \t").lower() == media for m in list_members(values))


def directive_names(values: list[str]) -> list[str]:
    """The lower-cased directive names of a Cache-Control-like field (RFC 9111 §5.2)."""
    return [m.split("=", 1)[0].strip(" \t").lower() for m in list_members(values)]


#: The boundary parameter as a lenient reader finds it: a quoted-string, or anything up to `;`.
_LOOSE_BOUNDARY = re.compile(r'(?i);\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))')


def loose_boundary(value: str) -> str:
    """The boundary a lenient reader takes from a Content-Type `parse_media_type` may refuse.

    For judging how a boundary was chosen (MB-WIRE-5) when the value around it is malformed:
    an unquoted `/` in a boundary breaks RFC 9110's parameter syntax and also the alphabet.
    """
    m = _LOOSE_BOUNDARY.search(value)
    if not m:
        return ""
    if m.group(1) is not None:
        return re.sub(r"\\(.)", r"\1", m.group(1))
    return m.group(2).strip(" \t")


def boundary_problem(boundary: str) -> str | None:
    """Why `boundary` breaks MB-WIRE-3 (1 to 70 bchars, no trailing space), or None."""
    if not boundary:
        return "the boundary is empty"
    if len(boundary) > 70:
        return f"the boundary has {len(boundary)} characters, more than 70"
    if not BCHARS.fullmatch(boundary):
        return f"the boundary {boundary!r} has a character outside bchars or ends in a space"
    return None


def _read_fields(
    data: bytes, start: int, findings: list[Finding]
) -> tuple[list[tuple[str, str]], int] | None:
    """Read field lines from `start` to the blank line; return them and the body start."""
    fields: list[tuple[str, str]] = []
    pos = start
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            findings.append(
                Finding("MB-STATUS-6", "MB-WIRE-13", pos, "the part header section never ends")
            )
            return None
        line = data[pos:nl]
        if not line.endswith(b"\r"):
            findings.append(
                Finding("MB-WIRE-7", "MB-WIRE-8", nl, f"bare LF ends part header line {line!r}")
            )
            return None
        line = line[:-1]
        if b"\r" in line:
            findings.append(
                Finding("MB-WIRE-7", "MB-WIRE-8", pos + line.index(b"\r"), f"bare CR in {line!r}")
            )
            return None
        if not line:
            return fields, nl + 1
        if line[:1] in (b" ", b"\t"):
            findings.append(
                Finding("MB-PART-7", "MB-PART-11", pos, f"obs-fold line {line!r} in a part header")
            )
            return None
        colon = line.find(b":")
        name = line[:colon] if colon > 0 else b""
        value = line[colon + 1 :].strip(b" \t") if colon > 0 else b""
        if not TOKEN.fullmatch(name) or not FIELD_VALUE.fullmatch(value):
            findings.append(
                Finding("MB-SEC-3", "MB-PART-11", pos, f"{line!r} is not a valid field-line")
            )
            return None
        fields.append((name.decode("ascii"), value.decode("latin-1")))
        pos = nl + 1


def _bare_lf_dash(data: bytes, dash: bytes) -> int | None:
    """The offset of the first LF not preceded by CR and followed by `dash`, or None."""
    at = data.find(b"\n" + dash)
    while at >= 0:
        if at == 0 or data[at - 1 : at] != b"\r":
            return at
        at = data.find(b"\n" + dash, at + 1)
    return None


def read_multipart(data: bytes, boundary: str) -> Envelope:
    """Walk `data` as a multipart body delimited by `boundary` (see module docstring)."""
    findings: list[Finding] = []
    parts: list[Part] = []
    dash = b"--" + boundary.encode("latin-1")
    delim = b"\r\n" + dash
    preamble = b""
    epilogue = b""

    def done(complete: bool) -> Envelope:
        return Envelope(boundary, tuple(parts), preamble, epilogue, complete, tuple(findings))

    if data.startswith(dash):
        pos = 0
    else:
        first = data.find(delim)
        if first < 0:
            bare = data.find(b"\n" + dash)
            if bare >= 0:
                findings.append(Finding("MB-WIRE-7", "MB-WIRE-8", bare, "bare LF before delimiter"))
            else:
                findings.append(Finding("MB-STATUS-6", "MB-WIRE-13", 0, "no delimiter at all"))
            return done(False)
        lf_at = _bare_lf_dash(data[:first], dash)
        if lf_at is not None:
            # MB-WIRE-8: a dash-boundary "after a bare LF in the preamble is a delimiter line
            # with a bare LF, which is rejected".
            findings.append(Finding("MB-WIRE-7", "MB-WIRE-8", lf_at, "bare LF before delimiter"))
            return done(False)
        preamble = data[:first]
        findings.append(
            Finding("MB-WIRE-10", None, 0, f"preamble of {len(preamble)} octets", fatal=False)
        )
        pos = first + 2
    index = 0
    while True:
        after = pos + len(dash)
        if data[after : after + 2] == b"--":
            if index == 0:
                findings.append(Finding("MB-WIRE-18", "MB-WIRE-18", pos, "the batch has no part"))
            rest = data[after + 2 :]
            stripped = rest.lstrip(b" \t")
            if len(stripped) != len(rest):
                findings.append(
                    Finding("MB-WIRE-12", None, after + 2, "padding after close", fatal=False)
                )
            if stripped and not stripped.startswith(b"\r\n"):
                findings.append(
                    Finding(
                        "MB-WIRE-7", "MB-WIRE-19", after + 2, f"text {stripped[:20]!r} after close"
                    )
                )
                return done(False)
            if len(stripped) > 2:
                epilogue = stripped[2:]
                findings.append(
                    Finding("MB-WIRE-10", None, after + 2, f"epilogue {epilogue[:40]!r}", False)
                )
            return done(not any(f.fatal for f in findings))
        q = after
        while data[q : q + 1] in (b" ", b"\t"):
            q += 1
        if q > after:
            findings.append(
                Finding("MB-WIRE-12", None, after, "transport padding after a delimiter", False)
            )
        if data[q : q + 2] == b"\r\n":
            q += 2
        elif data[q : q + 1] == b"\n":
            findings.append(Finding("MB-WIRE-7", "MB-WIRE-8", q, "bare LF ends a delimiter line"))
            return done(False)
        elif q >= len(data):
            findings.append(Finding("MB-STATUS-6", "MB-WIRE-13", q, "body ends at a delimiter"))
            return done(False)
        else:
            findings.append(
                Finding("MB-WIRE-7", "MB-WIRE-19", q, f"text {data[q : q + 20]!r} after boundary")
            )
            return done(False)
        read = _read_fields(data, q, findings)
        if read is None:
            return done(False)
        fields, body_start = read
        end = data.find(delim, max(body_start - 2, q))
        if end < 0:
            lf_before = _bare_lf_dash(data[body_start:], dash)
            if lf_before is not None:
                # MB-WIRE-7: "A sender MUST end every delimiter line ... with CRLF": a dash-boundary
                # after a bare LF is the next delimiter line written with an LF alone, which a
                # strict receiver does not take for a delimiter (MB-WIRE-8).
                findings.append(
                    Finding(
                        "MB-WIRE-7", "MB-WIRE-8", body_start + lf_before, "bare LF before delimiter"
                    )
                )
                return done(False)
            findings.append(
                Finding("MB-STATUS-6", "MB-WIRE-13", len(data), "no close delimiter after part")
            )
            return done(False)
        if end < body_start:
            # MB-WIRE-7: "A sender MUST end every delimiter line, every part header line and
            # the empty line that ends a part header section with CRLF": a sender always writes
            # the empty line. Here the CRLF after the last field line is the next delimiter's
            # own, so the part has no empty line; a receiver accepts that (MB-WIRE-21), so the
            # finding binds the sender only and the reading goes on.
            findings.append(
                Finding(
                    "MB-WIRE-7",
                    None,
                    end,
                    f"part {index}: no empty line ends the header section; the CRLF before "
                    "the next delimiter is the delimiter's own",
                    fatal=False,
                )
            )
        body = data[body_start:end] if end >= body_start else b""
        lf_dash = body.find(b"\n" + dash)
        if lf_dash >= 0:
            # MB-WIRE-8: an LF followed by the dash-boundary inside a body is a delimiter line
            # with a bare LF to a lenient parser, so a strict receiver rejects it.
            findings.append(
                Finding(
                    "MB-WIRE-6", "MB-WIRE-8", body_start + lf_dash, "LF + dash-boundary in body"
                )
            )
            return done(False)
        part = Part(index, tuple(fields), body, q, body_start)
        lengths = part.get_all("Content-Length")
        if len(lengths) > 1:
            # MB-WIRE-20: "A receiver MUST reject a part that carries more than one
            # `Content-Length` field line"; in a response part the second one is usually the
            # sub-response's own, which MB-RESP-4 drops.
            findings.append(
                Finding(
                    "MB-RESP-4",
                    "MB-WIRE-20",
                    body_start,
                    f"part {index}: {len(lengths)} Content-Length field lines {lengths!r}",
                )
            )
        for raw in lengths:
            # Compared as digit strings: a numeral of thousands of digits is no int() input.
            digits = raw.lstrip("0") or "0"
            if not DIGITS.fullmatch(raw.encode("latin-1")) or digits != str(len(body)):
                shown = repr(raw) if len(raw) <= 40 else f"{raw[:40]!r}... ({len(raw)} characters)"
                findings.append(
                    Finding(
                        "MB-WIRE-16",
                        "MB-WIRE-17",
                        body_start,
                        f"part {index}: Content-Length {shown} but {len(body)} octets before "
                        "the next delimiter",
                    )
                )
        parts.append(part)
        index += 1
        pos = end + 2


def request_part_findings(part: Part) -> list[Finding]:
    """Part header semantics of a request part (MB-PART-1..4, MB-PART-9/10)."""
    out: list[Finding] = []
    methods = part.get_all("Http-Method")
    if len(methods) != 1 or not TOKEN_STR.fullmatch(methods[0]):
        out.append(
            Finding(
                "MB-PART-1", "MB-PART-2", part.offset, f"part {part.index}: Http-Method {methods!r}"
            )
        )
    cids = part.get_all("Content-Id")
    if len(cids) != 1 or not re.fullmatch(r"<[\x21-\x3b\x3d\x3f-\x7e]*>", cids[0]):
        out.append(
            Finding(
                "MB-PART-3", "MB-PART-4", part.offset, f"part {part.index}: Content-Id {cids!r}"
            )
        )
    for name, _ in part.fields:
        if name.lower() in {f.lower() for f in FORBIDDEN_REQUEST_FIELDS}:
            out.append(
                Finding("MB-PART-9", "MB-PART-10", part.offset, f"part {part.index}: {name}")
            )
    return out


def response_part_findings(part: Part, request_content_id: str | None) -> list[Finding]:
    """Part header semantics of a response part (MB-RESP-2, -3, -5; Batch-Outcome values)."""
    out: list[Finding] = []
    outcomes = part.get_all("Batch-Outcome")
    # The value as read (its OWS already gone): `outcome-value` is a token compared
    # case-sensitively (spec 3.4), so `skipped` followed by obs-text such as 0xA0 is none of
    # the outcomes, though a text library strips it as space.
    outcome = outcomes[0] if len(outcomes) == 1 else None
    if len(outcomes) > 1 or (outcome is not None and outcome not in BATCH_OUTCOMES):
        out.append(Finding("MB-RESP-5", None, part.offset, f"Batch-Outcome {outcomes!r}"))
    statuses = part.get_all("Http-Status-Code")
    if outcome in ("skipped", "aborted"):
        if statuses:
            out.append(
                Finding("MB-RESP-5", None, part.offset, f"{outcome} part has Http-Status-Code")
            )
    elif len(statuses) != 1 or not THREE_DIGITS.fullmatch(statuses[0]):
        out.append(
            Finding(
                "MB-RESP-2", None, part.offset, f"part {part.index}: Http-Status-Code {statuses!r}"
            )
        )
    elif statuses[0].startswith("1"):
        out.append(
            Finding(
                "MB-RESP-9", None, part.offset, f"part {part.index}: interim status {statuses[0]}"
            )
        )
    if request_content_id is not None and outcome != "aborted":
        echoed = part.get_all("Content-Id")
        if echoed != [request_content_id]:
            out.append(
                Finding(
                    "MB-RESP-3",
                    None,
                    part.offset,
                    f"part {part.index}: Content-Id {echoed!r}, request had {request_content_id!r}",
                )
            )
    return out
