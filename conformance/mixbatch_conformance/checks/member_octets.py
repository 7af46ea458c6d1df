"""Member content kept octet for octet on every way in and out of the sandbox (spec 14.4, 4.2).

Theory of operation: MB-TEST-4 makes a sandbox that reads back answer a `GET` of a member with
"for any other media type [than JSON], the same octets" that were written, and spec 4.2 makes
each part of a collection retrieval carry "what a `GET` of that member alone answers (its
status, its `Content-Type` with its parameters and its content)" (MB-METHOD-4). A server that
treats text as text rather than as octets breaks both where a normaliser touches the octets: it
re-encodes a charset it does not store into the one it does, writes line ends in one form (RFC
2046's canonical CRLF inside a MIME entity, or LF), strips a byte order mark, trims trailing
whitespace, cuts at a NUL, or reads octets through a text decoder that replaces what is not
UTF-8. Each of those can sit on the way in (the store), on one way in only (a multipart parser
that rewrites a part's content), or on one way out (the writer of batch parts, of a 207 form,
or of a collection retrieval), so the check writes each content both ways and reads it every
way:

- the contents: text/plain in ISO-8859-1, windows-1252 and UTF-8 with non-ASCII octets, octets
  that are no UTF-8 under `charset=utf-8`, non-ASCII text without a charset, bare LF, bare CR,
  CRLF and mixed line ends, trailing whitespace without a final newline, whitespace alone, a
  UTF-8 byte order mark, NUL octets in text, every octet 0x00-0xFF as application/octet-stream,
  HTML, CSV and a media type no registry knows; and sandbox.member with a string of non-ASCII
  characters, line ends, U+FEFF and trailing whitespace, written as raw UTF-8 (with U+0000
  too) and with `\\u` escapes under `charset=utf-8`, which a sandbox that holds JSON alone
  takes too, so that its retrieval is judged;
- the writes: each content once by a part of one batch and once alone, by a POST to the
  collection one way and a PUT to a new member id the other (MB-TEST-3: a `PUT` to a member
  that does not exist may create it, 201, or be refused, 404 or 405). A sandbox that refuses
  the PUT gets the content by a PUT to a member the check created with a POST of sandbox.member
  instead, by a part or alone as the refused write was; content a sandbox refuses (415, 413)
  is noted and left out: MB-TEST-3 lets it ("a sandbox may store it or refuse it"). New member
  ids hold 64 random bits, so no other client's member is written;
- the reads, where the target declares `sandbox.reads_back`: a GET of each member alone and
  one batch of a GET of each, in the multipart form and each declared 207 form, each reading
  the octets written (a JSON member: an object holding every member written, with the same
  values). A member read back with another media type than it was written with was taken for
  something else and is noted, not judged. Whether or not the sandbox reads back, each 207
  entry carries the body of its multipart part, decoded from `body` or `body_base64`
  (MB-MULTI-5, MB-MULTI-7 judged by the form's reader);
- the retrieval, where the target claims `collection-get`: one collection retrieval of the
  sandbox, each of the check's members a part with the status, media type, content and ETag
  of the member's GET alone (MB-METHOD-4).

Every member created is deleted before the check ends (MB-TEST-3: "A suite deletes every member
it creates before it finishes").
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from mixbatch_conformance.checks._shared.collections import (
    created_path,
    expect_part_as_member_alone,
    part_member_path,
    retrieve_parts,
)
from mixbatch_conformance.checks._shared.sandbox_documents import holds_written
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.core.validator import parse_media_type
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

UTF8_TEXT = "text/plain; charset=utf-8"
JSON = "application/json"
#: (name, Content-Type, content) of each member written as it is: octets a normaliser of text
#: would touch, under the media types and charsets that invite one.
CONTENTS: tuple[tuple[str, str, bytes], ...] = (
    ("ISO-8859-1 text", "text/plain; charset=iso-8859-1", b"caf\xe9 na\xefve \xa3 \xff\n"),
    ("windows-1252 text", "text/plain; charset=windows-1252", b"\x93quoted\x94 \x80 \x85\x96\n"),
    ("UTF-8 text", UTF8_TEXT, "caf\u00e9 \u2615 \U0001d11e\n".encode()),
    (
        "non-UTF-8 octets under charset=utf-8",
        UTF8_TEXT,
        b"ok \xc3( \xe9 \xed\xa0\x80 \xc0\xaf \xff end\n",
    ),
    ("non-ASCII text without a charset", "text/plain", b"na\xefve \xe2\x82\xac \xe9\n"),
    ("bare LF line ends", UTF8_TEXT, b"a note\nsecond line\n"),
    ("bare CR line ends", UTF8_TEXT, b"a note\rsecond line\r"),
    ("CRLF line ends", UTF8_TEXT, b"a note\r\nsecond line\r\n"),
    ("mixed line ends", UTF8_TEXT, b"lf\ncrlf\r\ncr\rlfcr\n\rcrcrlf\r\r\nend"),
    ("trailing whitespace and no final newline", UTF8_TEXT, b"  indented \t\nlast line \t "),
    ("whitespace alone", UTF8_TEXT, b" \t\r\n\n "),
    ("UTF-8 byte order mark", UTF8_TEXT, b"\xef\xbb\xbfafter a byte order mark\n"),
    ("NUL octets in text", "text/plain", b"before\x00between\x00\x00after\n"),
    ("every octet 0x00-0xFF", "application/octet-stream", bytes(range(256))),
    (
        "HTML",
        "text/html; charset=utf-8",
        b"<!DOCTYPE html>\n<p>caf\xc3\xa9 &amp; \r\n</p>  \n",
    ),
    ("CSV", "text/csv; header=present", b'name,note\r\n"two\nlines",\xe9 \n'),
    (
        "unknown media type",
        "application/x-mb-suite-unknown",
        b"\xef\xbb\xbf\x00 \r\n\n\r\xff end \t",
    ),
)
#: String values that a normaliser of text would touch inside a JSON member: one with U+0000,
#: which a store of C strings may refuse, and one without, so that such a store is judged too.
JSON_TEXTS = (
    "caf\u00e9 \u2615\r\nline\nCR\rNUL\u0000BOM\ufeff end \t ",
    "caf\u00e9 \u2615\r\nline\nCR\rBOM\ufeff end \t ",
)


@dataclass(frozen=True)
class Content:
    """One content the check writes: its name, media type, octets, and for a JSON member the
    document they hold."""

    name: str
    ctype: str
    octets: bytes
    doc: dict[str, Any] | None = None


@dataclass(frozen=True)
class Member:
    """A member the check created holding `content`, and how it was written."""

    path: str
    content: Content
    how: str


def _contents(member: dict[str, Any], nonce: str) -> list[Content]:
    out = [Content(name, ctype, octets) for name, ctype, octets in CONTENTS]
    strings = [k for k, v in member.items() if isinstance(v, str)]
    if strings:
        # MB-TEST-3: "a check may change the values of its string members".
        base = {**member, **dict.fromkeys(strings, f"mb-suite octets {nonce}")}
        raw = {**base, strings[0]: JSON_TEXTS[0]}
        escaped = {**base, strings[0]: JSON_TEXTS[1]}
        out.append(
            Content(
                "JSON with text in a string, as UTF-8",
                JSON,
                json.dumps(raw, ensure_ascii=False).encode(),
                raw,
            )
        )
        out.append(
            Content(
                "JSON with text in a string, escaped",
                f"{JSON}; charset=utf-8",
                json.dumps(escaped).encode(),
                escaped,
            )
        )
    return out


def _essence(ctype: str | None) -> str:
    try:
        return parse_media_type(ctype or "")[0].lower()
    except ValueError:
        return (ctype or "").split(";")[0].strip().lower()


#: Octets a part adds to its content in a batch, over its fields: room for the framing, the
#: Content-Id and the Content-Type, so that a chunk stays under a published max_batch_bytes.
PART_OVERHEAD = 300


def _room(ctx: Context) -> int:
    """How many of the check's parts one batch may carry under the target's published limits
    (the largest content is 256 octets)."""
    room = ctx.limit("max_parts") or len(CONTENTS) * 2
    octets = ctx.limit("max_batch_bytes")
    if octets:
        room = min(room, octets // (256 + PART_OVERHEAD))
    return max(1, room)


def _in_batches(
    ctx: Context, judge: Judge, subs: list[SubRequest]
) -> list[tuple[int | None, str | None]]:
    """The status and Location of each of `subs`, sent as parts of as few batches as the
    target's limits allow."""
    room = _room(ctx)
    out: list[tuple[int | None, str | None]] = []
    for i in range(0, len(subs), room):
        chunk = subs[i : i + room]
        resp = ctx.batch(judge, chunk)
        if resp.status == 413:
            # A batch over a limit the target did not publish (the limit checks judge such a
            # refusal): its parts wrote nothing, and their contents are left out.
            judge.note(f"a batch of {len(chunk)} writes was refused with 413; left out")
            out += [(None, None)] * len(chunk)
            continue
        env = expect_processed(ctx, judge, resp, [s.content_id for s in chunk])
        out += [(part_status(env, j), env.parts[j].get("Location")) for j in range(len(chunk))]
    return out


def _write(content: Content, method: str, target: str) -> SubRequest:
    return SubRequest(method, target, (("Content-Type", content.ctype),), content.octets)


class _Writes:
    """The members the check created, and how it creates them."""

    def __init__(self, ctx: Context, judge: Judge, coll: str, member: dict[str, Any]) -> None:
        self.ctx, self.judge, self.coll, self.member = ctx, judge, coll, member
        #: Every member created, to be deleted at the end.
        self.created: list[str] = []
        #: The members that hold a content the check wrote.
        self.holding: list[Member] = []
        self.nonce = secrets.token_hex(8)

    def sub(self, n: int, content: Content, method: str, where: str) -> SubRequest:
        """A POST of `content` to the collection, or a PUT of it to a new member id."""
        # MB-TEST-3: "A member id a check chooses for a `PUT` is 1 to 64 characters of
        # `A-Z a-z 0-9 - _`"; 64 random bits name no other client's member.
        fresh = f"{self.coll.rstrip('/')}/mb-octets-{self.nonce}-{n}{where}"
        return _write(content, method, self.coll if method == "POST" else fresh)

    def answered(
        self, content: Content, sub: SubRequest, status: int | None, location: str | None, how: str
    ) -> bool:
        """Record what a write created; whether a member now holds `content`."""
        if sub.method == "PUT" and status in (200, 201, 204):
            path: str | None = sub.target
        elif sub.method == "POST" and status == 201:
            path = created_path(self.ctx, sub.target, location)
        else:
            self.judge.note(f"{how} of the {content.name} member answered {status}")
            return False
        if path is None:
            # MB-TEST-3: a POST answers "201 with a `Location` field naming it"; without one
            # the member cannot be read (the sandbox checks judge that answer).
            self.judge.note(f"{how} of the {content.name} member answered 201 without Location")
            return False
        self.created.append(path)
        self.holding.append(Member(path, content, how))
        return True

    def holders(self, count: int) -> list[str]:
        """Up to `count` members created by POSTs of sandbox.member in a batch, to PUT to."""
        doc = {
            k: f"mb-suite octets holder {self.nonce}" if isinstance(v, str) else v
            for k, v in self.member.items()
        }
        post = SubRequest("POST", self.coll, (("Content-Type", JSON),), json.dumps(doc).encode())
        out: list[str] = []
        for status, location in _in_batches(self.ctx, self.judge, [post] * count):
            path = created_path(self.ctx, self.coll, location)
            if status == 201 and path is not None:
                self.created.append(path)
                out.append(path)
        return out

    def replaced(self, content: Content, path: str, status: int | None, how: str) -> None:
        if status in (200, 201, 204):
            self.holding.append(Member(path, content, how))
        else:
            self.judge.note(f"{how} of the {content.name} member answered {status}; left out")


def _write_all(writes: _Writes, contents: list[Content]) -> None:
    """Each content once by a batch part and once alone, by POST one way and by PUT to a new
    id the other; a PUT to a new id the sandbox refused is sent again to a member it holds."""
    ctx, judge = writes.ctx, writes.judge
    methods = ["POST" if n % 2 == 0 else "PUT" for n in range(len(contents))]
    parts = [
        writes.sub(n, c, m, "p") for n, (c, m) in enumerate(zip(contents, methods, strict=True))
    ]
    refused: list[tuple[Content, bool]] = []
    answers = _in_batches(ctx, judge, parts)
    for content, sub, (status, location) in zip(contents, parts, answers, strict=True):
        taken = writes.answered(content, sub, status, location, f"{sub.method} in a batch")
        if not taken and sub.method == "PUT":
            refused.append((content, True))
    for n, (content, method) in enumerate(zip(contents, methods, strict=True)):
        sub = writes.sub(n, content, "PUT" if method == "POST" else "POST", "a")
        resp = ctx.alone(judge, sub)
        how = f"{sub.method} alone"
        taken = writes.answered(content, sub, resp.status, resp.get("Location"), how)
        if not taken and sub.method == "PUT":
            refused.append((content, False))
    if not refused:
        return
    # MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or
    # with 404 or 405 (it refused)": such a sandbox gets the content by a PUT to a member it
    # holds, by a part or alone as the refused PUT was.
    placed = list(zip(refused, writes.holders(len(refused)), strict=False))
    by_part = [(c, _write(c, "PUT", holder)) for (c, part), holder in placed if part]
    statuses = _in_batches(ctx, judge, [sub for _, sub in by_part])
    for (content, sub), (status, _) in zip(by_part, statuses, strict=True):
        writes.replaced(content, sub.target, status, "PUT to a member in a batch")
    for (content, part), holder in placed:
        if not part:
            status = ctx.alone(judge, _write(content, "PUT", holder)).status
            writes.replaced(content, holder, status, "PUT to a member alone")


def _expect_read_back(
    judge: Judge, label: str, member: Member, status: int | None, ctype: str | None, body: bytes
) -> None:
    """A GET of `member`, alone or in a batch, reads what was written (MB-TEST-4)."""
    content = member.content
    # MB-TEST-3: "a `GET` of a member with 200".
    judge.expect(f"{label} status", status, {200}, "MB-TEST-3")
    if status != 200:
        return
    if content.doc is not None:
        # MB-TEST-4: "for a JSON member, an object holding every member of the object written,
        # with the same values".
        judge.expect_true(
            label,
            holds_written(body, content.doc),
            f"{len(body)} octets: {body[:80]!r}",
            "an object holding every member written, with the same values",
            "MB-TEST-4",
        )
        return
    if _essence(ctype) != _essence(content.ctype):
        # The sandbox took the content for something else; what it reads back is not "the same
        # octets" of the media type written, and is not judged as such.
        judge.note(f"{label}: read as {ctype!r}, written as {content.ctype!r}; not compared")
        return
    # MB-TEST-4: "for any other media type, the same octets".
    judge.expect_true(
        label,
        body == content.octets,
        f"{len(body)} octets: {body[:60]!r}",
        f"the {len(content.octets)} octets written: {content.octets[:60]!r}",
        "MB-TEST-4",
    )


def _read_back(ctx: Context, judge: Judge, members: list[Member]) -> dict[str, Response]:
    """Read each member alone and in one batch in every form; the answers alone, by path."""
    reads_back = ctx.target.sandbox_reads_back
    alone: dict[str, Response] = {}
    for m in members:
        resp = ctx.alone(judge, SubRequest("GET", m.path))
        alone[m.path] = resp
        if reads_back:
            label = f"the {m.content.name} member ({m.how}) read alone"
            _expect_read_back(judge, label, m, resp.status, resp.get("Content-Type"), resp.body)
    room = _room(ctx)
    for i in range(0, len(members), room):
        _read_in_a_batch(ctx, judge, members[i : i + room], i)
    return alone


def _read_in_a_batch(ctx: Context, judge: Judge, members: list[Member], first: int) -> None:
    """Read `members` by the GET parts of one batch, in every declared form."""
    reads_back = ctx.target.sandbox_reads_back
    forms = answers_in_every_form(ctx, judge, [SubRequest("GET", m.path) for m in members])
    base = forms[0][2]
    for media, _, entries in forms:
        for n, (m, entry) in enumerate(zip(members, entries, strict=True)):
            label = f"the {m.content.name} member ({m.how}), {media} part {first + n}"
            if media == "multipart/mixed":
                if reads_back:
                    ctype = next((v for k, v in entry.fields if k.lower() == "content-type"), None)
                    _expect_read_back(judge, label, m, entry.status, ctype, entry.body)
                continue
            # MB-MULTI-5: "carry the same information in every representation of one batch
            # result: for each part, in order, ... its body"; the readers decode `body` and
            # `body_base64` as MB-MULTI-11 says.
            judge.expect_true(
                f"{label}: body as in multipart/mixed",
                entry.body == base[n].body,
                f"{len(entry.body)} octets: {entry.body[:60]!r}",
                f"the {len(base[n].body)} octets of the multipart part: {base[n].body[:60]!r}",
                "MB-MULTI-5",
            )


def _retrieval(
    ctx: Context, judge: Judge, coll: str, members: list[Member], alone: dict[str, Response]
) -> None:
    """Each member in the sandbox's collection retrieval as its GET alone (MB-METHOD-4)."""
    got = retrieve_parts(ctx, judge, coll)
    if got is None:
        judge.note(f"{coll} answered no collection retrieval: the parts are not judged")
        return
    by_path = {m.path: m for m in members}
    seen: set[str] = set()
    for part in got[1]:
        path = part_member_path(ctx, coll, part)
        if path not in by_path or path in seen:
            continue
        seen.add(path)
        m = by_path[path]
        label = f"{coll} part {part.index}, the {m.content.name} member ({m.how})"
        expect_part_as_member_alone(judge, label, part, alone[path])
    missing = sorted(set(by_path) - seen)
    # MB-METHOD-4: "one part per member of the collection".
    judge.expect(
        f"members written to {coll} without a part in its retrieval", missing, [[]], "MB-METHOD-4"
    )


@checker(
    "sandbox-member-octets-every-path",
    ("MB-TEST-4", "MB-METHOD-4", "MB-MULTI-5", "MB-TEST-3"),
    "Sandbox members created by POST and by PUT, alone and by a batch part, holding text in ISO-8859-1, windows-1252 and UTF-8 (valid or not), every kind of line end, trailing whitespace, a byte order mark, NUL octets, every octet, HTML, CSV, an unknown media type and JSON with such text, read back the octets written alone and in every form of a batch, and are each a collection retrieval part as their GET alone.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_octets_every_path(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    retrieval = ctx.target.claims("collection-get")
    if not ctx.target.sandbox_reads_back and not retrieval:
        judge.not_applicable(
            "the sandbox does not read back and the target claims no collection retrieval"
        )
    writes = _Writes(ctx, judge, coll, member)
    try:
        _write_all(writes, _contents(member, writes.nonce))
        if not writes.holding:
            judge.not_applicable(f"{coll} took none of the contents")
        alone = _read_back(ctx, judge, writes.holding)
        if retrieval:
            _retrieval(ctx, judge, coll, writes.holding, alone)
    finally:
        for path in writes.created:
            ctx.alone(judge, SubRequest("DELETE", path))
