"""The incremental batch parser: bytes in, events out, no I/O.

Theory of operation. The parser is a state machine over the RFC 2046 §5.1.1 grammar,
restricted by the mixbatch spec §3, driven by two tables as h11's is: ``_READERS`` names the
reader that recognises the next input in each state (and emits the events it completes), and
``_TRANSITIONS`` maps ``(state, input)`` to the next state. ``_run`` only looks both up; an
input a state's reader cannot recognise is a typed error raised by that reader, and a pair
missing from ``_TRANSITIONS`` is a bug in the parser, never a leniency.

    multipart-body := [preamble CRLF] dash-boundary transport-padding CRLF
                      body-part *encapsulation close-delimiter transport-padding
                      [CRLF epilogue]
    encapsulation  := delimiter transport-padding CRLF body-part
    delimiter      := CRLF dash-boundary          ; dash-boundary := "--" boundary
    close-delimiter := delimiter "--"
    body-part      := MIME-part-headers [CRLF *OCTET]

    state        input seen                        next state
    -----------  --------------------------------  -----------
    PREAMBLE     dash-boundary (at 0 or after CRLF) AFTER_DASH
    AFTER_DASH   transport-padding CRLF             HEADERS (a part starts)
    AFTER_DASH   "--" transport-padding [CRLF]      EPILOGUE (BatchEnd)
    HEADERS      CRLF CRLF (or a leading CRLF)      BODY (a *PartStart event)
    BODY         CRLF dash-boundary                 AFTER_DASH (PartEnd)
    EPILOGUE     anything                           EPILOGUE (no reader: ignored)
    AFTER_DASH   the end of the content after "--"  EPILOGUE (feed_eof)
    any          a byte sequence not in this table  ERROR (sticky)

Strictness (each rule cites the spec): a bare LF or CR used as a line terminator in a delimiter
line or a header section is an error, never a leniency (MB-WIRE-8); so is text after a
dash-boundary other than transport padding (MB-WIRE-19). The part body is scanned for
"\\n--boundary" with ``bytes.find``, which runs in C; a hit not preceded by CR is a bare-LF
delimiter and an error. Body bytes are handed out as ``memoryview`` slices of the fed chunk, so
a body is never copied by the parser; only the few octets that might start a delimiter are held
back until the next chunk decides them.

Offsets in errors count octets from the first octet of the multipart content.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable

from ._accelerator import SCAN, UNAVAILABLE_REASON
from ._errors import IncompleteBatch, LimitExceeded, MixbatchError, RemoteProtocolError
from ._events import BatchEnd, Event, PartData, PartEnd, ResponsePartStart
from ._fields import FIELD_BLOCK, FIELD_LINE, FIELD_PAIRS
from ._limits import Limits
from ._parts import RawField, Role, start_part

__all__ = ["BatchParser"]


class _State(enum.Enum):
    PREAMBLE = "preamble"
    AFTER_DASH = "after dash-boundary"
    HEADERS = "part headers"
    BODY = "part body"
    EPILOGUE = "epilogue"


class _Input(enum.Enum):
    """What a state's reader recognised; with the state, it picks the next one."""

    DASH_BOUNDARY = "the first dash-boundary"
    PART_LINE_END = "transport padding and CRLF after a dash-boundary"
    CLOSE_LINE_END = '"--", transport padding and CRLF after a dash-boundary'
    END_OF_CONTENT = 'the end of the content after "--"'
    SECTION_END = "the end of a part header section"
    DELIMITER = "CRLF dash-boundary after a part body"


#: (state, input recognised) -> next state: the table above, as the code reads it.
_TRANSITIONS: dict[tuple[_State, _Input], _State] = {
    (_State.PREAMBLE, _Input.DASH_BOUNDARY): _State.AFTER_DASH,
    (_State.AFTER_DASH, _Input.PART_LINE_END): _State.HEADERS,
    (_State.AFTER_DASH, _Input.CLOSE_LINE_END): _State.EPILOGUE,
    (_State.AFTER_DASH, _Input.END_OF_CONTENT): _State.EPILOGUE,
    (_State.HEADERS, _Input.SECTION_END): _State.BODY,
    (_State.BODY, _Input.DELIMITER): _State.AFTER_DASH,
}

_PADDING = re.compile(rb"[ \t]*")
_EMPTY_MEMORY = memoryview(b"")


def _malformed(
    detail: str, requirement: str, part_index: int | None, offset: int
) -> RemoteProtocolError:
    return RemoteProtocolError(
        detail, requirement=requirement, part_index=part_index, offset=offset
    )


class BatchParser:
    """Parse one multipart/mixed batch incrementally.

    ``feed`` accepts the content in chunks of any size (``bytes``, ``bytearray`` or
    ``memoryview``) and returns the events completed so far; ``feed_eof`` says the content
    ended. Any ``RemoteProtocolError`` leaves the parser in a sticky error state.

    ``accelerated`` chooses the C fast path (``_accel.c``) for runs of whole, plainly valid
    parts: None uses it when it is built, False never, True requires it. The events and errors
    are the same either way; the pure-Python code is the reference.
    """

    __slots__ = (
        "_aborted",
        "_after_close",
        "_base",
        "_boundary",
        "_buf",
        "_dash",
        "_dash_at",
        "_end_sent",
        "_error",
        "_expected",
        "_expected_at",
        "_fresh",
        "_index",
        "_limits",
        "_nl_dash",
        "_part_len",
        "_part_offset",
        "_pos",
        "_prev",
        "_role",
        "_scan",
        "_state",
        "_total",
    )

    def __init__(
        self,
        boundary: bytes | str,
        role: Role = Role.REQUEST,
        limits: Limits | None = None,
        *,
        accelerated: bool | None = None,
    ) -> None:
        if isinstance(boundary, str):
            boundary = boundary.encode("ascii")
        if not boundary:
            raise ValueError("boundary must not be empty")
        self._boundary = boundary
        self._dash = b"--" + boundary
        self._nl_dash = b"\n--" + boundary
        self._role = role
        self._limits = limits or Limits()
        self._buf = b""
        self._pos = 0  # first unconsumed octet of _buf
        self._base = 0  # absolute offset of _buf[0]
        self._prev = -1  # the octet before _buf[0], or -1 at the very start
        self._state = _State.PREAMBLE
        self._index = -1
        self._part_len = 0
        self._part_offset = 0
        self._expected: int | None = None
        self._total = 0
        self._after_close = False
        self._end_sent = False
        self._aborted = False
        self._fresh = False
        self._dash_at = 0  # absolute offset of the current delimiter line's first "-"
        self._expected_at: int | None = None  # offset of the part's Content-Length line
        self._error: MixbatchError | None = None
        if accelerated and SCAN is None:
            raise RuntimeError(f"the C fast path is unavailable: {UNAVAILABLE_REASON}")
        self._scan = None if accelerated is False else SCAN

    @property
    def role(self) -> Role:
        return self._role

    @property
    def parts_complete(self) -> int:
        """How many parts have ended whole so far."""
        return self._index if self._state in (_State.HEADERS, _State.BODY) else self._index + 1

    def feed(self, data: bytes | bytearray | memoryview) -> list[Event]:
        """Consume ``data`` and return the events it completes."""
        if self._error is not None:
            raise self._error
        self._total += len(data)
        if self._total > self._limits.max_batch_bytes:
            return self._fail(
                LimitExceeded(
                    f"batch is over the limit of {self._limits.max_batch_bytes} octets",
                    limit="max_batch_bytes",
                    value=self._limits.max_batch_bytes,
                )
            )
        if self._state is _State.EPILOGUE and self._end_sent:
            return []  # MB-WIRE-9: "A receiver ignores the preamble and the epilogue."
        self._append(data)
        events: list[Event] = []
        try:
            self._run(events)
        except RemoteProtocolError as exc:
            self._error = exc
            raise
        return events

    def feed_eof(self) -> list[Event]:
        """Say that the content ended; raises ``IncompleteBatch`` before the close delimiter."""
        if self._error is not None:
            raise self._error
        events: list[Event] = []
        if self._state is _State.AFTER_DASH and self._after_close:
            if self._pos < len(self._buf):  # a CR that never met its LF
                return self._fail(
                    self._delimiter_fault("the close delimiter line ends in a bare CR", "MB-WIRE-8")
                )
            self._state = _TRANSITIONS[_State.AFTER_DASH, _Input.END_OF_CONTENT]
        if self._state is _State.EPILOGUE:
            if not self._end_sent:
                self._end_sent = True
                events.append(BatchEnd(self._index + 1))
            return events
        if self._state is _State.PREAMBLE:
            # MB-WIRE-18: "A batch contains at least one part".
            return self._fail(
                _malformed(
                    f"no delimiter line {self._dash.decode('latin-1')!r} in the content: "
                    "the boundary does not match or the batch is empty",
                    "MB-WIRE-18",
                    # Spec 5.3: content with no delimiter line at all is in "`part_index` 0, the
                    # part the missing first delimiter would open".
                    0,
                    self._total,
                )
            )
        requirement = "MB-WIRE-13" if self._role is Role.REQUEST else "MB-WIRE-14"
        return self._fail(
            IncompleteBatch(
                f"the content ended in the {self._state.value} of part {self._index} "
                "before the close delimiter",
                requirement=requirement,
                parts_complete=self.parts_complete,
                offset=self._total,
            )
        )

    # -- internals ---------------------------------------------------------------------------

    def _fail(self, error: MixbatchError) -> list[Event]:
        self._error = error
        raise error

    def _append(self, data: bytes | bytearray | memoryview) -> None:
        pos, buf = self._pos, self._buf
        if pos >= len(buf):
            if buf:
                self._prev = buf[-1]
            self._base += len(buf)
            self._buf = bytes(data)  # no copy when data is already bytes
        else:
            if pos:
                self._prev = buf[pos - 1]
            self._base += pos
            self._buf = buf[pos:] + bytes(data)
        self._pos = 0

    def _byte_before(self, i: int) -> int:
        return self._buf[i - 1] if i > 0 else self._prev

    def _run(self, events: list[Event]) -> None:
        while True:
            reader = _READERS.get(self._state)
            if reader is None:
                # MB-WIRE-9: "A receiver ignores the preamble and the epilogue."
                self._pos = len(self._buf)
                return
            seen = reader(self, events)
            if seen is None:
                return  # the input so far decides nothing: wait for more
            following = _TRANSITIONS.get((self._state, seen))
            if following is None:  # pragma: no cover - a reader returned an input out of turn
                raise AssertionError(f"no transition from {self._state} on {seen}")
            self._state = following

    def _delimiter_line(self, events: list[Event]) -> _Input | None:
        if self._scan is not None and not (self._aborted or self._after_close):
            self._scan_whole_parts(events)
        return self._after_dash(events)

    def _scan_whole_parts(self, events: list[Event]) -> None:
        """Let the C fast path take the whole, plainly valid parts ahead; it stops after a
        dash-boundary, so the state stays AFTER_DASH and the Python code goes on from there."""
        assert self._scan is not None
        pos, index, dash_at = self._scan(
            self._buf,
            self._pos,
            self._base,
            self._index,
            self._role is Role.REQUEST,
            self._nl_dash,
            self._limits,
            events,
        )
        if dash_at >= 0:
            self._pos, self._index, self._dash_at = pos, index, dash_at

    # Offsets follow spec/schemas/vector.schema.json: a delimiter-line fault is reported at the
    # line's first "-" and belongs to the part that line opens; a header-line fault at the
    # line's first octet; a fault of a whole header section at the section's first octet.

    def _delimiter_fault(self, detail: str, requirement: str) -> RemoteProtocolError:
        return _malformed(detail, requirement, self._index + 1, self._dash_at)

    def _preamble(self, events: list[Event]) -> _Input | None:
        buf, dash = self._buf, self._dash
        if self._base == 0 and self._pos == 0:
            if buf.startswith(dash):
                return self._at_dash(0, len(dash), _Input.DASH_BOUNDARY)
            if dash.startswith(buf):
                return None  # too few octets to tell
        hit = buf.find(self._nl_dash, self._pos)
        if hit == -1:
            # Keep only what might begin a delimiter (and the octet before it).
            self._pos = max(self._pos, len(buf) - len(self._nl_dash))
            return None
        self._at_dash(self._base + hit + 1, hit + len(self._nl_dash), _Input.DASH_BOUNDARY)
        if self._byte_before(hit) != 0x0D:
            raise self._delimiter_fault(
                "the first delimiter line follows a bare LF, not CRLF", "MB-WIRE-8"
            )
        return _Input.DASH_BOUNDARY

    def _at_dash(self, dash_at: int, pos: int, seen: _Input) -> _Input:
        """Note a dash-boundary at ``dash_at`` (absolute), read on from ``pos``."""
        self._dash_at = dash_at
        self._pos = pos
        return seen

    def _after_dash(self, events: list[Event]) -> _Input | None:
        buf, pos = self._buf, self._pos
        if not self._after_close and len(buf) - pos >= 1 and buf[pos] == 0x2D:  # "-"
            if len(buf) - pos < 2:
                return None
            if buf[pos + 1] != 0x2D:
                raise self._delimiter_fault(
                    f"text {bytes(buf[pos : pos + 16])!r} follows a dash-boundary", "MB-WIRE-19"
                )
            if self._index < 0:
                # MB-WIRE-18: "A batch contains at least one part".
                raise self._delimiter_fault(
                    "the batch has no part: its first delimiter is the close delimiter",
                    "MB-WIRE-18",
                )
            self._after_close = True
            self._pos = pos = pos + 2
        pad = _PADDING.match(buf, pos)
        end = pad.end() if pad else pos
        if end == len(buf):
            self._pos = end  # padding so far; wait for its end
            return None
        octet = buf[end]
        if octet == 0x0D:
            if end + 1 == len(buf):
                self._pos = end
                return None
            if buf[end + 1] != 0x0A:
                raise self._delimiter_fault("a delimiter line ends in a bare CR", "MB-WIRE-8")
            self._pos = end + 2
        elif octet == 0x0A:
            raise self._delimiter_fault("a delimiter line ends in a bare LF, not CRLF", "MB-WIRE-8")
        else:
            # MB-WIRE-19: only transport padding may follow a dash-boundary.
            raise self._delimiter_fault(
                f"text {bytes(buf[end : end + 16])!r} follows a dash-boundary", "MB-WIRE-19"
            )
        if self._after_close:
            self._end_sent = True
            events.append(BatchEnd(self._index + 1))
            return _Input.CLOSE_LINE_END
        if self._aborted:
            raise self._delimiter_fault("a part follows the aborted part", "MB-STATUS-6")
        if self._index + 1 >= self._limits.max_parts:
            raise LimitExceeded(
                f"batch has more than {self._limits.max_parts} parts",
                limit="max_parts",
                value=self._limits.max_parts,
                part_index=self._index + 1,
                offset=self._dash_at,
            )
        self._index += 1
        self._part_offset = self._base + self._pos
        return _Input.PART_LINE_END

    def _headers(self, events: list[Event]) -> _Input | None:
        buf, pos = self._buf, self._pos
        limit = self._limits.max_part_header_bytes
        if len(buf) - pos < 2:
            self._check_header_bytes(buf[pos:], pos, final=False)
            return None
        if buf[pos] == 0x0D and buf[pos + 1] == 0x0A:
            block_end, body_start = pos, pos + 2  # no header fields at all
        else:
            end = buf.find(b"\r\n\r\n", pos)
            if end == -1:
                self._check_header_bytes(buf[pos:], pos, final=False)
                # The section will be at least these octets less the "\r\n\r" that may end it,
                # plus its last CRLF.
                if len(buf) - pos - 1 > limit:
                    raise self._header_limit()
                return None
            block_end, body_start = end, end + 4
        # The section's octets are its field lines with their CRLFs, without the empty line
        # that ends it, so a part counts the same whether or not it has one (MB-WIRE-21).
        if block_end > pos and block_end + 2 - pos > limit:
            raise self._header_limit()
        block = buf[pos:block_end]
        # MB-LIMIT-5: a part header section holds at most max_part_fields field lines. Counted
        # before any field is split out, since each one costs objects the octet limit alone
        # would let multiply (an 8 KiB section holds 2,048 empty fields ``a:``).
        if block and block.count(b"\r\n") >= self._limits.max_part_fields:
            raise self._fields_limit()
        text = block.decode("latin-1")
        # One C pass validates the whole section; FIELD_BLOCK admits no CR or LF inside a line.
        if block and FIELD_BLOCK.fullmatch(text) is None:
            self._check_header_bytes(block, pos, final=True)
            self._diagnose_field_lines(block, pos)
        section_at = self._base + pos
        raw: list[RawField] = []
        starts: list[int] = []
        if block:
            for match in FIELD_PAIRS.finditer(text):
                raw.append((match[1], match[2]))
                starts.append(section_at + match.start())

        def locate(i: int) -> int:
            return starts[i]

        event, self._expected, length_field = start_part(
            self._role, self._index, raw, self._part_offset, self._limits, locate
        )
        self._expected_at = None if length_field is None else locate(length_field)
        events.append(event)
        if isinstance(event, ResponsePartStart) and event.outcome == "aborted":
            self._aborted = True
        self._part_len = 0
        self._fresh = True
        self._pos = body_start
        return _Input.SECTION_END

    def _diagnose_field_lines(self, block: bytes, pos: int) -> None:
        """Raise for the first line of a section that is not a field-line (MB-PART-11)."""
        line_at = self._base + pos
        for line in block.split(b"\r\n"):
            if FIELD_LINE.fullmatch(line) is None:
                fold = line[:1] in (b" ", b"\t")
                kind = "obs-fold (a line starting with whitespace)" if fold else "not a field-line"
                raise _malformed(
                    f"part header line {bytes(line[:64])!r} is {kind}",
                    "MB-PART-11",
                    self._index,
                    line_at,
                )
            line_at += len(line) + 2
        raise AssertionError("FIELD_BLOCK and FIELD_LINE disagree")  # pragma: no cover

    def _check_header_bytes(self, block: bytes, pos: int, *, final: bool) -> None:
        # MB-WIRE-8: "A receiver rejects a bare LF or bare CR used as a line terminator in
        # delimiter lines or part header sections." A final CR may still meet its LF.
        scan = block if final or not block.endswith(b"\r") else block[:-1]
        if scan.count(b"\n") == scan.count(b"\r\n") == scan.count(b"\r"):
            return
        for i, octet in enumerate(scan):
            bare_lf = octet == 0x0A and (i == 0 or scan[i - 1] != 0x0D)
            bare_cr = octet == 0x0D and (i + 1 == len(scan) or scan[i + 1] != 0x0A)
            if bare_lf or bare_cr:
                # Every earlier terminator was a proper CRLF, so the line starts after it.
                line_start = scan.rfind(b"\n", 0, i) + 1
                kind = "ends in a bare LF, not CRLF" if bare_lf else "holds a bare CR"
                raise _malformed(
                    f"a part header line {kind}",
                    "MB-WIRE-8",
                    self._index,
                    self._base + pos + line_start,
                )

    def _header_limit(self) -> LimitExceeded:
        limit = self._limits.max_part_header_bytes
        return LimitExceeded(
            f"part header section is over the limit of {limit} octets",
            limit="max_part_header_bytes",
            value=limit,
            status_hint=431,
            part_index=self._index,
            offset=self._part_offset,
        )

    def _fields_limit(self) -> LimitExceeded:
        limit = self._limits.max_part_fields
        return LimitExceeded(
            f"part header section has more than {limit} field lines",
            limit="max_part_fields",
            value=limit,
            status_hint=431,
            part_index=self._index,
            offset=self._part_offset,
            requirement="MB-LIMIT-5",
            title="Too many part header fields",
        )

    def _body(self, events: list[Event]) -> _Input | None:
        buf, pos = self._buf, self._pos
        if self._fresh:
            # RFC 2046: body-part := MIME-part-headers [CRLF *OCTET]. When the body is absent,
            # the blank line that ended the header section is the delimiter's own CRLF.
            dash = self._dash
            if len(buf) - pos < len(dash) and dash.startswith(buf[pos:]):
                return None
            self._fresh = False
            if buf.startswith(dash, pos):
                if self._expected:
                    raise self._length_mismatch()
                events.append(PartEnd(self._index, 0))
                return self._at_dash(self._base + pos, pos + len(dash), _Input.DELIMITER)
        hit = buf.find(self._nl_dash, pos)
        if hit == -1:
            safe = self._undecided_tail(buf, pos)
            if safe > pos:
                self._emit(events, pos, safe)
                self._pos = safe
            return None
        if self._byte_before(hit) != 0x0D:
            self._dash_at = self._base + hit + 1
            raise self._delimiter_fault("a delimiter line follows a bare LF, not CRLF", "MB-WIRE-8")
        body_end = hit - 1
        if body_end > pos:
            self._emit(events, pos, body_end)
        # MB-WIRE-17: "A receiver rejects a part whose Content-Length differs from the octets
        # before the next delimiter."
        if self._expected is not None and self._part_len != self._expected:
            raise self._length_mismatch()
        events.append(PartEnd(self._index, self._part_len))
        return self._at_dash(self._base + hit + 1, hit + len(self._nl_dash), _Input.DELIMITER)

    def _undecided_tail(self, buf: bytes, pos: int) -> int:
        """Where the octets that might still begin a delimiter start, given that ``buf`` holds
        no whole one: a final CR, or an LF near the end whose rest is a prefix of
        "LF--boundary", with the octet before it. Everything before is body. Keeping the tail
        short (usually empty) lets the next chunk be parsed in place instead of appended."""
        nl_dash = self._nl_dash
        end = len(buf)
        lf = buf.rfind(b"\n", max(pos, end - len(nl_dash) + 1))
        if lf != -1 and nl_dash.startswith(buf[lf:]):
            end = lf - 1
        elif buf.endswith(b"\r"):
            end -= 1
        return max(pos, end)

    def _emit(self, events: list[Event], start: int, end: int) -> None:
        self._part_len += end - start
        if self._part_len > self._limits.max_part_bytes:
            raise LimitExceeded(
                f"part body is over the limit of {self._limits.max_part_bytes} octets",
                limit="max_part_bytes",
                value=self._limits.max_part_bytes,
                part_index=self._index,
                offset=self._part_offset,
            )
        if self._expected is not None and self._part_len > self._expected:
            raise self._length_mismatch()
        events.append(PartData(self._index, memoryview(self._buf)[start:end]))

    def _length_mismatch(self) -> RemoteProtocolError:
        longer = self._part_len > (self._expected or 0)
        return RemoteProtocolError(
            f"part Content-Length is {self._expected} but the body before the next delimiter "
            f"is {'more than ' if longer else ''}{self._expected if longer else self._part_len} octets",
            requirement="MB-WIRE-17",
            slug="content-length-mismatch",
            title="Part Content-Length mismatch",
            part_index=self._index,
            offset=self._expected_at,
        )


#: state -> the reader that recognises its next input; EPILOGUE has none (its octets are ignored).
_READERS: dict[_State, Callable[[BatchParser, list[Event]], _Input | None]] = {
    _State.PREAMBLE: BatchParser._preamble,
    _State.AFTER_DASH: BatchParser._delimiter_line,
    _State.HEADERS: BatchParser._headers,
    _State.BODY: BatchParser._body,
}
