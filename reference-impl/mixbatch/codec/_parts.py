"""What a part's header section must say, by role.

The parser finds the header section of each part and splits it into field lines; this module
decides what those fields mean. A request part (``Role.REQUEST``) is a sub-request: it needs
exactly one ``Http-Method`` and one ``Content-Id`` and may not carry framing or hop-by-hop
fields. A response part (``Role.RESPONSE``) is a sub-response: it needs ``Http-Status-Code``
unless its ``Batch-Outcome`` says it never ran. Both roles share the part ``Content-Length`` rule.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from ._errors import LimitExceeded, RemoteProtocolError
from ._events import OUTCOMES, RequestPartStart, ResponsePartStart
from ._fields import Fields, is_token
from ._limits import Limits
from ._target import is_uri_reference

__all__ = [
    "FORBIDDEN_METHODS",
    "FORBIDDEN_REQUEST_FIELDS",
    "FORBIDDEN_RESPONSE_FIELDS",
    "RawField",
    "Role",
    "parse_content_id",
    "start_part",
]

#: (name, value, absolute offset of the field line)
RawField = tuple[str, str, int]


class Role(enum.Enum):
    """Which side's parts a parser reads."""

    REQUEST = "request"
    RESPONSE = "response"


#: MB-PART-9: hop-by-hop and framing fields, Host (the authority is the batch's), and the
#: response-only field.
FORBIDDEN_REQUEST_FIELDS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "transfer-encoding",
        "upgrade",
        "expect",
        "host",
        "trailer",
        "content-transfer-encoding",
        "http-status-code",
    }
)
#: Fields that would change how a response part is framed or decoded (MB-RESP-4).
FORBIDDEN_RESPONSE_FIELDS = frozenset(
    {"transfer-encoding", "content-transfer-encoding", "http-method"}
)
#: MB-SUB-3: methods that change the connection or reflect credentials, never sub-requests.
FORBIDDEN_METHODS = frozenset({"CONNECT", "TRACE"})

_CONTENT_ID = re.compile(r"<([^<>]*)>")
_DIGITS = re.compile(r"[0-9]+")
_STATUS = re.compile(r"[1-5][0-9][0-9]")


def parse_content_id(value: str) -> str | None:
    """The URI-reference inside ``<...>``, or None when the value is not of that form.

    An empty reference (``<>``) is a valid URI-reference: it names the batch target itself,
    which the server then refuses as a nested batch (MB-SUB-4).
    """
    match = _CONTENT_ID.fullmatch(value)
    if match is None or (match.group(1) and not is_uri_reference(match.group(1))):
        return None
    return match.group(1)


def _single(raw: Sequence[RawField], lname: str) -> tuple[list[RawField], RawField | None]:
    """All fields named ``lname`` and the one to blame: the first repeat, else the only one."""
    found = [f for f in raw if f[0].lower() == lname]
    if len(found) > 1:
        return found, found[1]
    return found, (found[0] if found else None)


def _content_length(
    raw: Sequence[RawField], index: int, limits: Limits, offset: int
) -> tuple[int | None, int | None]:
    found, blame = _single(raw, "content-length")
    if blame is None:
        return None, None
    values = {f[1] for f in found}
    if len(values) != 1 or not _DIGITS.fullmatch(found[0][1]):
        # MB-WIRE-16: "A part's Content-Length, when present, equals the exact number of octets".
        raise RemoteProtocolError(
            f"part Content-Length {', '.join(sorted(values))!r} is not one decimal number",
            requirement="MB-WIRE-17",
            slug="content-length-mismatch",
            title="Part Content-Length mismatch",
            part_index=index,
            offset=blame[2],
        )
    length = int(found[0][1])
    if length > limits.max_part_bytes:
        raise LimitExceeded(
            f"part Content-Length {length} is over the limit of {limits.max_part_bytes} octets",
            limit="max_part_bytes",
            value=limits.max_part_bytes,
            part_index=index,
            offset=offset,
        )
    return length, found[0][2]


def start_part(
    role: Role, index: int, raw: Sequence[RawField], offset: int, limits: Limits
) -> tuple[RequestPartStart | ResponsePartStart, int | None, int | None]:
    """The start event of a part, its declared Content-Length, and the offset of that field
    line (both None when the part has none)."""
    length, length_at = _content_length(raw, index, limits, offset)
    if role is Role.REQUEST:
        return _request_start(index, raw, offset), length, length_at
    return _response_start(index, raw, offset), length, length_at


def _request_start(index: int, raw: Sequence[RawField], offset: int) -> RequestPartStart:
    for name, _value, at in raw:
        # MB-PART-10: "A server rejects a request part that carries a forbidden header field".
        if name.lower() in FORBIDDEN_REQUEST_FIELDS:
            raise RemoteProtocolError(
                f"request part carries the forbidden header field {name!r}",
                requirement="MB-PART-10",
                slug="forbidden-part-field",
                title="Forbidden header field in a part",
                part_index=index,
                offset=at,
            )
    methods, method = _single(raw, "http-method")
    # MB-PART-2: "A server rejects a part with a missing, repeated or invalid Http-Method".
    if method is None or len(methods) > 1 or not is_token(method[1]):
        what = "no" if method is None else ("more than one" if len(methods) > 1 else "an invalid")
        raise RemoteProtocolError(
            f"request part has {what} Http-Method field"
            + ("" if method is None else f": {method[1]!r}"),
            requirement="MB-PART-2",
            slug="invalid-http-method",
            title="Missing or invalid Http-Method",
            part_index=index,
            offset=offset if method is None else method[2],
        )
    # MB-SUB-3: "A server rejects a part whose Http-Method is CONNECT or TRACE".
    if method[1].upper() in FORBIDDEN_METHODS:
        raise RemoteProtocolError(
            f"Http-Method {method[1]!r} is not allowed in a batch",
            requirement="MB-SUB-3",
            slug="forbidden-method",
            title="Forbidden sub-request method",
            part_index=index,
            offset=method[2],
        )
    ids, content_id = _single(raw, "content-id")
    target = None if content_id is None or len(ids) > 1 else parse_content_id(content_id[1])
    # MB-PART-4: "A server rejects a part with a missing, repeated or malformed Content-Id".
    if target is None:
        if content_id is None:
            detail = "request part has no Content-Id field naming its target"
        elif len(ids) > 1:
            detail = "request part has more than one Content-Id field"
        else:
            detail = f"Content-Id {content_id[1]!r} is not '<' URI-reference '>'"
        raise RemoteProtocolError(
            detail,
            requirement="MB-PART-4",
            slug="invalid-content-id",
            title="Missing or malformed Content-Id",
            part_index=index,
            offset=offset if content_id is None else content_id[2],
        )
    fields = Fields((n, v) for n, v, _ in raw if n.lower() not in ("http-method", "content-id"))
    return RequestPartStart(index, method[1], target, fields, offset)


def _response_start(index: int, raw: Sequence[RawField], offset: int) -> ResponsePartStart:
    for name, _value, at in raw:
        if name.lower() in FORBIDDEN_RESPONSE_FIELDS:
            raise RemoteProtocolError(
                f"response part carries the header field {name!r}, which no response part may carry",
                requirement="MB-RESP-4",
                slug="forbidden-part-field",
                title="Forbidden header field in a part",
                part_index=index,
                offset=at,
            )
    outcomes, outcome_field = _single(raw, "batch-outcome")
    outcome = None if outcome_field is None else outcome_field[1]
    if len(outcomes) > 1 or (outcome is not None and outcome not in OUTCOMES):
        raise RemoteProtocolError(
            f"invalid Batch-Outcome {', '.join(f[1] for f in outcomes)!r}",
            requirement="MB-RESP-5",
            slug="invalid-outcome",
            title="Invalid Batch-Outcome",
            part_index=index,
            offset=outcomes[-1][2] if len(outcomes) == 1 else outcomes[1][2],
        )
    statuses, status_field = _single(raw, "http-status-code")
    if status_field is not None and (len(statuses) > 1 or not _STATUS.fullmatch(status_field[1])):
        raise RemoteProtocolError(
            f"Http-Status-Code {', '.join(f[1] for f in statuses)!r} is not one 3-digit status",
            requirement="MB-RESP-2",
            slug="invalid-status",
            title="Invalid Http-Status-Code",
            part_index=index,
            offset=status_field[2],
        )
    status = None if status_field is None else int(status_field[1])
    ran = outcome in (None, "rolled-back")
    # MB-RESP-2: "Each response part of a sub-request that ran carries exactly one
    # Http-Status-Code"; MB-RESP-5: a skipped part carries "no Http-Status-Code".
    if ran and status is None:
        raise RemoteProtocolError(
            "response part has no Http-Status-Code",
            requirement="MB-RESP-2",
            slug="missing-status",
            title="Missing Http-Status-Code",
            part_index=index,
            offset=offset,
        )
    if not ran and status is not None:
        raise RemoteProtocolError(
            f"a part with Batch-Outcome {outcome!r} must not carry Http-Status-Code",
            requirement="MB-RESP-5" if outcome == "skipped" else "MB-STATUS-6",
            slug="invalid-outcome",
            title="Status on a part that did not run",
            part_index=index,
            offset=status_field[2] if status_field else offset,
        )
    ids, content_id_field = _single(raw, "content-id")
    content_id = None
    if content_id_field is not None:
        content_id = parse_content_id(content_id_field[1]) if len(ids) == 1 else None
        if content_id is None:
            raise RemoteProtocolError(
                f"response Content-Id {content_id_field[1]!r} is repeated or not '<' URI-reference '>'",
                requirement="MB-RESP-3",
                slug="invalid-content-id",
                title="Malformed Content-Id",
                part_index=index,
                offset=content_id_field[2],
            )
    elif outcome != "aborted":
        # MB-RESP-3: "Each response part echoes the request part's Content-Id value".
        raise RemoteProtocolError(
            "response part has no Content-Id echoing its request part",
            requirement="MB-RESP-3",
            slug="invalid-content-id",
            title="Missing Content-Id",
            part_index=index,
            offset=offset,
        )
    fields = Fields(
        (n, v)
        for n, v, _ in raw
        if n.lower() not in ("http-status-code", "batch-outcome", "content-id")
    )
    return ResponsePartStart(index, status, outcome, content_id, fields, offset)
