"""What a part's header section must say, by role.

The parser finds the header section of each part and splits it into field lines; this module
decides what those fields mean. A request part (``Role.REQUEST``) is a sub-request: it needs
exactly one ``Http-Method`` and one ``Content-Id`` and may not carry framing or hop-by-hop
fields. A response part (``Role.RESPONSE``) is a sub-response: it needs ``Http-Status-Code``
unless its ``Batch-Outcome`` says it never ran. Both roles share the part ``Content-Length`` rule.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable, Sequence

from ._errors import LimitExceeded, RemoteProtocolError
from ._events import OUTCOMES, RequestPartStart, ResponsePartStart
from ._fields import Fields, is_token
from ._limits import Limits, numeral_over, shown_numeral
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

#: (name, value) of one field line, in order.
RawField = tuple[str, str]
#: Maps a field's position in the section to the absolute offset of its line; only errors
#: need offsets, so the parser computes them lazily.
Locate = Callable[[int], int]


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


#: Methods repeat across parts, so their token check is cached.
_is_method = functools.lru_cache(maxsize=256)(is_token)


def _scan(raw: Sequence[RawField], names: frozenset[str]) -> dict[str, list[int]]:
    """Positions of the fields named in ``names`` (lower-case), in one pass."""
    found: dict[str, list[int]] = {}
    for i, (name, _value) in enumerate(raw):
        lname = name.lower()
        if lname in names:
            found.setdefault(lname, []).append(i)
    return found


def _blame(positions: list[int]) -> int:
    """The field to blame: the first repeat, else the only one."""
    return positions[1] if len(positions) > 1 else positions[0]


_REQUEST_NAMES = FORBIDDEN_REQUEST_FIELDS | {"http-method", "content-id", "content-length"}
_RESPONSE_NAMES = FORBIDDEN_RESPONSE_FIELDS | {
    "http-status-code",
    "batch-outcome",
    "content-id",
    "content-length",
}


def _content_length(
    raw: Sequence[RawField], at: list[int], index: int, limits: Limits, offset: int, locate: Locate
) -> int:
    first = raw[at[0]][1]
    if len(at) > 1 or not _DIGITS.fullmatch(first):
        # MB-WIRE-20: "A receiver rejects a part with more than one Content-Length field line or
        # a Content-Length that is not 1*DIGIT" -- equal repeats included.
        values = ", ".join(raw[i][1] for i in at)
        raise RemoteProtocolError(
            f"part Content-Length {values!r} is not one field line of decimal digits",
            requirement="MB-WIRE-20",
            slug="content-length-mismatch",
            title="Part Content-Length mismatch",
            part_index=index,
            offset=locate(_blame(at)),
        )
    if numeral_over(first, limits.max_part_bytes):
        raise LimitExceeded(
            f"part Content-Length {shown_numeral(first)} is over the limit of "
            f"{limits.max_part_bytes} octets",
            limit="max_part_bytes",
            value=limits.max_part_bytes,
            part_index=index,
            offset=offset,
        )
    # MB-WIRE-22: leading zeros are digits of the numeral, not of the number.
    return int(first.lstrip("0") or "0")


def start_part(
    role: Role,
    index: int,
    raw: Sequence[RawField],
    offset: int,
    limits: Limits,
    locate: Locate,
) -> tuple[RequestPartStart | ResponsePartStart, int | None, int | None]:
    """The start event of a part, its declared Content-Length and the position of that field
    in the section (both None when the part has none)."""
    if role is Role.REQUEST:
        found = _scan(raw, _REQUEST_NAMES)
        event: RequestPartStart | ResponsePartStart = _request_start(
            index, raw, found, offset, locate
        )
    else:
        found = _scan(raw, _RESPONSE_NAMES)
        event = _response_start(index, raw, found, offset, locate)
    at = found.get("content-length")
    if at is None:
        return event, None, None
    return event, _content_length(raw, at, index, limits, offset, locate), at[0]


def _fields_without(
    raw: Sequence[RawField], found: dict[str, list[int]], names: tuple[str, ...]
) -> Fields:
    drop = {i for name in names for i in found.get(name, ())}
    return Fields(raw if not drop else [pair for i, pair in enumerate(raw) if i not in drop])


def _fail(
    index: int, detail: str, requirement: str, slug: str, title: str, at: int
) -> RemoteProtocolError:
    return RemoteProtocolError(
        detail, requirement=requirement, slug=slug, title=title, part_index=index, offset=at
    )


def _request_start(
    index: int, raw: Sequence[RawField], found: dict[str, list[int]], offset: int, locate: Locate
) -> RequestPartStart:
    forbidden = FORBIDDEN_REQUEST_FIELDS & found.keys()
    if forbidden:
        # MB-PART-10: "A server rejects a request part that carries a forbidden header field".
        first = min(found[n][0] for n in forbidden)
        raise _fail(
            index,
            f"request part carries the forbidden header field {raw[first][0]!r}",
            "MB-PART-10",
            "forbidden-part-field",
            "Forbidden header field in a part",
            locate(first),
        )
    methods = found.get("http-method")
    method = raw[methods[0]][1] if methods else None
    # MB-PART-2: "A server rejects a part with a missing, repeated or invalid Http-Method".
    if methods is None or method is None or len(methods) > 1 or not _is_method(method):
        if methods is None:
            detail, at = "request part has no Http-Method field", offset
        elif len(methods) > 1:
            detail, at = "request part has more than one Http-Method field", locate(methods[1])
        else:
            detail, at = (
                f"request part has an invalid Http-Method field: {method!r}",
                locate(methods[0]),
            )
        raise _fail(
            index, detail, "MB-PART-2", "invalid-http-method", "Missing or invalid Http-Method", at
        )
    # MB-SUB-3: "A server rejects a part whose Http-Method is CONNECT or TRACE". Method names
    # are case-sensitive (spec 3.2.1): `trace` is another, unknown method, "answered in its
    # part like any unknown method ...; it is not an envelope error".
    if method in FORBIDDEN_METHODS:
        raise _fail(
            index,
            f"Http-Method {method!r} is not allowed in a batch",
            "MB-SUB-3",
            "forbidden-method",
            "Forbidden sub-request method",
            locate(methods[0]),
        )
    ids = found.get("content-id")
    target = parse_content_id(raw[ids[0]][1]) if ids and len(ids) == 1 else None
    # MB-PART-4: "A server rejects a part with a missing, repeated or malformed Content-Id".
    if ids is None or target is None:
        if ids is None:
            detail, at = "request part has no Content-Id field naming its target", offset
        elif len(ids) > 1:
            detail, at = "request part has more than one Content-Id field", locate(ids[1])
        else:
            detail, at = (
                f"Content-Id {raw[ids[0]][1]!r} is not '<' URI-reference '>'",
                locate(ids[0]),
            )
        raise _fail(
            index, detail, "MB-PART-4", "invalid-content-id", "Missing or malformed Content-Id", at
        )
    fields = _fields_without(raw, found, ("http-method", "content-id"))
    return RequestPartStart(index, method, target, fields, offset, locate(ids[0]))


def _response_start(
    index: int, raw: Sequence[RawField], found: dict[str, list[int]], offset: int, locate: Locate
) -> ResponsePartStart:
    if FORBIDDEN_RESPONSE_FIELDS & found.keys():
        first = min(found[n][0] for n in FORBIDDEN_RESPONSE_FIELDS & found.keys())
        raise _fail(
            index,
            f"response part carries the header field {raw[first][0]!r}, which no response part may carry",
            "MB-RESP-4",
            "forbidden-part-field",
            "Forbidden header field in a part",
            locate(first),
        )
    outcomes = found.get("batch-outcome")
    outcome = raw[outcomes[0]][1] if outcomes else None
    if outcomes and (len(outcomes) > 1 or not is_token(outcome or "")):
        raise _fail(
            index,
            f"invalid Batch-Outcome {', '.join(raw[i][1] for i in outcomes)!r}",
            "MB-RESP-5",
            "invalid-outcome",
            "Invalid Batch-Outcome",
            locate(_blame(outcomes)),
        )
    statuses = found.get("http-status-code")
    status_text = raw[statuses[0]][1] if statuses else None
    if statuses and (len(statuses) > 1 or not _STATUS.fullmatch(status_text or "")):
        raise _fail(
            index,
            f"Http-Status-Code {', '.join(raw[i][1] for i in statuses)!r} is not one 3-digit status",
            "MB-RESP-2",
            "invalid-status",
            "Invalid Http-Status-Code",
            locate(_blame(statuses)),
        )
    status = None if status_text is None else int(status_text)
    if outcome is not None and outcome not in OUTCOMES:
        # MB-RESP-8: a client treats an outcome it does not recognise as "not a normal
        # sub-response" and reports it as unknown; the parser passes it on unjudged.
        return ResponsePartStart(
            index,
            status,
            outcome,
            _content_id_or_none(raw, found),
            _fields_without(raw, found, _RESPONSE_OWN),
            offset,
        )
    ran = outcome in (None, "rolled-back")
    # MB-RESP-2: "Each response part of a sub-request that ran carries exactly one
    # Http-Status-Code"; MB-RESP-5: a skipped part carries "no Http-Status-Code".
    if ran and status is None:
        raise _fail(
            index,
            "response part has no Http-Status-Code",
            "MB-RESP-2",
            "missing-status",
            "Missing Http-Status-Code",
            offset,
        )
    if not ran and statuses:
        raise _fail(
            index,
            f"a part with Batch-Outcome {outcome!r} must not carry Http-Status-Code",
            "MB-RESP-5" if outcome == "skipped" else "MB-STATUS-6",
            "invalid-outcome",
            "Status on a part that did not run",
            locate(statuses[0]),
        )
    ids = found.get("content-id")
    content_id = None
    if ids:
        content_id = parse_content_id(raw[ids[0]][1]) if len(ids) == 1 else None
        if content_id is None:
            raise _fail(
                index,
                f"response Content-Id {raw[_blame(ids)][1]!r} is repeated or not '<' URI-reference '>'",
                "MB-RESP-3",
                "invalid-content-id",
                "Malformed Content-Id",
                locate(_blame(ids)),
            )
    elif outcome != "aborted":
        # MB-RESP-3: "Each response part echoes the request part's Content-Id value".
        raise _fail(
            index,
            "response part has no Content-Id echoing its request part",
            "MB-RESP-3",
            "invalid-content-id",
            "Missing Content-Id",
            offset,
        )
    fields = _fields_without(raw, found, _RESPONSE_OWN)
    return ResponsePartStart(index, status, outcome, content_id, fields, offset)


_RESPONSE_OWN = ("http-status-code", "batch-outcome", "content-id")


def _content_id_or_none(raw: Sequence[RawField], found: dict[str, list[int]]) -> str | None:
    ids = found.get("content-id")
    return parse_content_id(raw[ids[0]][1]) if ids and len(ids) == 1 else None
