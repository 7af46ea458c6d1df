"""Planted violations of how a server builds a part's refusal (spec 5.3), reads a batch's
content codings (spec 10.1) and finds the end of a part header section (spec 3.2), and of what
its echo resource reports (spec 14.4).

A server whose target and method checks refuse through the code path of a request-level
refusal: the problem document names the requirement but neither `part_index` nor
`byte_offset`, though the parser knows both (MB-STATUS-4). And a server that reads
`Content-Encoding` by its first coding only, so `identity, gzip` is taken as no coding and the
content parsed as it stands instead of 415 (MB-INTER-6), or whose 415 for a coding names the server's rule
instead of MB-WIRE-2, as spec 5.3 says (MB-STATUS-4). And an echo resource that reports
the authority a request was addressed to by its host alone, without the port (MB-TEST-2). And
a server that ends a part header section at a line that is empty once trimmed, so a line of
only spaces or tabs is taken as the empty line instead of refused (MB-PART-11). And a server
that runs an atomic batch to its end past its time budget, writing no abort (MB-SEC-1). And a
collection retrieval whose parts all carry one media type, whatever each member is, or that
leaves out the member written last (MB-METHOD-4), whose member bodies end in a bare LF before
each delimiter (MB-WIRE-7), or whose parts' Content-Ids resolve each member id against the
collection's URI as a base without a trailing slash, naming no member (MB-METHOD-6).
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    all_of,
    body_has,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_parts,
    map_response,
    problem_doc,
    refuses,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The refusals a part's target or method draws (MB-SUB-2, -3, -4, -8).
_PART_TARGET_REFUSALS = frozenset({"MB-SUB-2", "MB-SUB-3", "MB-SUB-4", "MB-SUB-8"})


def _target_refusals_unlocated(req: RelayRequest, resp: RelayResponse) -> None:
    """A refusal of a part's target or method without the part's index or offset."""
    doc = problem_doc(resp)
    if doc is not None and doc.get("requirement") in _PART_TARGET_REFUSALS:
        doc.pop("part_index", None)
        doc.pop("byte_offset", None)
        resp.body = json.dumps(doc).encode()


def _first_coding_only(req: RelayRequest) -> None:
    """A batch whose Content-Encoding lines start with `identity` reaches the server with
    none: the planted server reads the first coding of the first line only."""
    lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
    if not lines or not is_batch(req):
        return
    if lines[0].split(",")[0].strip().lower() == "identity":
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


def _coding_refusal_names_framing_rule(req: RelayRequest, resp: RelayResponse) -> None:
    """The 415 for a content coding names the multipart framing rule (MB-WIRE-1) in its problem
    document, where spec 5.3 names MB-INTER-6 or MB-WIRE-2: the server files every refusal of
    the content under one requirement."""
    coded = any(n.lower() == "content-encoding" for n, _ in req.headers)
    if resp.status != 415 or not coded:
        return
    doc = problem_doc(resp)
    if doc is not None and doc.get("requirement") in {"MB-INTER-6", "MB-WIRE-2"}:
        doc["requirement"] = "MB-WIRE-1"
        resp.body = json.dumps(doc).encode()


def _first_line_only(req: RelayRequest) -> None:
    """A batch whose first Content-Encoding line is `identity` reaches the server with none:
    the planted server reads one field line (a map's first value) and ignores the rest."""
    lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
    if len(lines) < 2 or not is_batch(req):
        return
    if lines[0].strip().lower() == "identity":
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


#: An echo's authority member naming a port.
_AUTHORITY_WITH_PORT = re.compile(rb'("authority"\s*:\s*"[^"]*?)(:[0-9]+)"')


def _echo_authority_host_only(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo describing the authority by its host alone, alone and in a part: the port is
    cut and made JSON whitespace after the string, so every length stays the same."""
    resp.body = _AUTHORITY_WITH_PORT.sub(
        lambda m: m.group(1) + b'"' + b" " * len(m.group(2)), resp.body
    )


def _abort_parts_dropped(parts: list[Part]) -> list[Part]:
    """An atomic batch run to its end past its budget: no abort part is written."""
    return [p for p in parts if (field_of(p[0], "Batch-Outcome") or "").strip() != "aborted"]


def _parts_typed_as_text(parts: list[Part]) -> list[Part]:
    """Every part of a collection retrieval labelled with one media type, the one a store of
    text notes gives all its members, whatever each member is."""
    return [(set_field(fields, "Content-Type", "text/plain"), body) for fields, body in parts]


def _newest_member_left_out(parts: list[Part]) -> list[Part]:
    """A collection retrieval that stops one member short: the member written last (the last
    in the collection's order) is left out."""
    return parts[:-1]


def _ids_joined_as_references(parts: list[Part]) -> list[Part]:
    """Each part's Content-Id the member id resolved against the collection's URI as a base:
    `/books` and `7` give `</7>`, the collection's own segment replaced."""
    out = []
    for fields, body in parts:
        cid = field_of(fields, "Content-Id") or ""
        m = re.fullmatch(r"\s*<(/[^>]*?)/([^/>]+)>\s*", cid)
        out.append((set_field(fields, "Content-Id", f"</{m.group(2)}>") if m else fields, body))
    return out


def _delimiters_after_bare_lf(resp: RelayResponse) -> None:
    """A collection retrieval whose member bodies end in a bare LF, so each delimiter line
    after the first begins with LF alone."""
    b = boundary_of(resp)
    if b:
        resp.body = resp.body.replace(
            b"\r\n--" + b.encode("latin-1"), b"\n--" + b.encode("latin-1")
        )


def _is_retrieval(req: RelayRequest) -> bool:
    return req.method == "GET" and "multipart" in (req.get("Accept") or "").lower()


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "target-refusals-without-part-index",
        "MB-STATUS-4 a refused part target or method named without part_index or byte_offset",
        ("refusal-names-broken-requirement",),
        on_response=_target_refusals_unlocated,
    ),
    Mutation(
        "content-coding-first-member-only",
        "MB-INTER-6 a Content-Encoding list starting with identity read as no coding",
        ("content-coding-list-members-refused",),
        on_request=_first_coding_only,
    ),
    Mutation(
        "content-coding-compared-with-case",
        "MB-INTER-6 a batch's content codings compared with the ones decoded case for case",
        ("content-coding-names-any-case",),
        on_response=refuses(
            all_of(is_batch, header_has("Content-Encoding", r"[A-Z]")), 415, "MB-INTER-6"
        ),
    ),
    Mutation(
        "content-coding-first-line-only",
        "MB-INTER-6 a Content-Encoding split over field lines read by its first line",
        ("content-coding-list-members-refused",),
        on_request=_first_line_only,
    ),
    Mutation(
        "coding-refusal-names-framing-rule",
        "MB-STATUS-4 the 415 for a content coding naming MB-WIRE-1, where spec 5.3 names MB-INTER-6 or MB-WIRE-2",
        ("envelope-refusal-names-broken-requirement",),
        on_response=_coding_refusal_names_framing_rule,
    ),
    Mutation(
        "echo-authority-host-only",
        "MB-TEST-2 the echo's authority without the port the request was addressed to",
        ("test-resource-echo",),
        on_response=_echo_authority_host_only,
    ),
    # MB-PART-11: a line of only SP or HTAB is no field-line and not the empty line.
    Mutation(
        "blank-line-by-trimmed-line",
        "MB-PART-11 a part header line of only whitespace taken as the empty line",
        (
            "reject-space-line-before-empty-line",
            "reject-htab-line-before-empty-line",
            "reject-whitespace-run-line-before-empty-line",
        ),
        on_response=accepts(body_has(rb"\r\n[ \t]+\r\n\r\n")),
    ),
    # MB-SEC-1: "abort ... a batch that exceeds its budget", an atomic one as much as any.
    Mutation(
        "atomic-batch-without-deadline",
        "MB-SEC-1 an atomic batch over its time budget run to its end, not aborted",
        ("atomic-abort-rolls-back",),
        on_response=map_parts(
            _abort_parts_dropped, all_of(is_batch, header_has("Batch-Mode", "(?i)atomic"))
        ),
    ),
    # MB-METHOD-4: "one part per member of the collection", each member as it is.
    Mutation(
        "collection-parts-typed-alike",
        "MB-METHOD-4 every part of a collection retrieval labelled with one media type, not the member's",
        ("collection-parts-are-members-alone",),
        on_response=map_parts(_parts_typed_as_text, _is_retrieval),
    ),
    Mutation(
        "collection-retrieval-bodies-end-in-lf",
        "MB-WIRE-7 a collection retrieval whose member bodies end in a bare LF before each delimiter",
        ("collection-get",),
        on_response=map_response(_is_retrieval, _delimiters_after_bare_lf),
    ),
    Mutation(
        "collection-retrieval-newest-member-left-out",
        "MB-METHOD-4 a collection retrieval one part short, the member written last left out",
        ("collection-parts-are-members-alone",),
        on_response=map_parts(_newest_member_left_out, _is_retrieval),
    ),
    Mutation(
        "collection-member-ids-joined-as-references",
        "MB-METHOD-6 a retrieval part's Content-Id the member id resolved against the collection's URI, naming no member",
        ("collection-parts-are-members-alone",),
        on_response=map_parts(_ids_joined_as_references, _is_retrieval),
    ),
)
