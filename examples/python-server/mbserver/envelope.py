"""The multipart/mixed envelope parser (spec 3.1, 3.4): delimiter lines, part header
sections split into field lines, part bodies. It knows framing and limits only; what the
fields mean is parts.py's business, called back once per part as soon as the part is
framed so that faults are reported in content order.

Offsets and part indexes follow spec 5.3 / vector.schema.json.
"""

import re

from .problems import envelope as env_problem, limit_exceeded

CRLF = b"\r\n"
FIELD_LINE_RE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):([\t\x20-\x7e\x80-\xff]*)")
LINE_END_RE = re.compile(rb"[\r\n]")


class RawPart:
    __slots__ = ("index", "delim_offset", "section_offset", "fields", "body_offset", "body")

    def __init__(self, index, delim_offset, section_offset):
        self.index = index
        self.delim_offset = delim_offset
        self.section_offset = section_offset
        self.fields = []          # (name, value, line_offset); str, one char per octet
        self.body_offset = None
        self.body = b""


def _missing_close(data, index):
    return env_problem("MB-WIRE-13", "Missing close delimiter",
                       "The content ends without the close delimiter.", index, len(data))


def _delimiter_line(data, p, dash, index):
    """Validate the delimiter line whose first '-' is at p. Returns (is_close, next_pos)."""
    n = len(data)
    q = p + len(dash)
    close = data[q:q + 2] == b"--"
    if close:
        q += 2
    while q < n and data[q] in (0x20, 0x09):
        q += 1
    if q >= n:
        if close:
            return True, n
        raise _missing_close(data, index)
    if data[q:q + 2] == CRLF:
        return close, q + 2
    if data[q] == 0x0A or data[q] == 0x0D:
        raise env_problem("MB-WIRE-8", "Bare LF in a delimiter line" if data[q] == 0x0A
                          else "Bare CR in a delimiter line",
                          "A delimiter line ends without CRLF.", index, p)
    raise env_problem("MB-WIRE-19", "Text after a boundary delimiter",
                      "A line that begins with the dash-boundary carries other text.", index, p)


def _first_delimiter(data, dash):
    """Offset of the first delimiter line: the dash-boundary at the start of the content
    or after a CRLF in the preamble; one after a bare LF is a faulty delimiter line."""
    pos = 0
    while True:
        p = data.find(dash, pos)
        if p < 0:
            return -1
        if p == 0 or data[p - 1] == 0x0A:
            if p >= 1 and (p < 2 or data[p - 2] != 0x0D):
                raise env_problem("MB-WIRE-8", "Bare LF in a delimiter line",
                                  "A delimiter line in the preamble follows a bare LF.", 0, p)
            return p
        pos = p + 1


def _header_section(data, start, dash, part, limits):
    """Read field lines from start. Returns the offset where the body begins, or
    (-1, delimiter_offset) when the section is followed directly by a delimiter."""
    n = len(data)
    pos = start
    count = 0
    max_end = start + limits.max_part_header_bytes
    while True:
        if pos >= n:
            raise _missing_close(data, part.index)
        # end of the section: an empty line, or the CRLF that begins the next delimiter
        if data[pos:pos + 2] == CRLF:
            if data.startswith(dash, pos + 2):
                return -1, pos + 2
            return pos + 2, None
        m = LINE_END_RE.search(data, pos, min(n, max_end + 1))
        if m is None:
            if max_end + 1 <= n or n - start > limits.max_part_header_bytes:
                raise limit_exceeded("max_part_header_bytes", limits.max_part_header_bytes,
                                     "Part header section too large",
                                     "A part header section exceeds max_part_header_bytes.",
                                     part.index, start, status=431)
            raise _missing_close(data, part.index)
        e = m.start()
        if data[e] == 0x0A or data[e + 1:e + 2] != b"\n":
            if data[e] == 0x0D and e + 1 >= n:
                raise _missing_close(data, part.index)
            bare = "LF" if data[e] == 0x0A else "CR"
            raise env_problem("MB-WIRE-8", f"Bare {bare} in a part header section",
                              f"A part header line ends with a bare {bare}.", part.index, pos)
        if e + 2 - start > limits.max_part_header_bytes:
            raise limit_exceeded("max_part_header_bytes", limits.max_part_header_bytes,
                                 "Part header section too large",
                                 "A part header section exceeds max_part_header_bytes.",
                                 part.index, start, status=431)
        count += 1
        if count > limits.max_part_fields:
            raise limit_exceeded("max_part_fields", limits.max_part_fields,
                                 "Too many part header fields",
                                 "A part header section has more field lines than max_part_fields.",
                                 part.index, start, status=431, requirement="MB-LIMIT-5")
        line = data[pos:e]
        fm = FIELD_LINE_RE.fullmatch(line)
        if fm is None:
            raise env_problem("MB-PART-11", "Invalid field line",
                              "A part header line is not a valid field-line.", part.index, pos)
        name = fm.group(1).decode("latin-1")
        value = fm.group(2).strip(b" \t").decode("latin-1")
        part.fields.append((name, value, pos))
        pos = e + 2


def _body_end(data, b, dash, index):
    """Find the CRLF that begins the next delimiter after a body starting at b.
    Returns (body_end, delimiter_offset)."""
    pos = b
    while True:
        p = data.find(dash, pos)
        if p < 0:
            raise _missing_close(data, index)
        if p - 1 >= b and data[p - 1] == 0x0A:
            if p - 2 >= b and data[p - 2] == 0x0D:
                return p - 2, p
            raise env_problem("MB-WIRE-8", "Bare LF in a delimiter line",
                              "A dash-boundary inside a body follows a bare LF.", index + 1, p)
        if p == b and b >= 1 and data[b - 1] == 0x0A:
            # the body starts right after the blank line: a line start, no CRLF of its own
            raise env_problem("MB-WIRE-8", "Bare LF in a delimiter line",
                              "A dash-boundary begins a body without its CRLF.", index + 1, p)
        pos = p + 1


def parse(data, boundary, limits, on_part=None):
    """Parse content bytes with the given boundary (bytes). Returns the list of RawPart;
    raises problems.Problem for the first fault met."""
    dash = b"--" + boundary
    p = _first_delimiter(data, dash)
    if p < 0:
        raise env_problem("MB-WIRE-18", "Empty batch",
                          "The content holds no delimiter line, so no part.", 0, len(data))
    parts = []
    while True:
        index = len(parts)
        close, nxt = _delimiter_line(data, p, dash, index)
        if close:
            if not parts:
                raise env_problem("MB-WIRE-18", "Empty batch",
                                  "The batch has no parts.", 0, p)
            return parts
        if index >= limits.max_parts:
            raise limit_exceeded("max_parts", limits.max_parts, "Too many parts",
                                 f"Part {index} would exceed the limit of {limits.max_parts} "
                                 "parts per batch; no part ran.", index, p)
        part = RawPart(index, p, nxt)
        body_start, delim = _header_section(data, nxt, dash, part, limits)
        if body_start < 0:
            part.body_offset = delim - 2
            part.body = b""
            p = delim
        else:
            end, delim = _body_end(data, body_start, dash, index)
            part.body_offset = body_start
            if end - body_start > limits.max_part_bytes:
                raise limit_exceeded("max_part_bytes", limits.max_part_bytes, "Part too large",
                                     f"Part {index}'s body exceeds max_part_bytes.",
                                     index, part.section_offset)
            part.body = data[body_start:end]
            p = delim
        parts.append(part)
        if on_part is not None:
            on_part(part)
