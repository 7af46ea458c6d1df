"""Planted size bounds in the writing of an answer (MB-WIRE-15, MB-STATUS-12, MB-RESP-4,
MB-MULTI-6, MB-MULTI-7).

A server's write path commonly changes at a size: a short part body is copied into the buffer
the part's header section is written from and a long one streamed after it; a 207 document is
built whole in memory; a recorder keeps so many octets of a sub-response. Each plant is one
such bound written wrongly:

- a part whose body is over 64 KiB, or over 1 MiB, written without its Content-Length line,
  as a writer that streams long bodies after a header section it wrote first does;
- a processed batch answered with a 5xx and a problem document once its answer is over a
  size: a 207 document over 16 MiB answered 507, one over 1 MiB answered 503, a multipart
  answer over 16 MiB answered 500, though its parts ran;
- bodies cut at a size: each JSON or XML entry's body cut to 1 MiB, and the multipart answer's
  part bodies cut once they hold 16 MiB together (later parts emptied), each with its
  Content-Length set to what is left;
- a batch whose parts ask the random resource for 8 MiB or more in all answered in
  multipart/mixed whatever form Accept names, as a server that streams a large result in the
  one form it can stream (MB-MULTI-1).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    is_batch,
    map_json,
    map_xml,
    problem,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

KIB_64 = 65_536
MIB = 1_048_576
MIB_16 = 16 * MIB

#: The catchers of each way.
PART_LENGTHS = "response-part-lengths-across-sizes"
LARGE_ANSWERS = "answers-over-16-mib-every-form"


def _length_dropped_over(size: int) -> Callable[[list[Part]], list[Part]]:
    """A writer that streams a body over `size` octets after the part's header section and
    writes Content-Length only with the parts it buffers."""

    def edit(parts: list[Part]) -> list[Part]:
        return [(without_field(f, "Content-Length") if len(b) > size else f, b) for f, b in parts]

    return edit


def _refused_over(
    size: int, status: int, media: str
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A batch answer of the form `media` (a fragment of its Content-Type) longer than `size`
    octets, built whole after its parts ran, replaced by a `status` problem document."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req) or resp.status not in (200, 207):
            return
        if media in (resp.get("Content-Type") or "") and len(resp.body) > size:
            problem(resp, status, "MB-STATUS-12")

    return edit


def _json_bodies_cut_at(size: int) -> Callable[[dict[str, Any]], None]:
    """Each JSON entry's body cut to `size` octets, as a writer that encodes from one read."""

    def edit(doc: dict[str, Any]) -> None:
        for item in doc.get("responses") or ():
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("body_base64"), str):
                data = base64.b64decode(item["body_base64"])
                if len(data) > size:
                    item["body_base64"] = base64.b64encode(data[:size]).decode()
            elif isinstance(item.get("body"), str) and len(item["body"].encode()) > size:
                item["body"] = item["body"].encode()[:size].decode("utf-8", "ignore")

    return edit


def _xml_bodies_cut_at(size: int) -> Callable[[bytes], bytes]:
    """Each XML entry's body cut to `size` octets, as a writer that encodes from one read."""

    def cut(m: re.Match[bytes]) -> bytes:
        data = base64.b64decode(m[2])
        if len(data) <= size:
            return m[0]
        return m[1] + base64.b64encode(data[:size]) + m[3]

    return lambda body: re.sub(rb"(<mb:body[^>]*>)([^<]*)(</mb:body>)", cut, body)


def _answer_cut_at(size: int) -> Callable[[list[Part]], list[Part]]:
    """A recorder that holds `size` octets of sub-response content for the whole answer: the
    part that crosses it is cut, and the parts after it are left empty."""

    def edit(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        left = size
        for f, b in parts:
            kept = b[: max(left, 0)]
            left -= len(kept)
            out.append((set_field(f, "Content-Length", str(len(kept))) if kept != b else f, kept))
        return out

    return edit


P = Mutation

#: The octets of random content past which the large-result plant answers in multipart/mixed.
MIB_8 = 8 * MIB
_RANDOM_ASKED = re.compile(rb"(?im)^Content-Id:[ \t]*<[^>]*/random/(\d+)[^>]*>")


def _large_result_as_multipart(req: RelayRequest) -> None:
    """Accept left out of a batch whose random parts ask for 8 MiB or more in all."""
    if not is_batch(req) or req.get("Accept") is None:
        return
    if sum(int(n) for n in _RANDOM_ASKED.findall(req.body)) >= MIB_8:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]


PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-15: "A sender SHOULD give each part a `Content-Length` field stating the length
    # of its body": a long body as much as a short one.
    P(
        "part-length-dropped-over-64kib",
        "MB-WIRE-15 parts over 64 KiB written without Content-Length",
        (PART_LENGTHS, LARGE_ANSWERS),
        on_response_parts=_length_dropped_over(KIB_64),
        caught_by=("WARN", "FAIL"),
    ),
    P(
        "part-length-dropped-over-1mib",
        "MB-WIRE-15 parts over 1 MiB written without Content-Length",
        (PART_LENGTHS, LARGE_ANSWERS),
        on_response_parts=_length_dropped_over(MIB),
        caught_by=("WARN", "FAIL"),
    ),
    # MB-STATUS-12: "once a part has run, it MUST send a batch response (200 or 207)".
    P(
        "document-over-16mib-answered-507",
        "MB-STATUS-12 a 207 document over 16 MiB answered 507 after its parts ran",
        (LARGE_ANSWERS,),
        on_response=_refused_over(MIB_16, 507, "multistatus"),
    ),
    P(
        "xml-document-over-16mib-answered-507",
        "MB-STATUS-12 an XML 207 document over 16 MiB answered 507 after its parts ran",
        (LARGE_ANSWERS,),
        on_response=_refused_over(MIB_16, 507, "xml"),
    ),
    P(
        "document-over-1mib-answered-503",
        "MB-STATUS-12 a 207 document over 1 MiB answered 503 after its parts ran",
        (LARGE_ANSWERS, PART_LENGTHS),
        on_response=_refused_over(MIB, 503, "multistatus"),
    ),
    P(
        "multipart-answer-over-16mib-answered-500",
        "MB-STATUS-12 a multipart answer over 16 MiB answered 500 after its parts ran",
        (LARGE_ANSWERS,),
        on_response=_refused_over(MIB_16, 500, "multipart/mixed"),
    ),
    # The bodies each form carries whole: MB-MULTI-7 (JSON), MB-MULTI-6 (XML), MB-RESP-4.
    P(
        "json-entry-bodies-cut-at-1mib",
        "MB-MULTI-7 JSON entry bodies cut to 1 MiB",
        (PART_LENGTHS, LARGE_ANSWERS),
        on_response=map_json(_json_bodies_cut_at(MIB)),
    ),
    P(
        "xml-entry-bodies-cut-at-1mib",
        "MB-MULTI-6 XML entry bodies cut to 1 MiB",
        (PART_LENGTHS, LARGE_ANSWERS),
        on_response=map_xml(_xml_bodies_cut_at(MIB)),
    ),
    P(
        "answer-bodies-cut-at-16mib",
        "MB-RESP-4 part bodies cut once the answer holds 16 MiB",
        (LARGE_ANSWERS,),
        on_response_parts=_answer_cut_at(MIB_16),
    ),
    Mutation(
        "large-result-answered-in-multipart",
        "MB-MULTI-1 a result of 8 MiB or more answered in multipart/mixed whatever Accept names",
        (LARGE_ANSWERS,),
        caught_by=("FAIL",),
        on_request=_large_result_as_multipart,
    ),
)
