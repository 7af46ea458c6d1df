"""Sandbox member ids a store may take for something other than the member they name (spec 14.4).

Theory of operation: MB-TEST-3 lets a check choose any member id of "1 to 64 characters of
`A-Z a-z 0-9 - _`" and fixes the sandbox's answer to each write by whether the member it names
exists. A store can take an id for something else: a plain object or dictionary whose keys
include the names every object inherits (`constructor`, `__proto__`, `toString`), so those ids
look present before anything was written to them; a store that looks ids up as written but
stores them by the number they read as, so a PUT that creates `0123` overwrites `123`; or a
store that decodes a percent-encoded spelling for one method and not for another. A store that
serves `0`, `00` and `-0` as one member throughout is within the spec: its GET of `00` reads
what was written as `0`, and its PUT replaces it. Each answers the
random ids the other checks choose as MB-TEST-3 says, and breaks it only at such an id.

`sandbox-member-ids-confusable` writes, alone:

- ids naming properties built into common runtimes' objects, maps and dictionaries, ids that
  read as numbers (`0`, `00`, `-0`, `-1`, `1e3`, `0x10`, `NaN`, `Infinity`, `-Infinity`), ids
  of marks only (`-`, `_`, `--`, `__`), and a random number with three spellings of the same
  number. Each is read first: a GET answered 2xx or 3xx means a member is there (another
  client's), left untouched, unless it reads a document this check wrote under another id:
  the sandbox then serves both ids as one member (RFC 9110 §4.2 lets two URIs name one
  resource), and a PUT to it is one to an existing member, 200 or 204, whose document the
  other id reads back. Otherwise a PUT, which MB-TEST-3 answers 201, 404 or 405 for an id
  nothing was written to;
  every member written reads back with 200 and its own document (MB-TEST-4), deletes with
  200 or 204, and then reads and deletes with 404 or 410; an id whose PUT was refused deletes
  with 404 or 410.
- a member (created by PUT, or by POST where the sandbox refuses a PUT to an absent member)
  and a spelling of its path with unreserved characters percent-encoded. RFC 3986 §2.3 makes
  the two URIs the same resource; RFC 9110 §4.2.3 lets a server normalize and none must, so
  the spec does not fix whether the sandbox serves the spelling. The check learns it from the
  sandbox's GET of the spelling and holds its writes to that: found, the spelling is the
  member (its document, a PUT replacing it with 200 or 204, a DELETE removing it); not found,
  a PUT to it is answered as to an absent member and a DELETE with 404 or 410, and the member
  keeps its document.

Ids outside the syntax MB-TEST-3 lets a check choose (empty, `.` and `..`, a trailing dot, a
space or another character percent-encoded) are not sent. Every member the check creates is
deleted before it ends (MB-TEST-3: "A suite deletes every member it creates before it
finishes").
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.sandbox_documents import holds_written, json_write, tagged
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or with
#: 404 or 405 (it refused)".
PUT_ABSENT = frozenset({201, 404, 405})
#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
REPLACED = frozenset({200, 204})
#: MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
DELETED = frozenset({200, 204})
#: MB-TEST-3: "after which a `GET` of it answers 404 or 410"; "a `DELETE` of a member that does
#: not exist with 404 or 410".
GONE = frozenset({404, 410})
#: Names of properties built into the objects, maps and dictionaries of common runtimes: what
#: every JavaScript object inherits, what functions, arrays and maps carry, and a Python
#: object's attributes. Each is 1 to 64 characters of `A-Z a-z 0-9 - _` (MB-TEST-3).
BUILT_IN_NAMES = (
    "constructor",
    "__proto__",
    "prototype",
    "toString",
    "toLocaleString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "length",
    "size",
    "__class__",
    "__dict__",
    "__init__",
)
#: Ids a number parser reads: zero three ways, a negative, an exponent, a hexadecimal literal
#: and the names of the non-finite values. None is a name a sandbox counting from 1 gives a
#: POST, so no other client's member is likely there.
NUMBER_LIKE = ("0", "00", "-0", "-1", "1e3", "0x10", "NaN", "Infinity", "-Infinity")
#: Ids of marks only, the shortest the syntax allows beside letters and digits.
MARKS_ONLY = ("-", "_", "--", "__")
#: Digits of the random number whose spellings are written: more than a counter reaches.
NUMBER_DIGITS = 12


def _number_spellings() -> tuple[str, ...]:
    """A random number no member is named by, then three more ids a number parser reads as it:
    with a leading zero, with an exponent of zero, and with a digit separator."""
    n = str(10 ** (NUMBER_DIGITS - 1) + secrets.randbelow(9 * 10 ** (NUMBER_DIGITS - 1)))
    return (n, f"0{n}", f"{n}e0", f"{n[:4]}_{n[4:]}")


#: RFC 3986 §2.3 unreserved characters (`.` and `~` are outside the member id syntax).
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _encoded(path: str) -> str | None:
    """`path` with some of its last segment's characters percent-encoded: the first, every third
    after it, and each `-` and `_`, with hexadecimal digits in upper case and in lower case by
    turns (RFC 3986 §2.1: "equivalent"); None when the segment holds no such character."""
    head, _, last = path.rpartition("/")
    out: list[str] = []
    encoded = 0
    for i, ch in enumerate(last):
        if ch in UNRESERVED and ch not in ".~" and (i % 3 == 0 or ch in "-_"):
            code = f"%{ord(ch):02X}"
            out.append(code if encoded % 2 == 0 else code.lower())
            encoded += 1
        else:
            out.append(ch)
    return f"{head}/{''.join(out)}" if encoded else None


def _found(status: int | None) -> bool:
    """A GET answer that says something is there: a member (MB-TEST-3: "a `GET` of a member with
    200"), or another answer a server gives a resource it has."""
    return status is not None and 200 <= status < 400


@dataclass
class _Writes:
    """What the check wrote, by the path it wrote it to, and what it must delete at the end."""

    ctx: Context
    judge: Judge
    member: dict[str, Any]
    nonce: str
    #: Paths a PUT answered 2xx wrote, with the document written; in the order written.
    written: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Paths that may hold a write of the check's and are deleted at the end.
    cleanup: list[str] = field(default_factory=list)
    #: Whether a PUT created a member (MB-TEST-3 lets a sandbox refuse such PUTs instead).
    created_by_put: bool = False

    def doc(self, label: str) -> dict[str, Any]:
        return tagged(self.member, f"mb-suite {self.nonce} {label}")

    def get(self, path: str) -> Response:
        return self.ctx.alone(self.judge, SubRequest("GET", path))

    def put(self, path: str, doc: dict[str, Any]) -> int | None:
        status = self.ctx.alone(self.judge, json_write("PUT", path, doc)).status
        if status is not None and 200 <= status < 300:
            self.written[path] = doc
        if status == 201:
            self.created_by_put = True
        if status is None or status < 400 or status >= 500:
            self.cleanup.append(path)
        return status

    def delete(self, path: str) -> int | None:
        return self.ctx.alone(self.judge, SubRequest("DELETE", path)).status

    def holder(self, got: Response, related: bool) -> str | None:
        """The path whose written document a GET's 2xx answer reads; for an id derived from
        one the check drew at random (`related`), any 2xx answer when the sandbox does not read
        back, as no other client's member is named so."""
        if self.ctx.target.sandbox_reads_back:
            return next((p for p, d in self.written.items() if holds_written(got.body, d)), None)
        return next(iter(self.written), None) if related and self.written else None


def _write_ids(w: _Writes, coll: str, ids: tuple[str, ...], related: frozenset[str]) -> None:
    """A GET, then a PUT, of each id; the members written read back, then are deleted."""
    refused: list[str] = []
    put_answered: dict[str, int | None] = {}
    for ident in ids:
        loc = f"{coll}/{ident}"
        before = w.get(loc)
        if _found(before.status):
            held = w.holder(before, ident in related)
            if held is None:
                # MB-TEST-3: a suite "touches no member it did not create".
                w.judge.note(f"GET {loc} answered {before.status}: a member is there, untouched")
                continue
            # The sandbox serves this id as the member written as `held` (a store keyed by the
            # number an id reads as, say): RFC 9110 §4.2 lets two URIs name one resource, and
            # MB-TEST-3 answers "a `PUT` to an existing member with 200 or 204". Sent directly,
            # not through `w.put`: the alias is no member of its own to read back or delete.
            doc = w.doc(ident)
            aliased = w.ctx.alone(w.judge, json_write("PUT", loc, doc)).status
            w.judge.expect(
                f"PUT to {loc}, which the sandbox serves as the member written as {held}",
                aliased,
                REPLACED,
                "MB-TEST-3",
            )
            if aliased is not None and 200 <= aliased < 300:
                w.written[held] = doc
            continue
        if before.status not in GONE:
            w.judge.note(f"GET {loc}, an id nothing was written to, answered {before.status}")
        status = w.put(loc, w.doc(ident))
        put_answered[loc] = status
        # MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member)
        # or with 404 or 405 (it refused)", and spec 14.4: "A member id a check chooses for a
        # `PUT` is 1 to 64 characters of `A-Z a-z 0-9 - _`; a sandbox answers a `PUT` naming
        # any such id as this requirement says". Nothing was written to this id: its member
        # does not exist, whatever names the store's keys inherit, and whichever other id
        # reads as the same number (another string is another id).
        w.judge.expect(
            f"PUT to {loc}, an id nothing was written to", status, PUT_ABSENT, "MB-TEST-3"
        )
        if status in (404, 405):
            refused.append(loc)
    _read_back(w, [p for p in w.written if p in put_answered])
    for loc in [p for p in w.written if p in put_answered]:
        _delete_written(w, loc)
    for loc in refused:
        # MB-TEST-3: "a `DELETE` of a member that does not exist with 404 or 410": the PUT to
        # this id was refused, so nothing was ever written to it.
        gone = w.delete(loc)
        w.judge.expect(f"DELETE {loc}, whose PUT was refused", gone, GONE, "MB-TEST-3")


def _read_back(w: _Writes, paths: list[str]) -> None:
    """Each path reads as a member (MB-TEST-3) holding the document last written to it
    (MB-TEST-4), once every id has been written: ids a store takes for one member read the
    last of their writes."""
    for loc in paths:
        got = w.get(loc)
        # MB-TEST-3: "a `GET` of a member with 200".
        w.judge.expect(f"GET {loc} after a PUT wrote it", got.status, {200}, "MB-TEST-3")
        if got.status == 200 and w.ctx.target.sandbox_reads_back:
            doc = w.written[loc]
            # MB-TEST-4: "a representation of what was last written to it"; a write to another
            # id is a write to another member.
            w.judge.expect_true(
                f"GET {loc} reads what was written to it",
                holds_written(got.body, doc),
                repr(got.body[:120]),
                f"an object holding {doc!r}",
                "MB-TEST-4",
            )


def _delete_written(w: _Writes, loc: str) -> None:
    """Delete a member the check wrote, then read and delete it again."""
    deleted = w.delete(loc)
    # MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
    w.judge.expect(f"DELETE {loc}", deleted, DELETED, "MB-TEST-3")
    if deleted not in DELETED:
        return
    if loc in w.cleanup:
        w.cleanup.remove(loc)
    # MB-TEST-3: "after which a `GET` of it answers 404 or 410".
    after = w.get(loc).status
    w.judge.expect(f"GET {loc} after its DELETE", after, GONE, "MB-TEST-3")
    # MB-TEST-3: "a `DELETE` of a member that does not exist with 404 or 410".
    again = w.delete(loc)
    w.judge.expect(f"DELETE {loc} again", again, GONE, "MB-TEST-3")


def _spelled_member(w: _Writes, coll: str, creates: bool) -> str | None:
    """A member of the check's own to spell otherwise: created by PUT where the sandbox creates
    one so, else by POST (MB-TEST-3: "answering 201 with a `Location` field naming it")."""
    if creates:
        loc = f"{coll}/mb-{secrets.token_hex(5)}_z"
        if _found(w.get(loc).status):
            return None
        status = w.put(loc, w.doc("spelled"))
        w.judge.expect(
            f"PUT to {loc}, an id nothing was written to", status, PUT_ABSENT, "MB-TEST-3"
        )
        return loc if status == 201 else None
    doc = w.doc("spelled")
    made = w.ctx.alone(w.judge, json_write("POST", coll, doc))
    posted = created_path(w.ctx, coll, made.get("Location")) if made.status == 201 else None
    if posted is not None:
        w.written[posted] = doc
        w.cleanup.append(posted)
    return posted


def _write_spelling(w: _Writes, coll: str, creates: bool) -> None:
    """A member and a percent-encoded spelling of its path, held to what the sandbox's GET of
    the spelling says it is."""
    loc = _spelled_member(w, coll, creates)
    spelled = _encoded(loc) if loc else None
    if loc is None or spelled is None:
        w.judge.note("no member of the check's own to spell with percent-encoded characters")
        return
    doc, again = w.written[loc], w.doc("written through the spelling")
    before = w.get(spelled)
    if before.status == 200:
        # RFC 3986 §2.3: "URIs that differ in the replacement of an unreserved character with
        # its corresponding percent-encoded US-ASCII octet are equivalent: they identify the
        # same resource". The sandbox serves the spelling: it is the member.
        if w.ctx.target.sandbox_reads_back:
            # MB-TEST-4: "a representation of what was last written to it".
            w.judge.expect_true(
                f"GET {spelled}, a spelling of {loc}",
                holds_written(before.body, doc),
                repr(before.body[:120]),
                f"the document written to {loc}: {doc!r}",
                "MB-TEST-4",
            )
        status = w.put(spelled, again)
        # MB-TEST-3: "a `PUT` to an existing member with 200 or 204": its GET found it.
        w.judge.expect(f"PUT to {spelled}, which GET found", status, REPLACED, "MB-TEST-3")
        if status not in REPLACED:
            return
        got = w.get(loc)
        w.judge.expect(f"GET {loc} after a PUT to {spelled}", got.status, {200}, "MB-TEST-3")
        if got.status == 200 and w.ctx.target.sandbox_reads_back:
            # MB-TEST-4: what was last written to the member was written through its spelling.
            w.judge.expect_true(
                f"GET {loc} reads what was written to {spelled}",
                holds_written(got.body, again),
                repr(got.body[:120]),
                f"an object holding {again!r}",
                "MB-TEST-4",
            )
        deleted = w.delete(spelled)
        # MB-TEST-3: "a `DELETE` of an existing member with 200 or 204, after which a `GET` of
        # it answers 404 or 410", whichever spelling names it.
        w.judge.expect(f"DELETE {spelled}", deleted, DELETED, "MB-TEST-3")
        if deleted in DELETED:
            after = w.get(loc).status
            w.judge.expect(f"GET {loc} after a DELETE of {spelled}", after, GONE, "MB-TEST-3")
            if after in GONE:
                w.cleanup = [p for p in w.cleanup if p not in (loc, spelled)]
        return
    if _found(before.status):
        w.judge.note(f"GET {spelled} answered {before.status}: left untouched")
        return
    # RFC 9110 §4.2.3: "any HTTP component MAY perform normalization"; this sandbox finds no
    # member at the spelling, so it does not take it for the member.
    status = w.put(spelled, again)
    # MB-TEST-3: "a `PUT` to a member that does not exist with 201 ... or with 404 or 405":
    # the sandbox's GET found none at the spelling, so a PUT to it replaces nothing.
    w.judge.expect(
        f"PUT to {spelled}, which GET found no member at", status, PUT_ABSENT, "MB-TEST-3"
    )
    if status == 201:
        # RFC 9110 §4.2.3: "distinct resources SHOULD NOT be identified by HTTP URIs that are
        # equivalent after normalization".
        w.judge.note(f"PUT to {spelled} created a member beside {loc}, an equivalent URI")
    got = w.get(loc)
    w.judge.expect(f"GET {loc} after a PUT to {spelled}", got.status, {200}, "MB-TEST-3")
    if got.status == 200 and w.ctx.target.sandbox_reads_back and status not in REPLACED:
        # MB-TEST-4: "a representation of what was last written to it": the write to a
        # spelling the sandbox finds no member at wrote nothing to this member.
        w.judge.expect_true(
            f"GET {loc} after a PUT to {spelled}",
            holds_written(got.body, doc),
            repr(got.body[:120]),
            f"an object holding {doc!r}",
            "MB-TEST-4",
        )
    gone = w.delete(spelled)
    if status == 201:
        # MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
        w.judge.expect(f"DELETE {spelled}, created by PUT", gone, DELETED, "MB-TEST-3")
    else:
        # MB-TEST-3: "a `DELETE` of a member that does not exist with 404 or 410": its GET
        # found none.
        w.judge.expect(f"DELETE {spelled}, which GET found no member at", gone, GONE, "MB-TEST-3")
    if gone in DELETED and spelled in w.cleanup:
        w.cleanup.remove(spelled)
    if status not in REPLACED:
        still = w.get(loc).status
        # MB-TEST-3: "a `GET` of a member with 200": the member was never deleted.
        w.judge.expect(f"GET {loc} after a DELETE of {spelled}", still, {200}, "MB-TEST-3")


@checker(
    "sandbox-member-ids-confusable",
    ("MB-TEST-3", "MB-TEST-4"),
    "Sandbox member ids a store may take for something else (names of built-in object properties such as constructor and __proto__, ids reading as numbers such as 0, 00, -0, 1e3 and NaN, ids of marks only, four spellings of one random number) each answer a GET and then a PUT as an id nothing was written to (201, 404 or 405), read back their own document, delete with 200 or 204 and then answer 404 or 410; a percent-encoded spelling of a member's path is that member or no member, as the sandbox's GET of it says, for PUT and DELETE alike.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_ids_confusable(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection")).rstrip("/")
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    w = _Writes(ctx, judge, member, secrets.token_hex(4))
    try:
        numbers = _number_spellings()
        _write_ids(w, coll, (*BUILT_IN_NAMES, *NUMBER_LIKE, *MARKS_ONLY), frozenset())
        w.written.clear()
        _write_ids(w, coll, numbers, frozenset(numbers))
        w.written.clear()
        _write_spelling(w, coll, w.created_by_put)
    finally:
        for path in w.cleanup:
            ctx.alone(judge, SubRequest("DELETE", path))
