"""The test resources under every request framing (spec 14.4, MB-TEST-2, MB-TEST-3, MB-TEST-4).

Theory of operation: the suite writes to the sandbox and the echo with content framed by
`Content-Length`, almost always non-empty and small. A resource that reads its content
through the declared length (and so reads nothing of a chunked request, whose length is not
declared), that skips an empty body, or that stops at a buffer's size answers those writes as
the requirements say and breaks on the others. HTTP frames content either way (RFC 9112 §6):
what the resource receives is the content, whatever framed it. Each check here sends the same
writes framed every way:

- `sandbox-writes-any-framing`: PUT to a member the check created and POST to the sandbox
  collection, alone, chunked (several chunks) and by `Content-Length`, with small content and
  with content over 64 KiB; and a PUT of empty content framed by `Content-Length: 0` and by a
  chunked message holding only its last chunk. Each is answered as MB-TEST-3 says (200 or 204
  for the PUT, 201 with a `Location` for the POST), and each member reads back what was
  written (MB-TEST-4) when the sandbox reads back.
- `test-resource-echo-any-framing`: PUT and POST to the echo, chunked (several chunks, and
  over 64 KiB), answered 200 with the content as received (MB-TEST-2).

A server may refuse content larger than it takes with 413 (RFC 9110 §15.5.14) and a request
without a declared length with 411 (§15.5.12): then it wrote nothing, and nothing is read
back. Every member created is deleted before the check ends (MB-TEST-3).
"""

from __future__ import annotations

import json
from typing import Any

from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.sandbox_documents import holds_written, tagged
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
REPLACED = {200, 204}
#: Refusals of a framing or a size that write nothing: 411 Length Required and 413 Content
#: Too Large (RFC 9110 §15.5.12, §15.5.14).
REFUSED = {411, 413}
#: Octets per chunk of the small writes: every content but the empty one takes several.
SMALL_CHUNK = 7
#: Content larger than common 64 KiB read buffers.
LARGE_OCTETS = 65536 + 4097
#: Octets per chunk of the large writes: a chunk size that is no power of two.
LARGE_CHUNK = 10000
#: How each write is framed: a name, and whether it goes chunked with what chunk size.
FRAMINGS: tuple[tuple[str, int | None], ...] = (
    ("chunked in several chunks", SMALL_CHUNK),
    ("framed by Content-Length", None),
)
JSON_TYPE = "application/json"


def _framed(
    ctx: Context,
    judge: Judge,
    method: str,
    path: str,
    ctype: str,
    content: bytes,
    chunk: int | None,
) -> Response:
    """`content` sent alone to `path`, chunked in chunks of `chunk` octets (by Content-Length
    when None)."""
    head = [("Content-Type", ctype)]
    if chunk is None:
        return ctx.send(judge, ctx.raw_request(method, path, head, content))
    head.append(("Transfer-Encoding", "chunked"))
    framed = chunked_content(content, chunk)[0] if content else b"0\r\n\r\n"
    return ctx.send(judge, ctx.raw_request(method, path, head, framed))


def _read_back(
    ctx: Context, judge: Judge, what: str, path: str, want: bytes | dict[str, Any]
) -> None:
    got = ctx.alone(judge, SubRequest("GET", path))
    if isinstance(want, bytes):
        if got.status == 200 and got.media_type == JSON_TYPE:
            judge.note(f"{what}: the member reads as JSON, not as the octets written")
            return
        # MB-TEST-4: "for any other media type, the same octets".
        judge.expect_true(
            f"{what}, read back",
            got.status == 200 and got.body == want,
            f"{got.status} with {len(got.body)} octets: {got.body[:60]!r}",
            f"200 with the {len(want)} octets written",
            "MB-TEST-4",
        )
        return
    # MB-TEST-4: "a `GET` of a member ... a representation of what was last written to it: for
    # `application/json`, an object holding every member of the object written".
    judge.expect_true(
        f"{what}, read back",
        got.status == 200 and holds_written(got.body, want),
        f"{got.status} with {len(got.body)} octets: {got.body[:80]!r}",
        "200 with an object holding every member written, with the same values",
        "MB-TEST-4",
    )


@checker(
    "sandbox-writes-any-framing",
    ("MB-TEST-3", "MB-TEST-4"),
    "A sandbox PUT and POST sent alone chunked in several chunks and by Content-Length, with small content and with over 64 KiB, and an empty PUT by Content-Length: 0 and chunked, are answered as spec 14.4 says of a sandbox and read back what was written.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_writes_any_framing(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    if not any(isinstance(v, str) for v in member.values()):
        judge.not_applicable("sandbox.member has no string member to tell writes apart")
    reads_back = ctx.target.sandbox_reads_back
    made: list[str] = []
    try:
        first = _framed(
            ctx,
            judge,
            "POST",
            coll,
            JSON_TYPE,
            json.dumps(tagged(member, "framing")).encode(),
            None,
        )
        loc = created_path(ctx, coll, first.get("Location"))
        if first.status != 201 or not loc:
            judge.setup_error(f"POST {coll} alone answered {first.status} without a Location")
        made.append(loc)
        writes = [(name, chunk, f"mb-suite framing {name}") for name, chunk in FRAMINGS]
        large = [
            (f"{name} with over 64 KiB", LARGE_CHUNK if chunk else None, "x" * LARGE_OCTETS)
            for name, chunk in FRAMINGS
        ]
        for name, chunk, tag in [*writes, *large]:
            doc = tagged(member, tag)
            content = json.dumps(doc).encode()
            put = _framed(ctx, judge, "PUT", loc, JSON_TYPE, content, chunk)
            # MB-TEST-3: "a `PUT` to an existing member with 200 or 204", however its content
            # is framed.
            judge.expect(f"PUT {name}", put.status, REPLACED | REFUSED, "MB-TEST-3")
            if put.status in REPLACED and reads_back:
                _read_back(ctx, judge, f"PUT {name}", loc, doc)
            post = _framed(ctx, judge, "POST", coll, JSON_TYPE, content, chunk)
            made_loc = created_path(ctx, coll, post.get("Location"))
            if post.status == 201 and made_loc:
                made.append(made_loc)
            if post.status in REFUSED:
                judge.note(f"POST {name} answered {post.status}: refused, nothing written")
                continue
            # MB-TEST-3: "answer a `POST` of a member document to it by creating a new member
            # and answering 201 with a `Location` field naming it".
            judge.expect_true(
                f"POST {name}",
                post.status == 201 and bool(made_loc),
                f"{post.status} with Location {post.get('Location')!r}",
                "201 with a Location",
                "MB-TEST-3",
            )
            if made_loc and reads_back:
                _read_back(ctx, judge, f"POST {name}", made_loc, doc)
        for name, chunk in (("by Content-Length: 0", None), ("chunked, only the last chunk", 1)):
            for ctype in ("text/plain", "application/octet-stream"):
                put = _framed(ctx, judge, "PUT", loc, ctype, b"", chunk)
                if put.status in REPLACED:
                    break
            if put.status not in REPLACED:
                # A sandbox that holds only JSON may refuse content that is none (MB-TEST-3
                # names the answers to a member document, not to other content).
                judge.note(f"an empty PUT {name} answered {put.status}")
                continue
            if reads_back:
                _read_back(ctx, judge, f"empty PUT {name}", loc, b"")
    finally:
        for path in dict.fromkeys(made):
            ctx.alone(judge, SubRequest("DELETE", path))


#: Content the echo is sent: small with CRLF and dashes, and larger than 64 KiB.
ECHO_CONTENTS = (
    (b"chunked --content\r\nof the echo\r\n", SMALL_CHUNK),
    ((b"0123456789abcdef-mb-suite\n" * (LARGE_OCTETS // 26 + 1))[:LARGE_OCTETS], LARGE_CHUNK),
)


@checker(
    "test-resource-echo-any-framing",
    ("MB-TEST-2",),
    "The declared echo resource answers a PUT and a POST sent chunked in several chunks, small and over 64 KiB, with 200 and the content as received.",
    state=State.READ_ONLY,
)
def echo_any_framing(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    for method in ("PUT", "POST"):
        for content, chunk in ECHO_CONTENTS:
            what = f"{method} of {len(content)} octets chunked in chunks of {chunk}"
            resp = _framed(ctx, judge, method, echo, "text/plain", content, chunk)
            if resp.status in REFUSED:
                judge.note(f"{what}: answered {resp.status}, refused")
                continue
            # MB-TEST-2: "answer every request ... with 200, `Content-Type: application/json`
            # and a JSON object with these members: ... `body`, the content".
            judge.expect(f"{what}: status", resp.status, {200}, "MB-TEST-2")
            seen = read_echo(resp.body) if resp.status == 200 else None
            judge.expect_true(
                f"{what}: content described",
                seen is not None and seen.body == content,
                "no description"
                if seen is None
                else f"{len(seen.body)} octets: {seen.body[:60]!r}",
                f"the {len(content)} octets sent",
                "MB-TEST-2",
            )
