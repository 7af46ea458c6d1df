"""The mixbatch codec: sans-IO parsing and writing of multipart/mixed batches.

Bytes go in, events come out; nothing here imports asyncio, socket or h11. The server, the
proxy and the client are thin adapters around ``BatchParser`` and ``BatchWriter``.
"""

from __future__ import annotations

from ._errors import (
    PROBLEM_TYPE_BASE,
    IncompleteBatch,
    LimitExceeded,
    LocalProtocolError,
    MixbatchError,
    RemoteProtocolError,
)
from ._events import BatchEnd, Event, PartData, PartEnd, RequestPartStart, ResponsePartStart
from ._fields import (
    HOP_BY_HOP_FIELDS,
    PART_CONTROL_FIELDS,
    FieldPair,
    Fields,
    end_to_end,
    is_field_value,
    is_token,
)
from ._limits import (
    MAX_BATCH_BYTES,
    MAX_BOUNDARY_LENGTH,
    MAX_PART_BYTES,
    MAX_PART_FIELDS,
    MAX_PART_HEADER_BYTES,
    MAX_PARTS,
    MIN_RECOMMENDED_BOUNDARY_LENGTH,
    Limits,
    numeral_over,
    shown_numeral,
)
from ._mediatype import (
    BATCH_MEDIA_TYPE,
    format_batch_content_type,
    is_valid_boundary,
    make_boundary,
    parse_batch_content_type,
    parse_media_type,
)
from ._parser import BatchParser
from ._parts import FORBIDDEN_METHODS, FORBIDDEN_REQUEST_FIELDS, Role, parse_content_id
from ._target import is_uri_reference, remove_dot_segments, resolve_part_target, resolve_target
from ._writer import BatchWriter

__all__ = [
    "BATCH_MEDIA_TYPE",
    "FORBIDDEN_METHODS",
    "FORBIDDEN_REQUEST_FIELDS",
    "HOP_BY_HOP_FIELDS",
    "MAX_BATCH_BYTES",
    "MAX_BOUNDARY_LENGTH",
    "MAX_PARTS",
    "MAX_PART_BYTES",
    "MAX_PART_FIELDS",
    "MAX_PART_HEADER_BYTES",
    "MIN_RECOMMENDED_BOUNDARY_LENGTH",
    "PART_CONTROL_FIELDS",
    "PROBLEM_TYPE_BASE",
    "BatchEnd",
    "BatchParser",
    "BatchWriter",
    "Event",
    "FieldPair",
    "Fields",
    "IncompleteBatch",
    "LimitExceeded",
    "Limits",
    "LocalProtocolError",
    "MixbatchError",
    "PartData",
    "PartEnd",
    "RemoteProtocolError",
    "RequestPartStart",
    "ResponsePartStart",
    "Role",
    "end_to_end",
    "format_batch_content_type",
    "is_field_value",
    "is_token",
    "is_uri_reference",
    "is_valid_boundary",
    "make_boundary",
    "numeral_over",
    "parse_batch_content_type",
    "parse_content_id",
    "parse_media_type",
    "remove_dot_segments",
    "resolve_part_target",
    "resolve_target",
    "shown_numeral",
]
