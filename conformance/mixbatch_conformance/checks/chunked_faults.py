"""Malformed batches sent chunked are refused as under Content-Length (spec 10.1, MB-INTER-5).

Theory of operation: MB-INTER-5 says a server "MUST accept batch request content framed by the
chunked transfer coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
`Content-Length`", and spec 5.3 counts offsets in "octets of the content as the multipart
parser sees it". A server that counts offsets in the chunked stream, meets a missing close
delimiter only at a chunk edge, or splits parts where chunks end answers a valid batch sent
chunked correctly and a malformed one otherwise. This check replays four located-fault request
vectors of spec/examples (a missing close delimiter, a part Content-Length too short, a bare LF
in a part header, text after a boundary), each once framed by Content-Length and once chunked
in 7-octet chunks, so that chunk edges fall inside delimiters and field lines. Each chunked
answer carries the status, and the problem document's `requirement`, `part_index` and
`byte_offset`, of the Content-Length answer from the same server (the corpus checks judge those
against the vectors). The one vector whose part writes is sent as a GET (`PUT` and `GET` have
the same length, so no offset moves); the parts name the vectors' relative targets, and a
malformed batch runs none of them (MB-STATUS-2).
"""

from __future__ import annotations

import json

from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.requirements import spec_dir
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Request vectors of spec/examples whose fault is located in the content.
VECTORS = (
    "missing-close-delimiter",
    "content-length-too-short",
    "bare-lf-in-part-header",
    "text-after-boundary",
)
#: Octets per chunk: small, so that chunk edges fall inside delimiter and field lines.
CHUNK_OCTETS = 7
#: The problem members compared between the two framings.
MEMBERS = ("requirement", "part_index", "byte_offset")


def _vector(name: str) -> tuple[str, bytes]:
    examples = spec_dir() / "examples"
    meta = json.loads((examples / f"{name}.request.json").read_text(encoding="utf-8"))
    body = (examples / f"{name}.request.http").read_bytes()
    # Read-only: the one writing part is sent as a GET, which is as long as PUT.
    return str(meta["content_type"]), body.replace(b"Http-Method: PUT\r\n", b"Http-Method: GET\r\n")


def _answer(resp: Response) -> tuple[object, ...]:
    doc = problem_of(resp) or {}
    return (resp.status, *(doc.get(m) for m in MEMBERS))


@checker(
    "chunked-faults-answered-as-content-length",
    ("MB-INTER-5",),
    "Four located-fault vectors sent chunked in 7-octet chunks get the status, requirement, part_index and byte_offset the same content gets framed by Content-Length.",
    state=State.READ_ONLY,
)
def chunked_faults_as_content_length(ctx: Context, judge: Judge) -> None:
    judged = 0
    for name in VECTORS:
        content_type, body = _vector(name)
        head = [("Content-Type", content_type)]
        framed = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        if framed.status < 400:
            judge.note(f"{name}: answered {framed.status} under Content-Length; vector-{name}")
            continue
        chunks, _ = chunked_content(body, CHUNK_OCTETS)
        chunked_head = [*head, ("Transfer-Encoding", "chunked")]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, chunked_head, chunks))
        judged += 1
        # MB-INTER-5: "answer it as it answers the same content framed by `Content-Length`";
        # spec 5.3: "Offsets count octets of the content as the multipart parser sees it".
        judge.expect(
            f"{name} sent chunked: (status, {', '.join(MEMBERS)})",
            _answer(resp),
            {_answer(framed)},
            "MB-INTER-5",
            allowed_text=f"{_answer(framed)!r}, as under Content-Length",
        )
    if not judged:
        judge.not_applicable("no vector was refused under Content-Length")
