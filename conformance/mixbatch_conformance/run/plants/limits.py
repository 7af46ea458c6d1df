"""Planted violations of the limits a server publishes and enforces.

Covers MB-LIMIT-*: limits left out of the capabilities document or published other than
enforced (one lower, two in each other's place), a limit off by one, the OPTIONS answer without its document or Accept-Post, OPTIONS
negotiated against the batch representations (406 for an Accept naming only the capabilities
document), and a problem that names the limit otherwise than the document spells it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    accepts,
    body_has,
    boundary_of,
    is_batch,
    map_capabilities,
    map_response,
    problem,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _limits(**values: int | None) -> Callable[[dict[str, object]], None]:
    def edit(doc: dict[str, object]) -> None:
        limits = doc.get("limits")
        if isinstance(limits, dict):
            for k, v in values.items():
                if v is None:
                    limits.pop(k, None)
                else:
                    limits[k] = v

    return edit


def _swapped(a: str, b: str) -> Callable[[dict[str, object]], None]:
    """The document's limits `a` and `b` written in each other's place, as a format string
    given its arguments in the wrong order writes them."""

    def edit(doc: dict[str, object]) -> None:
        limits = doc.get("limits")
        if isinstance(limits, dict) and a in limits and b in limits:
            limits[a], limits[b] = limits[b], limits[a]

    return edit


#: What a server offers as batch representations, which a planted OPTIONS negotiates against.
_BATCH_TYPES = (
    "multipart/",
    "application/vnd.mixbatch.multistatus+json",
    "application/xml",
    "application/*",
    "*/*",
)


def _options_negotiated_as_batch(req: RelayRequest, resp: RelayResponse) -> None:
    """OPTIONS on the endpoint answered 406 when its Accept names no batch representation."""
    accept = (req.get("Accept") or "").lower()
    if req.method == "OPTIONS" and accept and not any(t in accept for t in _BATCH_TYPES):
        problem(resp, 406, "MB-STATUS-9")


def _count_parts(req: RelayRequest) -> int:
    return req.body.count(b"\r\nContent-Id:") + req.body.startswith(b"Content-Id:")


def _dash_boundaries(req: RelayRequest) -> int:
    """The parts of a batch counted as its dash-boundaries, wherever they stand, less the close
    delimiter's: a count that takes a body quoting the boundary for parts."""
    b = boundary_of(req)
    return req.body.count(b"--" + b.encode("latin-1")) - 1 if b else 0


def _problem_limit(value: str) -> Callable[[RelayResponse], None]:
    def edit(resp: RelayResponse) -> None:
        if resp.status in (413, 431) and "problem+json" in (resp.get("Content-Type") or ""):
            doc = json.loads(resp.body)
            doc["limit"] = value
            resp.body = json.dumps(doc).encode()

    return edit


#: The reference server's max_part_header_bytes, and a part header section as a regular
#: expression (its field lines, up to the empty line).
REFERENCE_SECTION_LIMIT = 8192
_SECTION = re.compile(rb"(?m)^--[^\r\n]*\r\n((?:[^\r\n]+\r\n)+)\r\n")


def _section_wraps_under_limit(req: RelayRequest) -> bool:
    """A part header section past 2^16 octets that a 16-bit count takes for one within the
    limit."""
    return is_batch(req) and any(
        len(m.group(1)) >= 1 << 16 and len(m.group(1)) % (1 << 16) <= REFERENCE_SECTION_LIMIT
        for m in _SECTION.finditer(req.body)
    )


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-LIMIT-1: publish the limits enforced.
    P(
        "limits-not-published",
        "MB-LIMIT-1 absent",
        ("options-capabilities",),
        on_response=map_capabilities(_limits(max_parts=None)),
    ),
    P(
        "max-parts-published-below-enforced",
        "MB-LIMIT-1 published lower",
        ("reject-too-many-parts",),
        on_response=map_capabilities(_limits(max_parts=50)),
    ),
    P(
        "max-parts-enforced-one-below",
        "MB-LIMIT-1 parts off by one",
        ("limit-parts-at-limit",),
        on_response=refuses(lambda r: is_batch(r) and _count_parts(r) >= 10000, 413, "MB-STATUS-3"),
    ),
    P(
        "parts-counted-by-dash-boundary",
        "MB-LIMIT-1 parts counted by every dash-boundary in the content, mid-line ones too",
        ("limit-parts-at-limit",),
        on_response=refuses(
            lambda r: is_batch(r) and _dash_boundaries(r) > 10000, 413, "MB-STATUS-3"
        ),
    ),
    P(
        "part-limits-published-swapped",
        "MB-LIMIT-1 max_part_header_bytes and max_part_fields published in each other's place",
        ("limit-part-header-bytes-one-over",),
        on_response=map_capabilities(_swapped("max_part_header_bytes", "max_part_fields")),
    ),
    P(
        "header-limit-enforced-one-below",
        "MB-LIMIT-1 header octets off by one",
        ("limit-part-header-bytes-at-limit",),
        on_response=refuses(body_has(rb"X-Fill: f{8000}"), 431, "MB-STATUS-3"),
    ),
    P(
        "header-bytes-counted-in-16-bits",
        "MB-STATUS-3 a part header section's octets counted in 16 bits that wrap",
        ("limit-part-header-bytes-past-2-16",),
        on_response=accepts(_section_wraps_under_limit),
    ),
    P(
        "part-bytes-enforced-one-below",
        "MB-LIMIT-1 part octets off by one",
        ("limit-part-bytes-at-limit",),
        on_response=refuses(lambda r: is_batch(r) and len(r.body) > 16_000_000, 413, "MB-STATUS-3"),
    ),
    # MB-LIMIT-2: OPTIONS with the document and Accept-Post.
    P(
        "options-without-accept-post",
        "MB-LIMIT-2 Accept-Post",
        ("options-capabilities",),
        on_response=lambda q, r: r.set("Accept-Post", None) if q.method == "OPTIONS" else None,
    ),
    P(
        "options-capabilities-as-json",
        "MB-LIMIT-2 media type",
        ("options-capabilities",),
        on_response=lambda q, r: (
            r.set("Content-Type", "application/json") if q.method == "OPTIONS" else None
        ),
    ),
    # MB-LIMIT-4: the problem names the limit as the document spells it.
    P(
        "limit-member-misspelled",
        "MB-LIMIT-4",
        ("reject-too-many-parts",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, _problem_limit("maxParts")),
    ),
    # MB-LIMIT-5: max_part_fields enforced and published, 431 over it.
    P(
        "part-fields-limit-not-enforced",
        "MB-LIMIT-5 not enforced",
        ("limit-part-fields-one-over",),
        on_response=accepts(body_has(rb"X-F98: a\r\n")),
    ),
    P(
        "part-fields-limit-one-below",
        "MB-LIMIT-5 off by one",
        ("limit-part-fields-at-limit",),
        on_response=refuses(body_has(rb"X-F97: a\r\n"), 431, "MB-LIMIT-5"),
    ),
    P(
        "part-fields-answered-413",
        "MB-LIMIT-5 status",
        ("limit-part-fields-one-over",),
        on_response=lambda q, r: (
            setattr(r, "status", 413) if r.status == 431 and b"X-F98" in q.body else None
        ),
    ),
    P(
        "options-negotiated-as-a-batch",
        "MB-LIMIT-2 OPTIONS refused 406 for an Accept naming no batch representation",
        ("options-capabilities-any-accept",),
        on_response=_options_negotiated_as_batch,
    ),
    P(
        "max-part-fields-unpublished",
        "MB-LIMIT-5 publish",
        ("options-capabilities",),
        on_response=map_capabilities(_limits(max_part_fields=None)),
    ),
)
