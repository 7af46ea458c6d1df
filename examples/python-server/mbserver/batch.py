"""The batch request up to the point where parts run: the top-level Content-Type and
boundary (MB-WIRE-2, MB-WIRE-4), then the envelope and its parts (envelope.py,
parts.py). Everything here happens before any part runs (MB-PROC-1, MB-STATUS-2)."""

from . import envelope, targets
from .mediatype import GrammarError, parse_media_type, valid_boundary
from .parts import PartValidator
from .problems import Problem

ACCEPT_POST = ("Accept-Post", "multipart/mixed")


def unsupported_media_type(detail):
    return Problem(415, "unsupported-media-type", "Unsupported batch media type", detail,
                   requirement="MB-WIRE-2", headers=[ACCEPT_POST])


def bad_boundary(detail):
    return Problem(400, "invalid-boundary", "Invalid boundary", detail, requirement="MB-WIRE-4")


def batch_too_large(limit, close=False):
    from .problems import limit_exceeded
    return limit_exceeded("max_batch_bytes", limit, "Batch too large",
                          f"The batch content exceeds max_batch_bytes ({limit} octets); "
                          "no part ran.", close=close)


def boundary_from(content_type_lines):
    """Return the boundary (bytes) named by the Content-Type field lines, or raise."""
    if not content_type_lines:
        raise unsupported_media_type("The batch request has no Content-Type; "
                                     "a batch is multipart/mixed.")
    if len(content_type_lines) > 1:
        raise bad_boundary("The batch request carries more than one Content-Type field line.")
    try:
        t, st, params = parse_media_type(content_type_lines[0])
    except GrammarError as e:
        partial = getattr(e, "partial", None)
        if partial == ("multipart", "mixed"):
            raise bad_boundary(f"The Content-Type parameters do not parse ({e}).")
        raise unsupported_media_type("The Content-Type names no media type.")
    if (t, st) != ("multipart", "mixed"):
        raise unsupported_media_type(f"The batch media type is {t}/{st}, not multipart/mixed.")
    values = [v for n, v in params if n == "boundary"]
    if not values:
        raise bad_boundary("The Content-Type has no boundary parameter.")
    if len(values) > 1:
        raise bad_boundary("The Content-Type repeats the boundary parameter.")
    b = values[0]
    if not valid_boundary(b):
        raise bad_boundary("The boundary is empty, longer than 70 characters, ends in a space "
                           "or holds a character outside bchars.")
    return b.encode("latin-1")


def parse_batch(data, content_type, scheme, authority, target, limits, is_batch_path):
    """Parse and validate a whole batch; returns the PartRequests. content_type is one
    field value (vectorcheck) or a list of field lines (the server)."""
    if len(data) > limits.max_batch_bytes:
        raise batch_too_large(limits.max_batch_bytes)
    lines = [content_type] if isinstance(content_type, str) else content_type
    boundary = boundary_from(lines)
    origin = targets.Origin(scheme, authority)
    validator = PartValidator(origin, target, is_batch_path)
    envelope.parse(data, boundary, limits, validator)
    return validator.parts
