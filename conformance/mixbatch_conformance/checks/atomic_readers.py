"""Every kind of reader, at once, while an atomic batch that will not commit runs (spec 7.5).

Theory of operation: MB-PROC-15 says a server "MUST NOT let any other request, standalone or a
part of another batch, observe ... any effect of an atomic batch that does not commit". A server
can keep that promise on one path and break it on another: isolation taken where standalone
requests enter, but not where the parts of a batch run; or for a multipart answer, but not where
a 207 form is built; or not for a collection retrieval. So the check runs one reader per path,
each in its own thread, all while one atomic batch runs:

- a standalone GET of each member;
- a batch (no mode) of a GET of each member, answered as multipart/mixed;
- the same batch asking for each 207 form the target declares (spec 6.1);
- an atomic batch of the same GETs;
- where the sandbox is retrieved as a collection (spec 4.2), a retrieval of it.

Readers are threads of their own because a server that serializes makes a read wait for the
batch: a reader that took turns would wait there once and read nothing more while the batch
ran. The atomic batch rewrites one member (PUT), deletes another (DELETE) and creates one
(POST), waits on the `delay` resource, then fails on `not_found`, so it rolls back (MB-PROC-8).
No read may show the new document, the member gone, or the created one. A reader may wait for
the batch (a server that serializes) or answer at once from the state before it; both pass. A
reader batch the server refuses (a busy 503, say) reads nothing and is only noted.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.rollbacks import held_rollback, member_pair
from mixbatch_conformance.checks._shared.sandbox_marks import marked_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    MULTISTATUS_FORMS,
    entries_from_multipart,
)
from mixbatch_conformance.core.representations import (
    Reader as FormReader,
)
from mixbatch_conformance.core.validator import read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

ATOMIC = (("Batch-Mode", "atomic"),)
JSON_FIELDS = (("Content-Type", "application/json"),)
LISTING = (("Accept", "multipart/mixed"),)
#: Milliseconds the atomic batch waits between its writes and its failing part: long enough for
#: every reader to read several times, short enough that the check takes about a second.
DELAY_MS = 600
#: Seconds between two reads of one reader.
READ_PAUSE_S = 0.02
#: Reads at most of one reader, whatever the batch's length.
MAX_READS = 100


@dataclass(frozen=True)
class Read:
    """What one reader saw of one member: status, ETag, content."""

    how: str
    status: int | None
    etag: str | None
    body: bytes


#: A reader: one round of reads, each member as one path sees it (empty: the server refused).
Reader = Callable[[], list[Read]]


def _alone(ctx: Context, judge: Judge, paths: list[str]) -> Reader:
    def read() -> list[Read]:
        out = []
        for path in paths:
            got = ctx.alone(judge, SubRequest("GET", path))
            out.append(Read("a standalone GET", got.status, got.get("ETag"), got.body))
        return out

    return read


def _in_batch(
    ctx: Context, judge: Judge, paths: list[str], headers: tuple[tuple[str, str], ...], how: str
) -> Reader:
    """GET parts of `paths` in one batch sent with `headers`, read from the multipart answer."""

    def read() -> list[Read]:
        resp = ctx.batch(judge, [SubRequest("GET", p) for p in paths], headers=headers)
        if resp.status != 200 or resp.media_type != "multipart/mixed":
            judge.note(f"{how}: answered {resp.status} {resp.media_type!r}, read nothing")
            return []
        _, params = judge.media_type(
            "reader batch Content-Type", resp.get("Content-Type"), "MB-WIRE-3"
        )
        entries = entries_from_multipart(read_multipart(resp.body, params.get("boundary", "")))
        return [Read(how, e.status, _etag(e.fields), e.body) for e in entries]

    return read


def _in_form(
    ctx: Context, judge: Judge, paths: list[str], accept: str, reader: FormReader
) -> Reader:
    """GET parts of `paths` in one batch answered in the 207 form `accept`."""
    how = f"a batch answered as {accept}"

    def read() -> list[Read]:
        resp = ctx.batch(
            judge, [SubRequest("GET", p) for p in paths], headers=(("Accept", accept),)
        )
        if resp.status != 207:
            judge.note(f"{how}: answered {resp.status}, read nothing")
            return []
        entries, problem = reader(resp.body)
        if problem:
            judge.note(f"{how}: unreadable ({problem}), read nothing")
            return []
        return [Read(how, e.status, _etag(e.fields), e.body) for e in entries]

    return read


def _listing(ctx: Context, judge: Judge, coll: str) -> Reader:
    def read() -> list[Read]:
        got = ctx.send(judge, ctx.raw_request("GET", coll, LISTING))
        return [Read("a collection retrieval", got.status, got.get("ETag"), got.body)]

    return read


def _etag(fields: tuple[tuple[str, str], ...]) -> str | None:
    return next((v for n, v in fields if n.lower() == "etag"), None)


def _run_readers(
    ctx: Context, judge: Judge, readers: dict[str, Reader], subs: list[SubRequest]
) -> tuple[Response, dict[str, list[list[Read]]]]:
    """The atomic batch's answer, and each reader's rounds made while it ran."""
    answer: list[Response] = []
    failures: list[BaseException] = []
    seen: dict[str, list[list[Read]]] = {name: [] for name in readers}
    done = threading.Event()

    def write() -> None:
        try:
            answer.append(ctx.batch(judge, subs, headers=ATOMIC))
        except BaseException as exc:  # re-raised in the check's own thread
            failures.append(exc)
        finally:
            done.set()

    def loop(name: str, reader: Reader) -> None:
        try:
            while not done.is_set() and len(seen[name]) < MAX_READS:
                seen[name].append(reader())
                time.sleep(READ_PAUSE_S)
        except BaseException as exc:  # re-raised in the check's own thread
            failures.append(exc)

    threads = [threading.Thread(target=write, name="mixbatch-atomic-writer")]
    threads += [
        threading.Thread(target=loop, args=(name, r), name=f"mixbatch-reader-{i}")
        for i, (name, r) in enumerate(readers.items())
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    if not answer:
        judge.setup_error("the atomic batch got no answer")
    return answer[0], seen


@checker(
    "atomic-rollback-unseen-by-every-reader",
    ("MB-PROC-15",),
    "While an atomic batch rewrites, deletes and creates sandbox members, waits, then fails and rolls back, readers running at once on every path (standalone GETs, a batch in each declared form, an atomic batch, a collection retrieval) never see any of its writes.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def rollback_unseen_by_every_reader(ctx: Context, judge: Judge) -> None:
    coll, wait, fail = held_rollback(ctx, judge, DELAY_MS)
    if ctx.target.timeout < DELAY_MS / 1000 + 2:
        judge.not_applicable("the delayed batch does not fit the suite's time per exchange")
    old = f"mb-suite-old-{secrets.token_hex(6)}"
    new = f"mb-suite-new-{secrets.token_hex(6)}"
    created = f"mb-suite-created-{secrets.token_hex(6)}"
    rewritten, deleted, before = member_pair(ctx, judge, coll, old)
    # A target that declares ETag volatile gives no tag to tell a rewrite by (spec 3.2.4).
    stable_tags = "etag" not in {v.lower() for v in ctx.target.volatile_headers}
    tag = before.get("ETag") if stable_tags else None
    paths = [rewritten, deleted]

    def sees_write(r: Read, i: int) -> bool:
        if r.how == "a collection retrieval":
            # A retrieval's parts carry the members (MB-METHOD-4): the created one's document,
            # or the rewritten one's new document, is a write shown.
            return r.status == 200 and (created.encode() in r.body or new.encode() in r.body)
        if i == 1:
            # MB-TEST-3: after "a `DELETE` of an existing member ... a `GET` of it answers 404
            # or 410": a read that answers so has seen the delete.
            return r.status in (404, 410)
        if r.status != 200:
            return False
        if ctx.target.sandbox_reads_back:
            return new.encode() in r.body
        return tag is not None and r.etag is not None and r.etag != tag

    readers: dict[str, Reader] = {
        "standalone GETs": _alone(ctx, judge, paths),
        "a batch": _in_batch(ctx, judge, paths, (), "a batch"),
        "an atomic batch": _in_batch(ctx, judge, paths, ATOMIC, "an atomic batch"),
    }
    for profile, accept, reader, _ in MULTISTATUS_FORMS:
        if ctx.target.claims(profile):
            readers[f"a batch as {accept}"] = _in_form(ctx, judge, paths, accept, reader)
    listing = ctx.send(judge, ctx.raw_request("GET", coll, LISTING))
    if listing.status == 204 or (listing.status == 200 and listing.media_type == "multipart/mixed"):
        readers["a collection retrieval"] = _listing(ctx, judge, coll)
    else:
        judge.note(f"GET {coll} is no collection retrieval: no retrieval reads the sandbox")
    subs = [
        SubRequest("PUT", rewritten, JSON_FIELDS, marked_member(ctx, judge, new)),
        SubRequest("DELETE", deleted),
        SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, created)),
        wait,
        fail,
    ]
    resp, seen = _run_readers(ctx, judge, readers, subs)
    env = ctx.read_batch(judge, resp)
    failed = part_status(env, 4) if len(env.parts) > 4 else None
    if failed is None or failed < 400:
        judge.setup_error(f"the atomic batch's last part answered {failed}, not a failure")
    for name, rounds in seen.items():
        reads = [(i, r) for round_ in rounds for i, r in enumerate(round_)]
        leaks = [(i, r) for i, r in reads if sees_write(r, i)]
        shown = (
            f"{len(rounds)} rounds, {len(leaks)} reads saw a write later rolled back "
            f"(first: {leaks[0][1].how}, {paths[leaks[0][0]] if leaks[0][1].how != 'a collection retrieval' else coll} answered {leaks[0][1].status})"
            if leaks
            else f"{len(rounds)} rounds, {len(reads)} reads, none saw a write"
        )
        # MB-PROC-15: "MUST NOT let any other request, standalone or a part of another batch,
        # observe ... any effect of an atomic batch that does not commit".
        judge.expect_true(
            f"{name} while the atomic batch ran",
            not leaks,
            shown,
            "no read sees a write of an atomic batch that rolls back",
            "MB-PROC-15",
        )
