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
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Part, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

RETRIEVAL = (("Accept", "multipart/mixed"),)
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


def _path_of(ctx: Context, coll: str, ref: str) -> str | None:
    url = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{coll}", ref.strip()))
    if (url.scheme, url.netloc.lower()) != (ctx.scheme, ctx.authority.lower()):
        return None
    return url.path + (f"?{url.query}" if url.query else "")


def _retrieve(ctx: Context, judge: Judge, coll: str) -> tuple[str | None, list[Part]] | None:
    """The boundary and parts of the sandbox's retrieval (no parts for 204), else None."""
    resp = ctx.send(judge, ctx.raw_request("GET", coll, list(RETRIEVAL)))
    if resp.status == 204:
        return None, []
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        judge.note(f"GET {coll} with Accept: multipart/mixed: {resp.status} {resp.media_type!r}")
        return None
    _, params = judge.media_type("retrieval Content-Type", resp.get("Content-Type"), "MB-METHOD-4")
    env = read_multipart(resp.body, params.get("boundary", ""))
    if env.fatal:
        judge.note(f"GET {coll} with Accept: multipart/mixed: unreadable, {env.fatal}")
        return None
    return params.get("boundary"), list(env.parts)


def _media(value: str | None) -> tuple[str, dict[str, str]] | str:
    try:
        media, params = parse_media_type(value or "")
    except ValueError:
        return value or ""
    return media.lower(), {
        k.lower(): v.lower() if k.lower() == "charset" else v for k, v in params.items()
    }


def _create(ctx: Context, judge: Judge, coll: str, doc: bytes) -> str:
    resp = ctx.send(judge, ctx.raw_request("POST", coll, [("Content-Type", JSON)], doc))
    location = resp.get("Location")
    path = _path_of(ctx, coll, location) if location else None
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


def _compare(judge: Judge, label: str, part: Part, alone: Response) -> None:
    # MB-METHOD-4: "one part per member of the collection"; spec 4.2: "each part carries what
    # a `GET` of that member alone answers (its status, its `Content-Type` with its parameters
    # and its content)", and "a part's `ETag` is its member's".
    judge.expect(
        f"{label} Http-Status-Code",
        part.get("Http-Status-Code"),
        {str(alone.status)},
        "MB-METHOD-4",
    )
    judge.expect(
        f"{label} Content-Type as the member's alone",
        _media(part.get("Content-Type")),
        [_media(alone.get("Content-Type"))],
        "MB-METHOD-4",
    )
    judge.expect_true(
        f"{label} content as the member's alone",
        part.body == alone.body,
        f"{len(part.body)} octets"
        + ("" if part.body == alone.body else f", not the {len(alone.body)} of the GET alone"),
        f"the {len(alone.body)} octets of the GET alone",
        "MB-METHOD-4",
    )
    if part.get("ETag") is not None and alone.get("ETag") is not None:
        judge.expect(
            f"{label} ETag as the member's alone",
            (part.get("ETag") or "").strip(),
            {(alone.get("ETag") or "").strip()},
            "MB-METHOD-4",
        )


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
    before = _retrieve(ctx, judge, coll)
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
        after = _retrieve(ctx, judge, coll)
        if after is None:
            judge.setup_error(f"{coll} answered no readable collection retrieval after the writes")
        seen: set[str] = set()
        for part in after[1]:
            cid = (part.get("Content-Id") or "").strip()
            path = _path_of(ctx, coll, cid[1:-1]) if cid.startswith("<") else None
            if path not in written or path in seen:
                continue
            seen.add(path)
            _compare(
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
