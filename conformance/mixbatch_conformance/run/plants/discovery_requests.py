"""Planted violations of the capabilities document written from fields of the discovery
request (spec 9.2, MB-LIMIT-2).

Each is a mistake a competent implementer makes:

    capabilities-representations-by-accept  the document's representations listed in the
                                            order the OPTIONS request's Accept ranks them, so
                                            an Accept that puts the XML or JSON form first
                                            moves multipart/mixed from the head of the list
                                            (MB-LIMIT-2)
    capabilities-minimal-for-return-minimal `Prefer: return=minimal` honoured on OPTIONS: the
                                            document cut to its version and limits, without
                                            the profiles and representations the schema
                                            requires (MB-LIMIT-2); a minimal document that
                                            kept every required member would be allowed
                                            (RFC 7240 §4.2)

Limits that differ for a request with credentials are not planted: no sentence of the spec
forbids limits that differ by principal, so the check notes them.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import map_capabilities, split_quoted
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _ranges(accept: str) -> list[tuple[str, float]]:
    """The media ranges of an Accept value with their weights (1 when none reads)."""
    out: list[tuple[str, float]] = []
    for member in split_quoted(accept, ",", '"'):
        name, *params = (p.strip() for p in member.split(";"))
        weight = 1.0
        for p in params:
            key, _, value = p.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 1.0
        if name:
            out.append((name.lower(), weight))
    return out


def _quality(ranges: list[tuple[str, float]], media: str) -> float:
    """The weight the most specific range matching `media` gives it (0 when none matches)."""
    kind = media.split("/", 1)[0]
    for pattern in (media, f"{kind}/*", "*/*"):
        for name, weight in ranges:
            if name == pattern:
                return weight
    return 0.0


def _by_accept(req: RelayRequest, resp: RelayResponse) -> None:
    """Representations sorted by the request's Accept, highest weight first (stable)."""
    accept = req.get("Accept")
    if not accept:
        return
    ranges = _ranges(accept)

    def edit(doc: dict[str, object]) -> None:
        reps = doc.get("representations")
        if isinstance(reps, list):
            doc["representations"] = sorted(reps, key=lambda r: -_quality(ranges, str(r)))

    map_capabilities(edit)(req, resp)


def _when(
    pred: Callable[[RelayRequest], bool], fn: Callable[[dict[str, object]], None]
) -> Callable[[RelayRequest, RelayResponse], None]:
    """Edit the capabilities document of the OPTIONS answers `pred` selects."""
    edit = map_capabilities(fn)

    def on_response(req: RelayRequest, resp: RelayResponse) -> None:
        if pred(req):
            edit(req, resp)

    return on_response


def _minimal_asked(req: RelayRequest) -> bool:
    return "return=minimal" in (req.get("Prefer") or "").replace(" ", "").lower()


def _minimal(doc: dict[str, object]) -> None:
    for name in list(doc):
        if name not in ("spec_version", "limits"):
            del doc[name]


def _absolute_form(req: RelayRequest) -> bool:
    return "://" in req.target.split("?")[0]


def _endpoint_as_addressed(target: str) -> Callable[[dict[str, object]], None]:
    def edit(doc: dict[str, object]) -> None:
        doc["endpoint"] = target.split("?")[0]

    return edit


def _endpoint_from_target(req: RelayRequest, resp: RelayResponse) -> None:
    """The document's endpoint written as the request addressed it, cut at any query."""
    if _absolute_form(req):
        map_capabilities(_endpoint_as_addressed(req.target))(req, resp)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "capabilities-representations-by-accept",
        "MB-LIMIT-2 representations ranked by the request's Accept",
        ("capabilities-whatever-request-fields",),
        on_response=_by_accept,
    ),
    P(
        "capabilities-minimal-for-return-minimal",
        "MB-LIMIT-2 document cut short of required members for Prefer: return=minimal",
        ("capabilities-whatever-request-fields",),
        on_response=_when(_minimal_asked, _minimal),
    ),
    P(
        "capabilities-endpoint-as-addressed",
        "MB-LIMIT-2 the document's endpoint the absolute-form request-target as addressed",
        ("capabilities-whatever-request-fields",),
        on_response=_endpoint_from_target,
    ),
)
