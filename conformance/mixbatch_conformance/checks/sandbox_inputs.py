"""The sandbox under every input MB-TEST-3 and MB-TEST-4 allow (spec 14.4).

Theory of operation: MB-TEST-3 and MB-TEST-4 bind a declared sandbox for every member id, every
size and every order of writes, not for the few a state machine happens to draw. A sandbox that
caps ids or content, names members by the clock, keeps a member's octets in a buffer the next
batch reuses, or leaves a member out of its listing, still answers the usual writes as the
requirements say; each check here sends the input that tells it apart.

- `sandbox-member-ids-any-length`: PUT to absent members whose ids are 1 to 64 letters, digits,
  `-` and `_`, alone and in a batch: MB-TEST-3 allows
  201, 404 or 405, a part answered 201 names the member in `Location` (MB-RESP-7), and a member
  created reads with 200 and deletes with 200 or 204.
- `sandbox-member-sizes-read-back`: a member written with content of 0 and 1 octets, at both
  sides of 64 KiB and of 200 KiB, as JSON (a long string member) and as octets, reads back
  whole, alone and in a batch (MB-TEST-4).
- `sandbox-creations-distinct`: two POSTs in one batch and two alone back to back create four
  members: four 201 answers with four Locations, each reading back its own document
  (MB-TEST-3 "creating a new member", MB-TEST-4).
- `sandbox-member-outlives-batches`: a member written by a part reads back the same after later
  batches whose preamble and parts fill the same octets with others (MB-TEST-4).
- `sandbox-write-without-content-type`: a PUT without Content-Type, which MB-TEST-3 lets a
  sandbox store or refuse, to an existing member and to an absent one is answered in a part as
  alone (MB-PART-8); a member it stored reads back with the same status and media type whichever
  wrote it, the part getting no Content-Type it did not carry (MB-PART-8), and its octets
  (MB-TEST-4).
- `sandbox-post-never-takes-a-put-name`: PUTs create the members a POST would be named next
  (the numbers after the first POST's, when its last segment ends in digits), and later POSTs,
  alone and in a batch, still each create a new member: 201 with a Location naming none of the
  PUT-created members, the first POST's or each other's, and each PUT-created member keeps its
  own document (MB-TEST-3 "creating a new member"). A sandbox that refuses a PUT to an absent
  member (404 or 405) makes the check N/A; one whose names end in no digits (a UUID) is judged
  only on the POSTs naming no earlier member.
- `sandbox-members-all-retrieved`: members written with empty, one-octet and JSON content
  each have a part in the sandbox's collection retrieval, when it offers one (MB-METHOD-4:
  "one part per member of the collection").

Every member created is deleted before the check ends (MB-TEST-3: "A suite deletes every member
it creates before it finishes").
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.sandbox_documents import holds_written, json_write, tagged
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

__all__: list[str] = []

#: MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or with
#: 404 or 405 (it refused)".
PUT_ABSENT = {201, 404, 405}
#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
REPLACED = {200, 204}
#: MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
DELETED = {200, 204}
#: Member id lengths: one character and both sides of 16 and of 32, up to 64. The spec names no
#: id syntax; a sandbox may refuse ids longer than 64 characters or holding other characters
#: than letters, digits, `-` and `_` as no member's, so the check sends none.
ID_LENGTHS = (1, 16, 17, 32, 33, 64)
#: The characters other than letters and digits the ids hold.
ID_MARKS = "-_"
#: Content sizes: none, one octet, both sides of 64 KiB, and 200 KiB.
SIZES = (0, 1, 65535, 65537, 204800)
#: Sizes also written through a batch part, below common batch limits.
BATCH_SIZES = (0, 1, 65537)
#: Octets written as a member: a run that shows where a cut or an overwrite falls.
PATTERN = b"0123456789abcdefghijklmnopqrstuvwxyz-mb-suite-\n"
#: How many filler octets the later batches carry, in their preamble and in a part body.
FILLER_OCTETS = 16384


def _member(ctx: Context, judge: Judge) -> tuple[str, dict[str, Any]]:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    if not any(isinstance(v, str) for v in member.values()):
        judge.not_applicable("sandbox.member has no string member to tell writes apart")
    return coll, member


def _location(value: str | None) -> str | None:
    return urlsplit(value).path if value else None


def _create(ctx: Context, judge: Judge, coll: str, doc: dict[str, Any]) -> str:
    """POST `doc` alone; its Location (N/A when the sandbox does not create one)."""
    made = ctx.alone(judge, json_write("POST", coll, doc))
    loc = _location(made.get("Location"))
    if made.status != 201 or not loc:
        judge.not_applicable(f"a POST of sandbox.member alone answered {made.status}")
    assert loc is not None
    return loc


def _ids() -> list[str]:
    """Fresh ids of each length, drawn at random so that another client's are unlikely."""
    out = [("m" + secrets.token_hex(32))[:n] for n in ID_LENGTHS]
    out.append(f"mb{secrets.token_hex(4)}{ID_MARKS}end")
    return out


def _expect_created_location(judge: Judge, loc: str, location: str | None) -> None:
    """A part answering 201 to a PUT names the member it created in Location (MB-RESP-7)."""
    # MB-RESP-7: "A server MUST report the URI of a resource that a sub-request created in the
    # response part's `Location` field". HTTP lets a PUT's 201 stand without Location (RFC 9110
    # §15.3.2), so the same PUT alone is not judged; a part's 201 is, whatever its method.
    judge.expect_true(
        f"Location of the part that created {loc} by PUT",
        bool(location),
        repr(location),
        "a Location field",
        "MB-RESP-7",
    )
    if location:
        named = urlsplit(urljoin(loc, location)).path
        judge.expect(f"Location {location!r} resolved", named, {urlsplit(loc).path}, "MB-RESP-7")


@checker(
    "sandbox-member-ids-any-length",
    ("MB-TEST-3", "MB-RESP-7"),
    "PUT to absent sandbox members with ids of 1, 16, 17, 32, 33 and 64 letters and digits, and one holding - and _, is answered 201, 404 or 405 alone and in a batch; a part's 201 names the member in Location; a member created reads with 200 and deletes with 200 or 204.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_ids_any_length(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    created: list[str] = []
    try:
        for n, ident in enumerate(_ids()):
            loc = f"{coll.rstrip('/')}/{ident}"
            if ctx.alone(judge, SubRequest("GET", loc)).status not in (404, 410):
                # MB-TEST-3: a suite "touches no member it did not create": a short id may
                # name another client's member.
                continue
            put = json_write("PUT", loc, tagged(member, f"id {n}"))
            if n % 2:
                env = expect_processed(ctx, judge, ctx.batch(judge, [put]), [put.content_id])
                status, where = part_status(env, 0), "in a batch"
                if status == 201:
                    _expect_created_location(judge, loc, env.parts[0].get("Location"))
            else:
                status, where = ctx.alone(judge, put).status, "alone"
            # MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the
            # member) or with 404 or 405 (it refused)", for every id: the spec caps none.
            judge.expect(
                f"PUT to absent member of {len(ident)} characters ({ident}) {where}",
                status,
                PUT_ABSENT,
                "MB-TEST-3",
            )
            if status != 201:
                continue
            created.append(loc)
            # MB-TEST-3: "a `GET` of a member with 200".
            judge.expect(f"GET {loc}", ctx.alone(judge, SubRequest("GET", loc)).status, {200})
            deleted = ctx.alone(judge, SubRequest("DELETE", loc)).status
            # MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
            judge.expect(f"DELETE {loc}", deleted, DELETED, "MB-TEST-3")
            if deleted in DELETED:
                created.remove(loc)
    finally:
        for loc in created:
            ctx.alone(judge, SubRequest("DELETE", loc))


def _octets(size: int) -> bytes:
    return (PATTERN * (size // len(PATTERN) + 1))[:size]


def _expect_read(
    ctx: Context, judge: Judge, what: str, loc: str, want: bytes | dict[str, Any]
) -> None:
    """Read `loc` alone and in a batch; each must be what was written (MB-TEST-4)."""
    get = SubRequest("GET", loc)
    reads = [("alone", ctx.alone(judge, get).body)]
    resp = ctx.batch(judge, [get])
    if resp.status == 200:
        env = expect_processed(ctx, judge, resp, [get.content_id])
        reads.append(("in a batch", env.parts[0].body))
    for where, body in reads:
        label = f"{what}, read {where}"
        if isinstance(want, bytes):
            # MB-TEST-4: "for any other media type, the same octets".
            judge.expect_true(
                label,
                body == want,
                f"{len(body)} octets, first difference at {_first_difference(body, want)}",
                f"the {len(want)} octets written",
                "MB-TEST-4",
            )
        else:
            # MB-TEST-4: "an object holding every member of the object written, with the same
            # values".
            judge.expect_true(
                label,
                holds_written(body, want),
                f"{len(body)} octets: {body[:80]!r}",
                "an object holding every member written, with the same values",
                "MB-TEST-4",
            )


def _first_difference(a: bytes, b: bytes) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _put_octets(ctx: Context, judge: Judge, loc: str, octets: bytes, batch: bool) -> bool:
    """Replace `loc` with `octets` as application/octet-stream; whether the sandbox took it."""
    put = SubRequest("PUT", loc, (("Content-Type", "application/octet-stream"),), octets)
    if not batch:
        return ctx.alone(judge, put).status in REPLACED
    resp = ctx.batch(judge, [put])
    if resp.status != 200:
        return False
    env = expect_processed(ctx, judge, resp, [put.content_id])
    return part_status(env, 0) in REPLACED


def _reads_as_octets(ctx: Context, judge: Judge, loc: str) -> bool:
    read = ctx.alone(judge, SubRequest("GET", loc))
    return read.status == 200 and read.media_type == "application/octet-stream"


@checker(
    "sandbox-member-sizes-read-back",
    ("MB-TEST-4",),
    "A sandbox member written with 0, 1, 65535, 65537 and 204800 octets, as a JSON string member and as application/octet-stream, alone and by a batch part, reads back whole, alone and in a batch.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_sizes_read_back(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    if not ctx.target.sandbox_reads_back:
        judge.not_applicable("the target declares that its sandbox does not read back")
    loc = _create(ctx, judge, coll, tagged(member, "sizes"))
    try:
        for size in SIZES:
            doc = tagged(member, _octets(size).decode().replace("\n", " "))
            put = ctx.alone(judge, json_write("PUT", loc, doc))
            # MB-TEST-3: "a `PUT` to an existing member with 200 or 204"; a server may refuse
            # content larger than it takes with 413 (RFC 9110 §15.5.14), and then wrote nothing.
            judge.expect(
                f"PUT of a {size}-character string member",
                put.status,
                REPLACED | {413},
                "MB-TEST-3",
            )
            if put.status in REPLACED:
                _expect_read(ctx, judge, f"JSON with {size}-character strings", loc, doc)
        for size in SIZES:
            octets = _octets(size)
            if _put_octets(ctx, judge, loc, octets, False) and _reads_as_octets(ctx, judge, loc):
                _expect_read(ctx, judge, f"{size} octets written alone", loc, octets)
        for size in BATCH_SIZES:
            octets = _octets(size)[::-1]
            if _put_octets(ctx, judge, loc, octets, True) and _reads_as_octets(ctx, judge, loc):
                _expect_read(ctx, judge, f"{size} octets written by a part", loc, octets)
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))


@checker(
    "sandbox-creations-distinct",
    ("MB-TEST-3", "MB-TEST-4"),
    "Two POSTs of sandbox.member in one batch and two alone back to back each create a new member: 201 with a Location naming a member no other POST named, each reading back its own document.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_creations_distinct(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    nonce = secrets.token_hex(4)
    docs = [tagged(member, f"mb-suite create {i} {nonce}") for i in range(4)]
    made: list[tuple[str, dict[str, Any]]] = []
    try:
        posts = [json_write("POST", coll, d) for d in docs[:2]]
        env = expect_processed(ctx, judge, ctx.batch(judge, posts), [p.content_id for p in posts])
        answers = [
            (part_status(env, i), env.parts[i].get("Location"), "in one batch") for i in range(2)
        ]
        for doc in docs[2:]:
            resp = ctx.alone(judge, json_write("POST", coll, doc))
            answers.append((resp.status, resp.get("Location"), "alone"))
        for (status, location, where), doc in zip(answers, docs, strict=True):
            loc = _location(location)
            if status == 201 and loc:
                made.append((loc, doc))
            # MB-TEST-3: "answer a `POST` of a member document to it by creating a new member
            # and answering 201 with a `Location` field naming it".
            judge.expect_true(
                f"POST {where}",
                status == 201 and bool(loc),
                f"{status} with Location {location!r}",
                "201 with a Location",
                "MB-TEST-3",
            )
        locations = [loc for loc, _ in made]
        # "creating a new member": four POSTs name four members.
        judge.expect_true(
            "each POST names a new member",
            len(set(locations)) == len(locations),
            repr(locations),
            "Locations all different",
            "MB-TEST-3",
        )
        if ctx.target.sandbox_reads_back:
            for loc, doc in made:
                body = ctx.alone(judge, SubRequest("GET", loc)).body
                # MB-TEST-4: "a representation of what was last written to it".
                judge.expect_true(
                    f"{loc} reads back its own document",
                    holds_written(body, doc),
                    repr(body[:120]),
                    f"an object holding {doc!r}",
                    "MB-TEST-4",
                )
    finally:
        for loc in dict.fromkeys(loc for loc, _ in made):
            ctx.alone(judge, SubRequest("DELETE", loc))


@checker(
    "sandbox-member-outlives-batches",
    ("MB-TEST-4",),
    "A sandbox member written by a batch part, as JSON and as octets, reads back the same after later batches whose preamble and part bodies carry other octets.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_outlives_batches(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    if not ctx.target.sandbox_reads_back:
        judge.not_applicable("the target declares that its sandbox does not read back")
    echo = ctx.target.resource("echo")
    loc = _create(ctx, judge, coll, tagged(member, "outlives"))
    try:
        written: list[tuple[str, bytes | dict[str, Any], SubRequest]] = []
        doc = tagged(member, "written by a part")
        written.append(("JSON", doc, json_write("PUT", loc, doc)))
        octets = b"written by a part"
        written.append(
            ("octets", octets, SubRequest("PUT", loc, (("Content-Type", "text/plain"),), octets))
        )
        for what, want, put in written:
            env = expect_processed(ctx, judge, ctx.batch(judge, [put]), [put.content_id])
            if part_status(env, 0) not in REPLACED:
                judge.note(f"a PUT of {what} in a part was answered {part_status(env, 0)}")
                continue
            if (
                isinstance(want, bytes)
                and ctx.alone(judge, SubRequest("GET", loc)).media_type != "text/plain"
            ):
                continue
            # Later batches carry other octets where the first one carried the member's.
            fill = [SubRequest("GET", ctx.path(echo) if echo else coll)]
            if echo:
                fill.append(
                    SubRequest(
                        "PUT",
                        ctx.path(echo),
                        (("Content-Type", "text/plain"),),
                        b"y" * FILLER_OCTETS,
                    )
                )
            for _ in range(2):
                ctx.batch(judge, fill, preamble=b"x" * FILLER_OCTETS)
            _expect_read(
                ctx, judge, f"{what} written by a part, after two later batches", loc, want
            )
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))


def _retrieval_ids(ctx: Context, judge: Judge, coll: str) -> set[str] | None:
    """The member paths the sandbox's collection retrieval names, or None without one."""
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        return None
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        return None
    env = read_multipart(resp.body, params.get("boundary", ""))
    base = f"{ctx.scheme}://{ctx.authority}{coll}"
    # MB-METHOD-6: a Content-Id "naming the member, resolvable against the collection's URI".
    return {
        urlsplit(urljoin(base, (p.get("Content-Id") or "<>").strip(" \t")[1:-1])).path
        for p in env.parts
    }


@checker(
    "sandbox-members-all-retrieved",
    ("MB-METHOD-4",),
    "Sandbox members written with empty, one-octet and JSON content each have a part in the sandbox's collection retrieval, when it offers one.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_members_all_retrieved(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    if _retrieval_ids(ctx, judge, coll) is None:
        judge.not_applicable(f"GET {coll} with Accept: multipart/mixed is no collection retrieval")
    made: list[tuple[str, str]] = []
    try:
        kinds: tuple[tuple[str, str, bytes | None], ...] = (
            ("empty", "retrieved empty", b""),
            ("one-octet", "retrieved one octet", b"1"),
            ("JSON", "retrieved JSON", None),
            # MB-TEST-3 lets a check change the string values, to nothing too: the least
            # content a sandbox that holds only JSON stores.
            ("JSON with empty strings", "", None),
        )
        for what, tag, content in kinds:
            loc = _create(ctx, judge, coll, tagged(member, tag))
            made.append((what, loc))
            if content is None:
                continue
            for ctype in ("text/plain", "application/octet-stream"):
                put = SubRequest("PUT", loc, (("Content-Type", ctype),), content)
                if ctx.alone(judge, put).status in REPLACED:
                    break
            else:
                made[-1] = (f"JSON (the sandbox took no {what} content)", loc)
        listed = _retrieval_ids(ctx, judge, coll)
        judge.require_true(
            "collection retrieval",
            listed is not None,
            "a retrieval" if listed is not None else "none after members were written",
            "a collection retrieval",
            "MB-METHOD-4",
        )
        assert listed is not None
        for what, loc in made:
            # MB-METHOD-4: "one part per member of the collection": a member whose content is
            # empty is a member.
            judge.expect_true(
                f"{what} member {loc} has a part",
                loc in listed,
                f"parts name {sorted(listed)!r}"[:400],
                f"a part whose Content-Id names {loc}",
                "MB-METHOD-4",
            )
    finally:
        for _, loc in made:
            ctx.alone(judge, SubRequest("DELETE", loc))


#: Content written without a Content-Type: octets that are no JSON document, so a sandbox that
#: stores them keeps them as some other media type (MB-TEST-4: "the same octets").
UNTYPED = b"mb-suite content sent without a media type\n"


def _untyped_put(loc: str, content: bytes) -> SubRequest:
    return SubRequest("PUT", loc, (), content)


@checker(
    "sandbox-write-without-content-type",
    ("MB-PART-8", "MB-TEST-4"),
    "A PUT without Content-Type to an existing sandbox member and to an absent one gets the same status in a part as alone; a member it stored reads back with the same status and media type whichever wrote it, and its octets when the sandbox reads back.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_write_without_content_type(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    made = [_create(ctx, judge, coll, tagged(member, "untyped"))]
    loc = made[0]
    try:
        # Content with no media type is no member document, so MB-TEST-3 lets the sandbox
        # store it or refuse it; a check "judges only what a sandbox that stored it answers",
        # and how a part is answered beside the same request alone.
        alone = ctx.alone(judge, _untyped_put(loc, UNTYPED)).status
        read = ctx.alone(judge, SubRequest("GET", loc)) if alone in REPLACED else None
        content = UNTYPED[::-1]
        put = _untyped_put(loc, content)
        env = expect_processed(ctx, judge, ctx.batch(judge, [put]), [put.content_id])
        # MB-PART-8: a part's header fields are the sub-request's, none added, so a part
        # without Content-Type is the PUT alone without one, and is answered as it is.
        judge.expect(
            "PUT of an existing member in a part", part_status(env, 0), {alone}, "MB-PART-8"
        )
        if read is not None and part_status(env, 0) in REPLACED:
            again = ctx.alone(judge, SubRequest("GET", loc))
            # MB-PART-8: what the part wrote is what the request alone wrote, media type
            # included: a server that gives the part a Content-Type stores another.
            judge.expect(
                "GET after the part's PUT: status and media type",
                (again.status, again.media_type),
                {(read.status, read.media_type)},
                "MB-PART-8",
                allowed_text="as after the same PUT alone",
            )
            if ctx.target.sandbox_reads_back:
                for what, got, want in (("alone", read, UNTYPED), ("by a part", again, content)):
                    # MB-TEST-4: "for any other media type, the same octets".
                    judge.expect_true(
                        f"member written {what} without Content-Type, read back",
                        got.status == 200 and got.body == want,
                        f"{got.status} with {len(got.body)} octets: {got.body[:60]!r}",
                        f"200 with the {len(want)} octets written",
                        "MB-TEST-4",
                    )
        # A PUT to absent members (MB-TEST-3's ids: letters, digits, - and _).
        absent = [f"{coll.rstrip('/')}/mb{secrets.token_hex(6)}-untyped_{n}" for n in (0, 1)]
        if any(ctx.alone(judge, SubRequest("GET", a)).status not in (404, 410) for a in absent):
            judge.note("a fresh member id is in use; the PUT to absent members is not sent")
            return
        first = ctx.alone(judge, _untyped_put(absent[0], UNTYPED)).status
        put = _untyped_put(absent[1], UNTYPED)
        env = expect_processed(ctx, judge, ctx.batch(judge, [put]), [put.content_id])
        made.extend(
            a for a, st in zip(absent, (first, part_status(env, 0)), strict=True) if st == 201
        )
        # MB-PART-8: the part is the same request as alone (to another absent member).
        judge.expect("PUT of an absent member in a part", part_status(env, 0), {first}, "MB-PART-8")
    finally:
        for gone in made:
            ctx.alone(judge, SubRequest("DELETE", gone))


@checker(
    "sandbox-member-ids-case-distinct",
    ("MB-TEST-3", "MB-TEST-4"),
    "Two sandbox member ids that differ only in letter case name two members: a PUT to the second after one created the first is answered as a PUT to an absent member (201, 404 or 405), and each member created reads back its own document.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_ids_case_distinct(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    upper = f"mbCase{secrets.token_hex(6).upper()}"
    twins = [f"{coll.rstrip('/')}/{ident}" for ident in (upper, upper.lower())]
    for loc in twins:
        if ctx.alone(judge, SubRequest("GET", loc)).status not in (404, 410):
            # MB-TEST-3: a suite "touches no member it did not create".
            judge.not_applicable(f"{loc} names a member already")
    docs = [tagged(member, f"case twin {n}") for n in range(2)]
    created: list[str] = []
    try:
        first = ctx.alone(judge, json_write("PUT", twins[0], docs[0])).status
        if first != 201:
            judge.not_applicable(f"a PUT to an absent member with capitals answered {first}")
        created.append(twins[0])
        # MB-TEST-3: "a `PUT` to a member that does not exist with 201 ... or with 404 or 405";
        # spec 14.4: a member id is "1 to 64 characters of `A-Z a-z 0-9 - _`", so an id in
        # other letter case is another id, and its member does not exist yet.
        second = ctx.alone(judge, json_write("PUT", twins[1], docs[1])).status
        judge.expect(f"PUT to {twins[1]} after {twins[0]}", second, PUT_ABSENT, "MB-TEST-3")
        if second == 201:
            created.append(twins[1])
        for loc, doc in zip(created, docs, strict=False):
            body = ctx.alone(judge, SubRequest("GET", loc)).body
            # MB-TEST-4: "a representation of what was last written to it".
            if ctx.target.sandbox_reads_back:
                judge.expect_true(
                    f"GET {loc}",
                    holds_written(body, doc),
                    f"{body[:80]!r}",
                    "the document written to this id",
                    "MB-TEST-4",
                )
    finally:
        for loc in created:
            ctx.alone(judge, SubRequest("DELETE", loc))


#: How many names after the first POST's a PUT takes: more than the POSTs that follow, so a
#: sandbox that names each by the next number of one counter meets a PUT-created name each time.
NEXT_NAMES = 8
#: POSTs sent alone after the PUTs, then POSTs sent together in one batch.
POSTS_ALONE = 2
POSTS_IN_BATCH = 3
#: A member id a check may choose for a PUT (MB-TEST-3: "1 to 64 characters of `A-Z a-z 0-9 - _`").
CHOOSABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A last path segment ending in a number: what comes before it, and its digits.
NUMBERED = re.compile(r"(.*?)([0-9]+)")


def _next_names(loc: str) -> list[str]:
    """The member paths a sandbox that counts may name next after `loc`: the next NEXT_NAMES
    numbers in its last segment, zero padding kept; none when it ends in no digits."""
    head, _, last = loc.rpartition("/")
    m = NUMBERED.fullmatch(last)
    if m is None:
        return []
    prefix, digits = m.groups()
    names = [f"{prefix}{int(digits) + k:0{len(digits)}d}" for k in range(1, NEXT_NAMES + 1)]
    return [f"{head}/{name}" for name in names if CHOOSABLE_ID.fullmatch(name)]


def _resolved(coll: str, location: str | None) -> str | None:
    """The path a Location names, resolved against the collection the POST went to."""
    return urlsplit(urljoin(coll, location)).path if location else None


@checker(
    "sandbox-post-never-takes-a-put-name",
    ("MB-TEST-3",),
    "After PUTs create the sandbox members a POST would be named next (the eight numbers after the first POST's Location, zero padding kept), POSTs alone and in a batch each answer 201 with a Location naming none of them, no earlier member and no other POST's, and each PUT-created member still reads its own document; N/A when the sandbox refuses a PUT to an absent member.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_post_never_takes_a_put_name(ctx: Context, judge: Judge) -> None:
    coll, member = _member(ctx, judge)
    nonce = secrets.token_hex(4)
    first = _create(ctx, judge, coll, tagged(member, f"mb-suite first post {nonce}"))
    made: list[str] = [first]
    put: dict[str, dict[str, Any]] = {}
    try:
        names = _next_names(first)
        if not names:
            judge.note(
                f"{first} ends in no number: only the POSTs naming no earlier member are judged"
            )
        for n, loc in enumerate(names):
            if ctx.alone(judge, SubRequest("GET", loc)).status not in (404, 410):
                # MB-TEST-3: a suite "touches no member it did not create".
                continue
            doc = tagged(member, f"mb-suite put name {n} {nonce}")
            status = ctx.alone(judge, json_write("PUT", loc, doc)).status
            if status in (404, 405) and not put:
                judge.not_applicable(
                    f"the sandbox refuses a PUT to an absent member ({loc} answered {status}), "
                    "so no member takes a name a POST may be given"
                )
            # MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the
            # member) or with 404 or 405 (it refused)".
            judge.expect(f"PUT to absent member {loc}", status, PUT_ABSENT, "MB-TEST-3")
            if status == 201:
                put[loc] = doc
                made.append(loc)
        if names and not put:
            judge.note("every name a POST may be given next is in use; no PUT was sent")
        docs = [
            tagged(member, f"mb-suite post {i} {nonce}")
            for i in range(POSTS_ALONE + POSTS_IN_BATCH)
        ]
        answers: list[tuple[int | None, str | None, str]] = []
        for doc in docs[:POSTS_ALONE]:
            resp = ctx.alone(judge, json_write("POST", coll, doc))
            answers.append((resp.status, resp.get("Location"), "alone"))
        posts = [json_write("POST", coll, doc) for doc in docs[POSTS_ALONE:]]
        env = expect_processed(ctx, judge, ctx.batch(judge, posts), [p.content_id for p in posts])
        answers.extend(
            (part_status(env, i), env.parts[i].get("Location"), "in a batch")
            for i in range(len(posts))
        )
        earlier = {first: "the first POST's member", **dict.fromkeys(put, "a PUT-created member")}
        for n, (answered, location, where) in enumerate(answers):
            named = _resolved(coll, location)
            if answered == 201 and named and named not in made:
                made.append(named)
            # MB-TEST-3: "A server that declares a sandbox collection MUST answer a `POST` of a
            # member document to it by creating a new member and answering 201 with a
            # `Location` field naming it".
            judge.expect_true(
                f"POST {n} {where}",
                answered == 201 and bool(named),
                f"{answered} with Location {location!r}",
                "201 with a Location",
                "MB-TEST-3",
            )
            if answered != 201 or not named:
                continue
            # "creating a new member": not one a PUT created, the first POST's, or another
            # POST's.
            judge.expect_true(
                f"POST {n} {where} names a new member",
                named not in earlier,
                f"Location {location!r} names {earlier.get(named, 'a new member')}",
                "a member no earlier request created",
                "MB-TEST-3",
            )
            earlier.setdefault(named, f"the member POST {n} {where} created")
        for loc, doc in put.items():
            got = ctx.alone(judge, SubRequest("GET", loc))
            # MB-TEST-3: "a `GET` of a member with 200"; a POST that created a new member left
            # the PUT-created one as it was.
            judge.expect(f"GET {loc} after the POSTs", got.status, {200}, "MB-TEST-3")
            if got.status == 200 and ctx.target.sandbox_reads_back:
                # MB-TEST-3: a POST answers "by creating a new member", so it writes over none:
                # the PUT-created member still reads what the PUT wrote.
                judge.expect_true(
                    f"{loc} still holds its PUT's document after the POSTs",
                    holds_written(got.body, doc),
                    repr(got.body[:120]),
                    f"an object holding {doc!r}",
                    "MB-TEST-3",
                )
    finally:
        for loc in made:
            ctx.alone(judge, SubRequest("DELETE", loc))
