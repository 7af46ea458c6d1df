"""The echo describes content a text decoder would rewrite octet for octet (spec 14.4, MB-TEST-2).

Theory of operation: MB-TEST-2 has the echo report "`body`, the content as a string when its
octets are valid UTF-8, and `body_base64`, the content in base64 (RFC 4648 §4) otherwise". Both
name the octets received: an echo that reads the content through a text decoder reports what
the decoder made of it. Decoders differ at the edges: most drop a leading byte order mark
(WHATWG's `TextDecoder` unless told `ignoreBOM`, Python's `utf-8-sig`), and a lenient one
replaces what RFC 3629 makes no UTF-8 (an encoded surrogate, an overlong form, a code point past
U+10FFFF, a sequence cut short) with U+FFFD and calls the result text. Each content below is
sent to the echo with `Content-Type: text/plain; charset=utf-8` (a charset that invites a
decoder), alone and as a part of one batch, and the description must carry exactly the octets
sent, in `body` when they are valid UTF-8 (RFC 3629, as Python's strict decoder reads it) and in
`body_base64` otherwise. The BOM, NUL, U+2028 and the noncharacter U+FFFE are valid UTF-8, so
their strings hold them. Every request is a PUT to the echo; it writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.echo_content import expect_echo_content
from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Content a text decoder rewrites, by what it is: valid UTF-8 first, then octets that are not.
EDGES: tuple[tuple[str, bytes], ...] = (
    ("a leading byte order mark", b"\xef\xbb\xbfmb"),
    ("a byte order mark alone", b"\xef\xbb\xbf"),
    ("two byte order marks", b"\xef\xbb\xbf\xef\xbb\xbfmb"),
    ("a NUL inside text", b"m\x00b"),
    ("U+2028 and U+FFFE", b"\xe2\x80\xa8\xef\xbf\xbe"),
    ("CR, CRLF and LF line ends", b"a\rb\r\nc\n"),
    ("an encoded surrogate", b"mb\xed\xa0\x80"),
    ("an overlong slash", b"\xc0\xafmb"),
    ("a code point past U+10FFFF", b"\xf4\x90\x80\x80"),
    ("a sequence cut short at the end", b"mb\xe2\x82"),
)
TEXT = (("Content-Type", "text/plain; charset=utf-8"),)


def _judge(judge: Judge, label: str, content: bytes, status: int | None, body: bytes) -> None:
    judge.require(f"{label}: status", status, {200}, "MB-TEST-2")
    seen = read_echo(body)
    judge.require_true(
        f"{label}: description",
        seen is not None,
        repr(body[:120]),
        "method, target, headers as [name, value] pairs, and body or body_base64",
        "MB-TEST-2",
    )
    assert seen is not None
    # MB-TEST-2: "exactly one of `body`, the content as a string when its octets are valid
    # UTF-8, and `body_base64`, the content in base64 (RFC 4648 §4) otherwise".
    expect_echo_content(judge, f"{label}:", content, body, seen, "MB-TEST-2")


@checker(
    "echo-body-octets-as-sent",
    ("MB-TEST-2",),
    "The declared echo resource describes text/plain; charset=utf-8 content a text decoder rewrites (a leading byte order mark, one alone, two, NUL, U+2028 and U+FFFE, CR and CRLF line ends; an encoded surrogate, an overlong form, a code point past U+10FFFF, a sequence cut short) with exactly the octets sent, in body when they are valid UTF-8 and in body_base64 otherwise, alone and as parts of one batch.",
    state=State.READ_ONLY,
)
def echo_body_octets_as_sent(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("PUT", f"{echo}?mb-edge={i}", TEXT, content)
        for i, (_, content) in enumerate(EDGES)
    ]
    for (what, content), sub in zip(EDGES, subs, strict=True):
        resp = ctx.alone(judge, sub)
        _judge(judge, f"{what}, alone", content, resp.status, resp.body)
    numbered = list(enumerate(zip(EDGES, subs, strict=True)))
    for run in within_max_parts(ctx, judge, numbered):
        resp = ctx.batch(judge, [sub for _, (_, sub) in run])
        ids = [sub.content_id for _, (_, sub) in run]
        env = expect_processed(ctx, judge, resp, ids, (), "MB-TEST-2")
        for k, (i, ((what, content), _)) in enumerate(run):
            label = f"edge {i} ({what}) as part {k}"
            _judge(judge, label, content, part_status(env, k), env.parts[k].body)
