"""The batch media type: parsing ``Content-Type: multipart/mixed; boundary=...`` and making
boundaries.

RFC 9110 §8.3.1 and RFC 2046 §5.1.1 give the grammar enforced here:

    media-type  = type "/" subtype parameters
    parameters  = *( OWS ";" OWS [ parameter ] )
    parameter   = parameter-name "=" parameter-value
    parameter-value = ( token / quoted-string )
    boundary    := 0*69<bchars> bcharsnospace
    bchars      := bcharsnospace / " "
    bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." /
                     "/" / ":" / "=" / "?"
"""

from __future__ import annotations

import re
import secrets

from ._errors import RemoteProtocolError
from ._limits import MAX_BOUNDARY_LENGTH

__all__ = [
    "BATCH_MEDIA_TYPE",
    "format_batch_content_type",
    "is_valid_boundary",
    "make_boundary",
    "parse_batch_content_type",
    "parse_media_type",
]

BATCH_MEDIA_TYPE = "multipart/mixed"

_BOUNDARY = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t !-~\x80-\xff])*"'
_MEDIA_TYPE = re.compile(rf"[ \t]*({_TOKEN})/({_TOKEN})[ \t]*")
_PARAMETER = re.compile(rf";[ \t]*(?:({_TOKEN})=({_TOKEN}|{_QUOTED}))?[ \t]*")
_NEEDS_NO_QUOTES = re.compile(_TOKEN)


def is_valid_boundary(boundary: str) -> bool:
    """True if ``boundary`` meets RFC 2046 §5.1.1 (MB-WIRE-3)."""
    return _BOUNDARY.fullmatch(boundary) is not None


def make_boundary() -> str:
    """A fresh boundary of 24 characters from [A-Za-z0-9_-], made with a CSPRNG.

    MB-WIRE-5: "A sender makes a boundary of at least 16 characters from [A-Za-z0-9_-] with a
    CSPRNG." 18 random octets carry 144 bits, so a collision with any body is negligible, and the
    alphabet needs no quoting in the Content-Type.
    """
    return secrets.token_urlsafe(18)


def format_batch_content_type(boundary: str) -> str:
    """The Content-Type value announcing a batch with ``boundary``, quoted only when needed."""
    if not is_valid_boundary(boundary):
        raise ValueError(f"invalid boundary {boundary!r}")
    if _NEEDS_NO_QUOTES.fullmatch(boundary):
        return f"{BATCH_MEDIA_TYPE}; boundary={boundary}"
    return f'{BATCH_MEDIA_TYPE}; boundary="{boundary}"'


def parse_media_type(value: str) -> tuple[str, dict[str, str]]:
    """Split a media type into its lower-cased ``type/subtype`` and its parameters.

    Parameter names are lower-cased; quoted values are unquoted. A repeated parameter name or a
    syntax error raises ``ValueError``.
    """
    match = _MEDIA_TYPE.match(value)
    if match is None:
        raise ValueError(f"not a media type: {value!r}")
    media_type = f"{match.group(1)}/{match.group(2)}".lower()
    params: dict[str, str] = {}
    pos = match.end()
    while pos < len(value):
        param = _PARAMETER.match(value, pos)
        if param is None:
            raise ValueError(f"bad media type parameter at character {pos}: {value[pos:]!r}")
        name, raw = param.group(1), param.group(2)
        if name is not None:
            key = name.lower()
            if key in params:
                raise ValueError(f"repeated media type parameter {name!r}")
            if raw.startswith('"'):
                raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
            params[key] = raw
        pos = param.end()
    return media_type, params


def parse_batch_content_type(value: str | None) -> str:
    """The boundary of a batch's Content-Type value.

    Raises ``RemoteProtocolError`` with status 415 when the media type is not multipart/mixed
    (MB-WIRE-2), and with status 400 when the boundary is missing or invalid (MB-WIRE-4).
    """
    try:
        media_type, params = parse_media_type(value or "")
    except ValueError as exc:
        if value and value.lower().lstrip().startswith(BATCH_MEDIA_TYPE):
            raise RemoteProtocolError(
                f"Content-Type {value!r} is not a valid media type: {exc}",
                requirement="MB-WIRE-4",
                slug="invalid-boundary",
                title="Invalid boundary parameter",
            ) from None
        raise _unsupported(value) from None
    if media_type != BATCH_MEDIA_TYPE:
        raise _unsupported(value)
    boundary = params.get("boundary")
    if boundary is None:
        raise RemoteProtocolError(
            "multipart/mixed without a boundary parameter",
            requirement="MB-WIRE-4",
            slug="invalid-boundary",
            title="Invalid boundary parameter",
        )
    # MB-WIRE-3: "A boundary is 1 to 70 bchars (RFC 2046 §5.1.1) and does not end in a space."
    if not is_valid_boundary(boundary):
        length = f" ({len(boundary)} characters; at most {MAX_BOUNDARY_LENGTH})"
        raise RemoteProtocolError(
            f"invalid boundary {boundary!r}{length if len(boundary) > MAX_BOUNDARY_LENGTH else ''}",
            requirement="MB-WIRE-4",
            slug="invalid-boundary",
            title="Invalid boundary parameter",
        )
    return boundary


def _unsupported(value: str | None) -> RemoteProtocolError:
    return RemoteProtocolError(
        f"a batch must be {BATCH_MEDIA_TYPE}, got Content-Type {value!r}",
        requirement="MB-WIRE-2",
        status_hint=415,
        slug="unsupported-media-type",
        title="Unsupported media type",
    )
