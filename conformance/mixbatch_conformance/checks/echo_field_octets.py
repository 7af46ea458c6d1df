"""The echo's report of field-value and content octets, alone and in a part (spec 14.4, 6.4).

Theory of operation: MB-TEST-2 makes the echo list "the request's header fields as an array of
`[name, value]` pairs in the order received", and spec 14.4 says how a value becomes a JSON
string: "Field values map to JSON strings one octet to one character, as in the JSON form"
(ISO-8859-1, spec 6.3). An echo that writes a value as its language's string type (Go's
`string`, a UTF-8 decode) shows an obs-text octet such as 0xE9 as U+FFFD and two octets that
happen to be UTF-8 (0xC3 0xA9) as one character U+00E9. The checks that compare a part's echo
with the same request's echo alone cannot see that, since the echo misreports both alike; so
`echo-field-octets-as-sent` judges each echo against the octets the suite sent.

Each value holds obs-text octets (RFC 9110 §5.5: `field-vchar = VCHAR / obs-text`, a valid
field value, and so a valid part field line under MB-PART-11): 0x80, 0xA0, 0xE9, 0xC3 0xA9 as
two octets, 0xFF, and the whole range 0x80 to 0xFF in one value; one value holds SP and HTAB
runs inside it. Each field goes alone in its own GET to the echo, and as the one field of a
GET part of one batch; content of every octet 0x00 to 0xFF (not UTF-8) and content of valid
UTF-8 go in PUT requests alone and as parts. The echo must report each value octet for octet
and each content in `body` when its octets are valid UTF-8 and in `body_base64` otherwise,
decoding to the octets sent (MB-TEST-2: "exactly one of `body`, the content as a string when
its octets are valid UTF-8, and `body_base64`, the content in base64 (RFC 4648 §4)
otherwise").

What a server's HTTP stack does with such a request is learnt from the request alone: a
request alone that is not answered 200 with an echo description, or whose echo does not list
the field at all, is noted and that field is not asked of the part either. A part's field
line is read by the batch server, not by the stack, so a part the echo answers is judged
whatever the stack did alone.
"""

from __future__ import annotations

from mixbatch_conformance.core.base64_text import decode_base64
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import Echo, read_echo
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import (
    expect_processed,
    part_status,
    unjudged_if_policy_refusal,
)
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Field values as latin-1 characters, one per octet sent (spec 14.4 maps them back the same
#: way). None opens or ends with whitespace, which RFC 9110 §5.5 makes no part of a value.
FIELDS: tuple[tuple[str, str], ...] = (
    ("X-Mb-Octet-80", "a\x80b"),
    ("X-Mb-Octet-A0", "a\xa0b"),
    ("X-Mb-Octet-E9", "caf\xe9"),
    ("X-Mb-Octets-C3-A9", "caf\xc3\xa9"),
    ("X-Mb-Octet-FF", "z\xff"),
    ("X-Mb-Octets-80-FF", "".join(chr(c) for c in range(0x80, 0x100))),
    ("X-Mb-Inner-Whitespace", "a b\tc  d\t\te \tf"),
)
#: Content of every octet (not valid UTF-8), and content of valid UTF-8 with multi-octet
#: characters, U+FFFD among them (valid UTF-8, though a decoder puts it for what it cannot
#: decode).
CONTENTS: tuple[tuple[str, bytes], ...] = (
    ("octets 0x00-0xFF", bytes(range(256))),
    ("UTF-8 text", "caf\u00e9 \u00a0 \u2603 \U0001f600 \ufffd".encode()),
)


def _shown(value: str) -> str:
    return value.encode("latin-1", "backslashreplace").decode("ascii", "backslashreplace")


def _body_member(content: bytes) -> tuple[str | None, bytes | None]:
    """The body member an echo answer uses and the octets it decodes to, or (None, None)."""
    try:
        doc = loads_json_text(content)
    except ValueError:
        return None, None
    if not isinstance(doc, dict):
        return None, None
    members = [m for m in ("body", "body_base64") if m in doc]
    if len(members) != 1 or not isinstance(doc[members[0]], str):
        return ",".join(members) or None, None
    if members[0] == "body":
        try:
            return "body", doc["body"].encode("utf-8")
        except UnicodeEncodeError:
            return "body", None
    try:
        return "body_base64", decode_base64(doc["body_base64"])
    except ValueError:
        return "body_base64", None


def _expect_value(judge: Judge, label: str, seen: Echo, name: str, value: str) -> None:
    # MB-TEST-2: "`headers`, the request's header fields as an array of `[name, value]` pairs";
    # spec 14.4: "Field values map to JSON strings one octet to one character".
    got = seen.get_all(name)
    judge.expect(
        f"{label}: {name} as echoed",
        [_shown(v) for v in got],
        [[_shown(value)]],
        "MB-TEST-2",
        allowed_text=f"one value, the octets sent, one character each: [{_shown(value)!r}]",
    )


def _expect_content(judge: Judge, label: str, body: bytes, content: bytes) -> None:
    try:
        content.decode("utf-8")
        want = "body"
    except UnicodeDecodeError:
        want = "body_base64"
    member, octets = _body_member(body)
    # MB-TEST-2: "exactly one of `body`, the content as a string when its octets are valid
    # UTF-8, and `body_base64`, the content in base64 (RFC 4648 §4) otherwise".
    judge.expect(f"{label}: body member", member, {want}, "MB-TEST-2")
    judge.expect_true(
        f"{label}: content as echoed",
        octets == content,
        repr(octets[:48] if octets is not None else None),
        f"the {len(content)} octets sent",
        "MB-TEST-2",
    )


def _echo_of(judge: Judge, label: str, status: int | None, body: bytes) -> Echo | None:
    seen = read_echo(body) if status == 200 else None
    if seen is None:
        judge.note(f"{label}: answered {status} without an echo description")
    return seen


@checker(
    "echo-field-octets-as-sent",
    ("MB-TEST-2",),
    "The echo reports field values holding obs-text octets (0x80, 0xA0, 0xE9, 0xC3 0xA9, 0xFF, 0x80-0xFF) and inner SP and HTAB one octet to one character, and content of octets 0x00-0xFF in body_base64 and UTF-8 content in body, exactly as sent, alone and as parts of one batch.",
    state=State.READ_ONLY,
)
def echo_field_octets_as_sent(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    field_subs = [
        SubRequest("GET", f"{echo}?mb-octets=f{i}", (field,)) for i, field in enumerate(FIELDS)
    ]
    content_subs = [
        SubRequest("PUT", f"{echo}?mb-octets=c{i}", (), content)
        for i, (_, content) in enumerate(CONTENTS)
    ]
    # Alone first: what the server's HTTP stack lets through is learnt here.
    delivered: list[bool] = []
    for sub, (name, value) in zip(field_subs, FIELDS, strict=True):
        resp = ctx.alone(judge, sub)
        label = f"GET {sub.target} alone"
        seen = _echo_of(judge, label, resp.status, resp.body)
        listed = seen is not None and bool(seen.get_all(name))
        if seen is not None and not listed:
            judge.note(f"{label}: the echo lists no {name} field")
        delivered.append(listed)
        if seen is not None and listed:
            _expect_value(judge, label, seen, name, value)
    for sub, (what, content) in zip(content_subs, CONTENTS, strict=True):
        resp = ctx.alone(judge, sub)
        label = f"PUT {sub.target} alone ({what})"
        if _echo_of(judge, label, resp.status, resp.body) is not None:
            _expect_content(judge, label, resp.body, content)
    subs = [*field_subs, *content_subs]
    resp = ctx.batch(judge, subs)
    unjudged_if_policy_refusal(judge, resp, "the batch of the same requests")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-TEST-2")
    for i, (name, value) in enumerate(FIELDS):
        label = f"part {i} (GET {field_subs[i].target})"
        seen = _echo_of(judge, label, part_status(env, i), env.parts[i].body)
        if seen is None or not (delivered[i] or seen.get_all(name)):
            continue
        _expect_value(judge, label, seen, name, value)
    for k, (what, content) in enumerate(CONTENTS):
        i = len(FIELDS) + k
        label = f"part {i} (PUT {content_subs[k].target}, {what})"
        if _echo_of(judge, label, part_status(env, i), env.parts[i].body) is not None:
            _expect_content(judge, label, env.parts[i].body, content)
