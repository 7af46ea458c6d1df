"""Writing batches: request parts, response parts and the close delimiter, as bytes.

The writer is the sending half of the codec and enforces the sender's duties, raising
``LocalProtocolError`` (our own bug, never the peer's) when asked to break one:
- MB-WIRE-6: the delimiter occurs in no part's body. The writer refuses any body holding
  "\\n--boundary", which also rules out the bare-LF form strict receivers reject.
- MB-WIRE-7 and MB-WIRE-12: CRLF after every line, no transport padding.
- MB-WIRE-15 and MB-WIRE-16: every part gets an exact Content-Length.
- MB-PART-7 and MB-PART-9: no folded values, no forbidden fields in request parts.

Each call returns the octets of one part, ending with the delimiter that closes its body, so a
caller can write every part to the wire the moment it is ready and the reader sees it whole
(MB-PROC-4).

A response part that ran (a status, no Batch-Outcome) is first offered to the C fast path
(``_accel.response_part``, see ``_accelerator``), which writes the same octets or returns None
for anything but the plain case; this module's code is the reference and writes or refuses
everything the fast path leaves to it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from ._accelerator import RESPONSE_PART
from ._errors import LocalProtocolError
from ._events import OUTCOMES
from ._fields import FieldPair, Fields, is_field_value, is_token
from ._mediatype import format_batch_content_type, is_valid_boundary, make_boundary
from ._parts import FORBIDDEN_METHODS, FORBIDDEN_REQUEST_FIELDS, FORBIDDEN_RESPONSE_FIELDS
from ._target import is_uri_reference

__all__ = ["BatchWriter"]

_RESERVED_REQUEST = frozenset({"http-method", "content-id"})
_RESERVED_RESPONSE = frozenset({"http-status-code", "batch-outcome", "content-id"})
#: The fields a caller may not put into each kind of part: forbidden ones, and those the writer
#: writes itself.
_NOT_IN_REQUEST = FORBIDDEN_REQUEST_FIELDS | _RESERVED_REQUEST
_NOT_IN_RESPONSE = FORBIDDEN_RESPONSE_FIELDS | _RESERVED_RESPONSE
#: The same names as the C fast path compares them: lower-case ASCII bytes.
_NOT_IN_RESPONSE_NAMES = tuple(sorted(name.encode("ascii") for name in _NOT_IN_RESPONSE))
#: Distinct (name, value) pairs whose checked field line is remembered; see ``_field_line``.
FIELD_LINE_CACHE_SIZE = 1024


def _local(detail: str, requirement: str, index: int) -> LocalProtocolError:
    return LocalProtocolError(
        detail,
        requirement=requirement,
        part_index=index,
        slug="local-error",
        title="Invalid batch to send",
    )


@functools.lru_cache(maxsize=FIELD_LINE_CACHE_SIZE)
def _field_line(name: str, value: str) -> str | None:
    """``name: value``, or None when the name is not a token or the value not a field-value.

    The parts of one batch (and of the next) mostly repeat the same few fields, such as one
    Content-Type, so the two regular-expression checks are remembered per distinct pair.
    """
    if is_token(name) and is_field_value(value):
        return f"{name}: {value}"
    return None


class BatchWriter:
    """Serialize one batch, part by part, for the boundary given (a fresh one by default)."""

    __slots__ = ("_boundary", "_closed", "_count", "_dash", "_fast", "_guard")

    def __init__(self, boundary: str | None = None, *, accelerated: bool = True) -> None:
        boundary = make_boundary() if boundary is None else boundary
        if not is_valid_boundary(boundary):
            raise ValueError(f"invalid boundary {boundary!r} (MB-WIRE-3)")
        self._boundary = boundary
        self._dash = b"--" + boundary.encode("ascii")
        self._guard = b"\n" + self._dash
        self._count = 0
        self._closed = False
        #: The C fast path for response parts, unless it is not built or not wanted.
        self._fast = RESPONSE_PART if accelerated else None

    @property
    def boundary(self) -> str:
        return self._boundary

    @property
    def content_type(self) -> str:
        """The Content-Type value for the batch this writer produces."""
        return format_batch_content_type(self._boundary)

    @property
    def parts_written(self) -> int:
        return self._count

    def request_part(
        self,
        method: str,
        target: str,
        fields: Iterable[FieldPair] = (),
        body: bytes | bytearray | memoryview = b"",
    ) -> bytes:
        """One sub-request: ``Http-Method``, ``Content-Id: <target>``, ``fields``, ``body``."""
        index = self._count
        if not is_token(method):
            raise _local(f"method {method!r} is not a token", "MB-PART-1", index)
        if method.upper() in FORBIDDEN_METHODS:
            raise _local(f"method {method!r} may not be sent in a batch", "MB-SUB-3", index)
        if not is_uri_reference(target) or "#" in target:
            raise _local(
                f"target {target!r} is not a URI-reference without a fragment", "MB-PART-3", index
            )
        head = [f"Http-Method: {method}", f"Content-Id: <{target}>"]
        return self._part(head, fields, body, _NOT_IN_REQUEST, "MB-PART-9")

    def response_part(
        self,
        status: int | None,
        content_id: str | None,
        fields: Iterable[FieldPair] = (),
        body: bytes | bytearray | memoryview = b"",
        outcome: str | None = None,
    ) -> bytes:
        """One sub-response. ``status`` is None exactly when ``outcome`` says the part did not run."""
        fast = self._fast
        if fast is not None and outcome is None and not self._closed:
            octets = fast(
                self._dash,
                self._count == 0,
                status,
                content_id,
                fields.pairs if type(fields) is Fields else fields,
                body,
                _NOT_IN_RESPONSE_NAMES,
            )
            if octets is not None:
                self._count += 1
                return octets
        index = self._count
        if outcome is not None and outcome not in OUTCOMES:
            raise _local(f"unknown Batch-Outcome {outcome!r}", "MB-RESP-5", index)
        ran = outcome in (None, "rolled-back")
        if ran != (status is not None):
            raise _local(
                f"status {status!r} does not fit Batch-Outcome {outcome!r}",
                "MB-RESP-2" if ran else "MB-RESP-5",
                index,
            )
        if status is not None and not 100 <= status <= 599:
            raise _local(f"status {status!r} is not a 3-digit HTTP status", "MB-RESP-2", index)
        head = []
        if status is not None:
            head.append(f"Http-Status-Code: {status}")
        if outcome is not None:
            head.append(f"Batch-Outcome: {outcome}")
        if content_id is not None:
            if not is_uri_reference(content_id):
                raise _local(
                    f"Content-Id {content_id!r} is not a URI-reference", "MB-RESP-3", index
                )
            head.append(f"Content-Id: <{content_id}>")
        elif outcome != "aborted":
            raise _local(
                "a response part must echo its request part's Content-Id", "MB-RESP-3", index
            )
        return self._part(head, fields, body, _NOT_IN_RESPONSE, "MB-RESP-4")

    def close(self) -> bytes:
        """The close delimiter. A batch needs at least one part (MB-WIRE-18)."""
        if self._count == 0:
            raise _local("a batch needs at least one part", "MB-WIRE-18", 0)
        if self._closed:
            raise _local("the batch is already closed", "MB-WIRE-18", self._count)
        self._closed = True
        return b"--\r\n"

    def _part(
        self,
        head: list[str],
        fields: Iterable[FieldPair],
        body: bytes | bytearray | memoryview,
        forbidden: frozenset[str],
        requirement: str,
    ) -> bytes:
        index = self._count
        if self._closed:
            raise _local("no part may follow the close delimiter", "MB-WIRE-18", index)
        length = len(body)
        has_length = False
        for name, value in fields:
            lname = name.lower()
            if lname in forbidden:
                raise _local(f"header field {name!r} may not appear here", requirement, index)
            # MB-PART-7: "A sender does not fold any part header field"; a value with CR or LF
            # would be a fold or an injected line, so it is not a field-value at all.
            line = _field_line(name, value)
            if line is None:
                raise _local(f"invalid header field {name!r}: {value!r}", "MB-PART-11", index)
            if lname == "content-length":
                if value != str(length) or has_length:
                    raise _local(
                        f"Content-Length {value!r} does not equal the body's {length} octets",
                        "MB-WIRE-16",
                        index,
                    )
                has_length = True
            head.append(line)
        if not has_length:
            head.append(f"Content-Length: {length}")
        if self._guard in body or body[: len(self._dash)] == self._dash:
            raise _local(
                "the body contains the delimiter; choose another boundary", "MB-WIRE-6", index
            )
        # Each part ends with the "CRLF --boundary" that closes its body, so a reader can tell the
        # part is complete the moment it arrives (MB-PROC-4); the CRLF that finishes that
        # delimiter line opens the next part, and close() adds the "--" of the close delimiter.
        opening = self._dash + b"\r\n" if index == 0 else b"\r\n"
        self._count += 1
        head_bytes = "\r\n".join(head).encode("latin-1")
        return b"".join((opening, head_bytes, b"\r\n\r\n", body, b"\r\n", self._dash))
