"""Content negotiation on ``Accept`` (RFC 9110 §12.5.1); ``Prefer`` and ``Batch-Mode`` lists.

``choose(accept, offers)`` ranks each offered media type by the quality of the most specific
media range that matches it (exact type beats ``type/*`` beats ``*/*``), drops q=0, and breaks
ties by the order of ``offers``, so the server's first offer wins when the client is indifferent
(MB-MULTI-1: multipart/mixed "when Accept is absent or admits it equally"). A malformed member
of Accept is ignored rather than failing the request, as RFC 9110 §12.5.1 permits.

Accept is a list field, so several Accept lines are one list (RFC 9110 §5.3: a recipient "MAY
combine multiple field lines ... into one field line" with commas, "without changing the
semantics"): ``accept_of`` reads them all, so a second line is never ignored. The reference
server, the batching proxy and the ASGI middleware all negotiate through this module.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mixbatch.codec import Fields

__all__ = [
    "MULTIPART_MIXED",
    "accept_of",
    "accepts_multipart",
    "batch_modes",
    "choose",
    "parse_accept",
    "parse_prefer",
]

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_RANGE = re.compile(rf"\s*({_TOKEN})/({_TOKEN})\s*((?:;.*)?)$", re.S)
_QVALUE = re.compile(r"(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)")
#: One parameter of a media range (RFC 9110 §5.6.6: `parameter-name "=" parameter-value`,
#: a token or a quoted-string), with the optional whitespace around it.
_PARAMETER = re.compile(rf'[ \t]*{_TOKEN}=(?:{_TOKEN}|"(?:[^"\\]|\\.)*")[ \t]*', re.S)

MediaRange = tuple[str, str, float]

#: The batch representation every batch endpoint offers (MB-MULTI-1).
MULTIPART_MIXED = "multipart/mixed"


def accept_of(headers: Fields) -> str | None:
    """Every Accept line of ``headers`` as one list value, or None when there is none."""
    return ", ".join(headers.get_all("Accept")) or None


def parse_accept(value: str) -> list[MediaRange]:
    """The media ranges of an Accept value as ``(type, subtype, q)``, lower-cased."""
    ranges: list[MediaRange] = []
    # A comma inside a parameter's quoted-string separates no member (RFC 9110 §5.6.4).
    for member in _outside_quotes(value, ","):
        if not member.strip():
            continue
        match = _RANGE.match(member)
        if match is None:
            continue
        kind, sub, params = match.group(1).lower(), match.group(2).lower(), match.group(3)
        if kind == "*" and sub != "*":
            continue
        quality = 1.0
        # Spec 6.1: a member whose parameters do not parse is no media range, and "it never
        # reads such an element as a form" (an empty parameter is none: RFC 9110 §5.6.6).
        members = [p for p in _outside_quotes(params, ";")[1:] if p.strip(" \t")]
        if not all(_PARAMETER.fullmatch(p) for p in members):
            continue
        for param in members:
            name, _, raw = param.partition("=")
            if name.strip().lower() == "q":
                raw = raw.strip()
                quality = float(raw) if _QVALUE.fullmatch(raw) else -1.0
        if quality >= 0:
            ranges.append((kind, sub, quality))
    return ranges


def _quality(offer: str, ranges: list[MediaRange]) -> float:
    kind, _, sub = offer.partition("/")
    best_specificity, best_q = -1, 0.0
    for r_kind, r_sub, quality in ranges:
        if r_kind == kind and r_sub == sub:
            specificity = 2
        elif r_kind == kind and r_sub == "*":
            specificity = 1
        elif r_kind == "*":
            specificity = 0
        else:
            continue
        if specificity > best_specificity:
            best_specificity, best_q = specificity, quality
    return best_q


def choose(accept: str | None, offers: Sequence[str]) -> str | None:
    """The best of ``offers`` for ``accept``, or ``None`` when Accept admits none of them."""
    if accept is None or not accept.strip():
        return offers[0] if offers else None
    ranges = parse_accept(accept)
    if not ranges:
        # Every member was malformed: treat the field as absent rather than refusing.
        return offers[0] if offers else None
    best: str | None = None
    best_q = 0.0
    for offer in offers:
        quality = _quality(offer, ranges)
        if quality > best_q:
            best, best_q = offer, quality
    return best


def accepts_multipart(accept: str | None) -> bool:
    """True when ``accept`` admits multipart/mixed, as ``choose`` judges it: the most specific
    matching range decides, q=0 refuses, an empty or wholly malformed Accept counts as absent.
    The proxy's and the middleware's 406 (MB-STATUS-9) fall on the same requests as the
    server's."""
    return choose(accept, (MULTIPART_MIXED,)) is not None


def _outside_quotes(value: str, sep: str) -> list[str]:
    """`value` split at each `sep` that is not inside a quoted-string (RFC 9110 §5.6.4)."""
    pieces, start, quoted, escaped = [], 0, False, False
    for i, c in enumerate(value):
        if escaped:
            escaped = False
        elif quoted and c == "\\":
            escaped = True
        elif c == '"':
            quoted = not quoted
        elif c == sep and not quoted:
            pieces.append(value[start:i])
            start = i + 1
    pieces.append(value[start:])
    return pieces


def _word(raw: str) -> str:
    """The value a ``word`` stands for (RFC 7240 §2): a token as written, a quoted-string
    without its quotes and with each quoted-pair read as the character after its backslash
    (RFC 9110 §5.6.4), so ``"st\\op"`` is ``stop``."""
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        return raw
    return re.sub(r"\\(.)", r"\1", raw[1:-1], flags=re.S)


def parse_prefer(values: Sequence[str]) -> dict[str, str]:
    """Preferences of RFC 7240 Prefer fields as ``{lower-cased name: value}``; first wins.

    RFC 7240 §2: ``preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )``,
    preferences separated by commas; a quoted ``word`` may hold commas and semicolons, which
    then separate nothing."""
    preferences: dict[str, str] = {}
    for value in values:
        for member in _outside_quotes(value, ","):
            token = _outside_quotes(member, ";")[0].strip()
            if not token:
                continue
            name, _, raw = token.partition("=")
            name = name.strip().lower()
            if name and name not in preferences:
                preferences[name] = _word(raw.strip())
    return preferences


def batch_on_error(values: Sequence[str]) -> str | None:
    """The batch-on-error preference of RFC 7240 Prefer fields: "continue", "stop", or None when
    absent or unrecognised.

    MB-PROC-11: "A batch-on-error preference with an unrecognised value is treated as absent".
    MB-PROC-13: the preference is recognised "whatever the case of its name and value", quoted or
    not. The server, the proxy and the middleware all read it here, so they cannot disagree.
    """
    value = (parse_prefer(values).get("batch-on-error") or "").lower()
    return value if value in ("continue", "stop") else None


def batch_modes(values: Sequence[str]) -> frozenset[str]:
    """The modes that Batch-Mode field lines list, compared case-sensitively (spec 3.4).

    MB-PROC-17: a server "MUST read `Batch-Mode` as a comma-separated list of modes". The field
    is ``1#mode-value`` under RFC 9110 §5.6.1: elements are split on commas and trimmed of OWS,
    and empty elements are dropped, because "a recipient MUST parse and ignore a reasonable
    number of empty list elements". So ``atomic,`` and ``, atomic`` list atomic, and so do
    ``atomic, atomic`` and two ``atomic`` lines. Field lines that hold no element at all list
    the empty mode, which no endpoint offers, so they are answered 501 as an unknown mode is.
    The server and the middleware read the field here, so they cannot disagree.
    """
    if not values:
        return frozenset()
    modes = frozenset(e.strip(" \t") for value in values for e in value.split(",")) - {""}
    return modes or frozenset({""})
