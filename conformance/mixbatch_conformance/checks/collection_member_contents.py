"""Members with unusual content are parts as a GET of each alone answers it (spec 4.2,
MB-METHOD-4).

Theory of operation: spec 4.2 says of MB-METHOD-4's "one part per member" that "each part
carries what a `GET` of that member alone answers (its status, its `Content-Type` with its
parameters and its content)". Content a server writes differently from the common member is
where that breaks: a member without content labelled 204 though its GET answers 200, a member
cut at a size, a line in it that reads as a delimiter, octets that are not text.

The check creates members in the sandbox collection the way MB-TEST-3 lets it, a POST of the
target's member document, and replaces each with a PUT of one content: empty, one octet, text
with CRLF line ends and lines that look like delimiters (`--` and a word, and `--` and the
boundary of the sandbox's retrieval before the write), every octet 0x00 to 0xFF, and 64 KiB
and more; for a sandbox that takes only its JSON document, the document with a 64 KiB string
value, with CRLF and delimiter-like text escaped in a string, and with every character
U+0080 to U+00FF. A content the sandbox refuses (4xx) is noted and left out: the spec makes no
server keep content it does not take. It then sends a GET of each member alone, retrieves the
sandbox collection, and compares each member's part with its GET alone: the `Http-Status-Code`
with the status, the media type with its parameters, the content octet for octet, and the
part's `ETag`, where it has one, with the member's ("a part's `ETag` is its member's"). Every
member created is deleted at the end (MB-TEST-3).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from mixbatch_conformance.checks._shared.collections import (
    expect_part_as_member_alone,
    part_member_path,
    path_on_origin,
    retrieve_parts,
)
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

OCTETS = "application/octet-stream"
TEXT = "text/plain; charset=utf-8"
JSON = "application/json"
#: Octets of the large members: more than 64 KiB.
LARGE = 64 * 1024 + 17


def _contents(boundary: str | None) -> list[tuple[str, str, bytes]]:
    """(name, Content-Type, content) of each member the check writes as it is."""
    lines = [b"first line", b"--mb-suite-lookalike", b"--mb-suite-lookalike--", b""]
    if boundary:
        lines[3:3] = [b"--" + boundary.encode("latin-1"), b"--" + boundary.encode("latin-1")]
    large = (bytes(range(256)) * (LARGE // 256 + 1))[:LARGE]
    return [
        ("empty", OCTETS, b""),
        ("one octet", OCTETS, b"x"),
        ("CRLF and delimiter-like lines", TEXT, b"\r\n".join(lines) + b"\r\n"),
        ("every octet 0x00-0xFF", OCTETS, bytes(range(256))),
        (f"{LARGE} octets", OCTETS, large),
    ]


def _documents(member: dict[str, Any], boundary: str | None) -> list[tuple[str, str, bytes]]:
    """The target's member document with unusual string values, for a JSON-only sandbox."""
    strings = [k for k, v in member.items() if isinstance(v, str)]
    if not strings:
        return []
    text = "line\r\n--mb-suite-lookalike\r\n" + (f"--{boundary}\r\n" if boundary else "")

    def doc(value: str) -> bytes:
        return json.dumps({**member, strings[0]: value}, ensure_ascii=False).encode("utf-8")

    return [
        ("document with a 64 KiB string", JSON, doc("m" * LARGE)),
        ("document with CRLF and delimiter-like text", JSON, doc(text)),
        ("document with U+0080-U+00FF", JSON, doc("".join(map(chr, range(0x80, 0x100))))),
    ]


def _create(ctx: Context, judge: Judge, coll: str, doc: bytes) -> str:
    resp = ctx.send(judge, ctx.raw_request("POST", coll, [("Content-Type", JSON)], doc))
    location = resp.get("Location")
    path = path_on_origin(ctx, coll, location) if location else None
    if resp.status != 201 or path is None:
        judge.setup_error(f"POST {coll} answered {resp.status} with Location {location!r}")
    return path


def _write(
    ctx: Context, judge: Judge, coll: str, doc: bytes, content: tuple[str, str, bytes]
) -> str | None:
    """A member the check created holding `content`; None when the sandbox refuses it."""
    name, ctype, body = content
    path = _create(ctx, judge, coll, doc)
    put = ctx.send(judge, ctx.raw_request("PUT", path, [("Content-Type", ctype)], body))
    if put.status not in (200, 201, 204):
        judge.note(f"PUT {path} of the {name} member ({ctype}) answered {put.status}; left out")
        ctx.send(judge, ctx.raw_request("DELETE", path))
        return None
    return path


@checker(
    "sandbox-collection-unusual-members-as-alone",
    ("MB-METHOD-4",),
    "Members of the sandbox collection written empty, one octet long, with CRLF and delimiter-like lines, with every octet value and over 64 KiB are each a part with the status, media type, content and ETag a GET of the member alone answers.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
)
def unusual_members_as_alone(ctx: Context, judge: Judge) -> None:
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    before = retrieve_parts(ctx, judge, coll)
    if before is None:
        judge.not_applicable(f"{coll} answers no collection retrieval")
    tag = secrets.token_hex(6)
    doc = {k: f"mb-suite-contents-{tag}" if isinstance(v, str) else v for k, v in member.items()}
    base = json.dumps(doc).encode()
    written: dict[str, str] = {}
    try:
        for content in [*_contents(before[0]), *_documents(doc, before[0])]:
            path = _write(ctx, judge, coll, base, content)
            if path is not None:
                written[path] = content[0]
        if not written:
            judge.not_applicable(f"{coll} took none of the contents")
        alone = {p: ctx.send(judge, ctx.raw_request("GET", p)) for p in written}
        after = retrieve_parts(ctx, judge, coll)
        if after is None:
            judge.setup_error(f"{coll} answered no readable collection retrieval after the writes")
        seen: set[str] = set()
        for part in after[1]:
            path = part_member_path(ctx, coll, part)
            if path not in written or path in seen:
                continue
            seen.add(path)
            expect_part_as_member_alone(
                judge, f"{coll} part {part.index}, the {written[path]} member", part, alone[path]
            )
        missing = sorted(set(written) - seen)
        # MB-METHOD-4: "one part per member of the collection".
        judge.expect(
            f"members written to {coll} without a part in its retrieval",
            missing,
            [[]],
            "MB-METHOD-4",
        )
    finally:
        for path in written:
            ctx.send(judge, ctx.raw_request("DELETE", path))
