"""A batch sent chunked with a trailer section or chunk extensions is answered as under
Content-Length (spec 10.1, MB-INTER-5).

Theory of operation: MB-INTER-5 says a server "MUST accept batch request content framed by the
chunked transfer coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
`Content-Length`". The chunked coding has more to it than chunk sizes: a trailer section after
the last chunk (RFC 9112 §7.1.2, one or several field lines, announced by `Trailer` or not) and
chunk extensions after a chunk's size (§7.1.1, which a recipient "MUST ignore" when it does not
understand them). The other chunked checks end their content with a bare last chunk; a server
whose chunk reader expects the empty line right after `0`, or reads an extension as part of the
size, refuses or misreads what a client may send. Whitespace around an extension's `;` and
`=` (RFC 9112 §7.1.1's BWS) is one spelling spec 10.1 lets a server read or refuse, as widely
used HTTP stacks refuse it; its answer is judged only when it is no refusal. The check sends one batch [GET ok, GET
not_found] framed by Content-Length, then chunked in each of the ways `FRAMINGS` lists, and the
same for a batch missing its close delimiter; each chunked answer has the status, and for a
processed batch the (Content-Id, Http-Status-Code) of each part, or for a refused one the
problem's `requirement`, `part_index` and `byte_offset`, of the Content-Length answer.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import framing_answer
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-chunked-trailers-41c7"
#: Octets per data chunk.
CHUNK_OCTETS = 16
#: The framing a server may read or refuse: whitespace around a chunk extension's `;` and `=`.
SPACED = "chunk extensions with whitespace around ';' and '='"
#: Statuses that refuse a request as one the server cannot frame (spec 10.1).
UNFRAMEABLE = frozenset({*range(400, 500), 501})
#: Ways to frame the same content chunked: (what, extension on each data chunk, extension on
#: the last chunk, trailer field lines, fields announcing the trailer).
FRAMINGS: tuple[tuple[str, str, str, tuple[str, ...], tuple[tuple[str, str], ...]], ...] = (
    (
        "a trailer field announced by Trailer",
        "",
        "",
        ("X-Mb-Suite-Sum: 1",),
        (("Trailer", "X-Mb-Suite-Sum"),),
    ),
    ("two trailer fields, unannounced", "", "", ("X-Mb-Suite-A: 1", "X-Mb-Suite-B: two words"), ()),
    ("chunk extensions", ";mb-ext=1", ";mb-last", (), ()),
    # chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ) (RFC 9112
    # §7.1.1); spec 10.1 lets a server read that whitespace or refuse the request.
    (
        SPACED,
        " ; mb-ext = 1",
        "\t;\tmb-last",
        (),
        (),
    ),
    ("several chunk extensions on a chunk", ';mb-a=1;mb-b;mb-c="x;y"', ";mb-z=0", (), ()),
    (
        "a quoted chunk extension and a trailer field",
        ';mb-ext="a b"',
        "",
        ("X-Mb-Suite-Sum: 2",),
        (),
    ),
)


def _chunked(body: bytes, ext: str, last_ext: str, trailer: tuple[str, ...]) -> bytes:
    chunks = [body[i : i + CHUNK_OCTETS] for i in range(0, len(body), CHUNK_OCTETS)]
    e, last = ext.encode("latin-1"), last_ext.encode("latin-1")
    out = b"".join(b"%x%s\r\n%s\r\n" % (len(c), e, c) for c in chunks)
    lines = b"".join(line.encode("latin-1") + b"\r\n" for line in trailer)
    return out + b"0%s\r\n%s\r\n" % (last, lines)


@checker(
    "chunked-batch-trailers-and-extensions",
    ("MB-INTER-5",),
    "A batch, and one missing its close delimiter, sent chunked with a trailer section (announced or not, one or two fields) or with chunk extensions get the status and parts, or problem, the same content gets framed by Content-Length.",
    state=State.READ_ONLY,
    direct_only=(
        "an intermediary removes the chunked coding and forwards the content in framing of its "
        "own, so the trailer section and chunk extensions never reach the server (mitmproxy "
        "stalls on a request's trailer section)"
    ),
)
def chunked_batch_trailers_and_extensions(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    whole = compose_batch([ok, nf], BOUNDARY)
    # The same parts without the close delimiter: incomplete (spec 3.1.5), so
    # refused wherever the chunked framing ends.
    cut = whole[: whole.rindex(f"--{BOUNDARY}--".encode())].rstrip(b"\r\n")
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    for label, body in (("a batch", whole), ("a batch missing its close delimiter", cut)):
        framed = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        want = framing_answer(framed)
        judge.note(f"{label} framed by Content-Length: {want!r}")
        for what, ext, last_ext, trailer, announce in FRAMINGS:
            chunked_head = [*head, *announce, ("Transfer-Encoding", "chunked")]
            content = _chunked(body, ext, last_ext, trailer)
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, chunked_head, content))
            # MB-INTER-5: "accept batch request content framed by the chunked transfer coding
            # (RFC 9112 §7.1) and answer it as it answers the same content framed by
            # `Content-Length`"; RFC 9112 §7.1.1: a recipient "MUST ignore unrecognized chunk
            # extensions"; §7.1.2 lets a chunked message end with trailer fields.
            # Spec 10.1: whitespace around a chunk extension's `;` may be read as RFC 9112
            # §7.1.1's BWS or the request refused "as one it cannot frame".
            refusable = what == SPACED
            judge.expect(
                f"{label} sent chunked with {what}",
                framing_answer(resp),
                (lambda got: True) if refusable and resp.status in UNFRAMEABLE else [want],
                "MB-INTER-5",
                allowed_text=f"{want!r}" + (", or a 4xx or 501 refusal" if refusable else ""),
            )
