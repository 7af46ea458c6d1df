"""POSTs to the sandbox collection among DELETEs and PUT-created members (spec 14.4; MB-TEST-3,
MB-TEST-4).

Theory of operation: MB-TEST-3 answers a `POST` of a member document "by creating a new member
and answering 201 with a `Location` field naming it", and MB-TEST-4 reads each member back as
"what was last written to it". A store that names a new member by something other than its own
record of the names in use (the number of members plus one, a counter that skips no name a
`PUT` took) hands out a name still in use once members have been deleted or created by `PUT`,
and its POST writes over that member while it answers 201 all the same. Single POSTs, and POSTs
with nothing deleted before them, never show it.

`sandbox-creations-after-deletes` runs one plan of steps, each a few POSTs and DELETEs of the
check's own members: three POSTs; the oldest member deleted and a POST; the newest member
deleted and a POST; a POST; every member deleted; two POSTs; the newest deleted and two POSTs;
then DELETEs and POSTs interleaved. Where the sandbox creates a member by a `PUT` to an absent
id (MB-TEST-3 lets it refuse with 404 or 405 instead; the check learns which from its first
such `PUT`), `PUT`s then create members under the ids a counter would hand out next (the
numbers after the newest Location's, when it ends in digits), and further DELETEs and POSTs
follow. The plan runs twice: each request alone, and each step as one batch whose parts are its
writes in order followed by a `GET` of every earlier member still there (as few batches as a
published `max_parts` allows, MB-LIMIT-3).

After every request alone and every batch, each member the check holds is read alone and must
answer 200 (MB-TEST-3) with the document last written to it (MB-TEST-4, when the target
declares `sandbox.reads_back`); each POST must answer 201 with a `Location` naming no member the
check still holds (MB-TEST-3 "creating a new member"). A name a deleted member had may be handed
out again: nothing holds it any longer. Ids are only ever chosen where a `GET` finds no member
(MB-TEST-3: a suite "touches no member it did not create"), and every member the check created
is deleted before it ends (MB-TEST-3: "A suite deletes every member it creates before it
finishes").
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.checks._shared.sandbox_documents import holds_written, json_write, tagged
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or with
#: 404 or 405 (it refused)".
PUT_ABSENT = frozenset({201, 404, 405})
#: MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
DELETED = frozenset({200, 204})
#: MB-TEST-3: "after which a `GET` of it answers 404 or 410".
GONE = frozenset({404, 410})

#: One write of a step: ("POST", label) creates the member called `label`; ("DELETE", label)
#: deletes it; ("PUT", label) creates it under the next id a counter would hand out.
Op = tuple[str, str]
#: The steps, in order. A DELETE names a member created in an earlier step, so each step runs
#: as one batch without a reference to another part's answer.
PLAN: tuple[tuple[Op, ...], ...] = (
    (("POST", "a"), ("POST", "b"), ("POST", "c")),
    # The oldest member deleted: a count of members plus one names the newest.
    (("DELETE", "a"), ("POST", "d")),
    # The newest member deleted.
    (("DELETE", "d"), ("POST", "e")),
    (("POST", "f"),),
    # Every member deleted, then new ones.
    (("DELETE", "b"), ("DELETE", "c"), ("DELETE", "e"), ("DELETE", "f")),
    (("POST", "g"), ("POST", "h")),
    (("DELETE", "h"), ("POST", "i"), ("POST", "j")),
    # DELETEs and POSTs interleaved.
    (("DELETE", "g"), ("POST", "k"), ("DELETE", "i"), ("POST", "l"), ("POST", "m")),
)
#: The steps after PUTs created members under the ids a counter would hand out next.
AFTER_PUTS: tuple[tuple[Op, ...], ...] = (
    (("PUT", "p1"), ("PUT", "p2"), ("PUT", "p3")),
    (("POST", "n"),),
    (("DELETE", "j"), ("POST", "o")),
    (("DELETE", "p1"), ("DELETE", "k"), ("POST", "q"), ("POST", "r")),
)
#: A last path segment ending in a number: what comes before it, and its digits.
NUMBERED = re.compile(r"(.*?)([0-9]+)")
#: A member id a check may choose for a PUT (MB-TEST-3: "1 to 64 characters of `A-Z a-z 0-9 - _`").
CHOOSABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: How many numbers after the newest Location's are tried for the PUT-created members.
NEXT_NUMBERS = 6


def _next_numbers(loc: str) -> list[str]:
    """The member paths a counter may hand out after `loc`: the next numbers in its last
    segment, zero padding kept; none when it ends in no digits."""
    head, _, last = loc.rpartition("/")
    m = NUMBERED.fullmatch(last)
    if m is None:
        return []
    prefix, digits = m.groups()
    names = [f"{prefix}{int(digits) + k:0{len(digits)}d}" for k in range(1, NEXT_NUMBERS + 1)]
    return [f"{head}/{name}" for name in names if CHOOSABLE_ID.fullmatch(name)]


@dataclass
class _Run:
    """One run of the plan: the members the check holds, by label, and what it wrote."""

    ctx: Context
    judge: Judge
    coll: str
    member: dict[str, Any]
    how: str
    nonce: str = field(default_factory=lambda: secrets.token_hex(4))
    #: label -> (path, document last written) of each member the check holds.
    live: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    #: Every path a write of the check's may have created, deleted at the end.
    made: list[str] = field(default_factory=list)
    #: Paths the PUT step is to create, chosen before it runs.
    chosen: list[str] = field(default_factory=list)

    def doc(self, label: str) -> dict[str, Any]:
        return tagged(self.member, f"mb-suite {self.how} {label} {self.nonce}")

    def paths(self) -> dict[str, str]:
        """path -> label of each member held."""
        return {path: label for label, (path, _) in self.live.items()}

    def request(self, op: Op) -> SubRequest:
        method, label = op
        if method == "POST":
            return json_write("POST", self.coll, self.doc(label))
        if method == "PUT":
            return json_write("PUT", self.chosen.pop(0), self.doc(label))
        return SubRequest("DELETE", self.live[label][0])

    def held(self, ops: tuple[Op, ...]) -> tuple[Op, ...]:
        """The step's writes, without the DELETE of a member an earlier write did not leave
        held (its POST failed, or a later POST took its name)."""
        return tuple(op for op in ops if op[0] != "DELETE" or op[1] in self.live)

    def answered(
        self, what: str, op: Op, sub: SubRequest, status: int | None, loc: str | None
    ) -> None:
        """Judge one write's answer and record what it did to the members held."""
        method, label = op
        j = self.judge
        if method == "DELETE":
            # MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
            j.expect(f"{what}: DELETE of member {label}", status, DELETED, "MB-TEST-3")
            self.live.pop(label, None)
            if status in DELETED and sub.target in self.made:
                # MB-TEST-3: a suite "touches no member it did not create": the name may be
                # another client's member from now on.
                self.made.remove(sub.target)
            return
        if method == "PUT":
            # MB-TEST-3: "a `PUT` to a member that does not exist with 201 ... or with 404 or
            # 405": a GET found no member at this id before the check chose it.
            j.expect(f"{what}: PUT creating member {label}", status, PUT_ABSENT, "MB-TEST-3")
            if status == 201:
                self.made.append(sub.target)
                self.live[label] = (sub.target, self.doc(label))
            return
        named = created_path(self.ctx, self.coll, loc) if status == 201 else None
        # MB-TEST-3: "answer a `POST` of a member document to it by creating a new member and
        # answering 201 with a `Location` field naming it".
        j.expect_true(
            f"{what}: POST of member {label}",
            named is not None,
            f"{status} with Location {loc!r}",
            "201 with a Location",
            "MB-TEST-3",
        )
        if named is None:
            return
        if named not in self.made:
            self.made.append(named)
        held = self.paths().get(named)
        # MB-TEST-3: "by creating a new member": not one the check still holds, which the POST
        # would write over.
        j.expect_true(
            f"{what}: POST of member {label} names a new member",
            held is None,
            f"Location {loc!r} names member {held}, still there" if held else repr(loc),
            f"a member other than {sorted(self.paths())!r}",
            "MB-TEST-3",
        )
        if held is not None:
            # What the POST did to the member it named: read back, it shows whether the POST
            # wrote over it. The check holds the POST's member under that name from now on.
            got = self.ctx.alone(self.judge, SubRequest("GET", named))
            self._judge_read(
                f"{what}: GET {named} (member {held}, named again by a POST)",
                got.status,
                got.body,
                self.live.pop(held)[1],
            )
        self.live[label] = (named, self.doc(label))

    def read_all(self, what: str) -> None:
        """Each member held reads alone with 200 and its own document."""
        for label, (path, doc) in self.live.items():
            got = self.ctx.alone(self.judge, SubRequest("GET", path))
            where = f"{what}: GET {path} (member {label}) alone"
            self._judge_read(where, got.status, got.body, doc)

    def _judge_read(self, what: str, status: int | None, body: bytes, doc: dict[str, Any]) -> None:
        # MB-TEST-3: "a `GET` of a member with 200".
        self.judge.expect(what, status, {200}, "MB-TEST-3")
        if status == 200 and self.ctx.target.sandbox_reads_back:
            # MB-TEST-4: "a representation of what was last written to it": no later POST
            # wrote to it, as each created a new member.
            self.judge.expect_true(
                f"{what} reads back",
                holds_written(body, doc),
                repr(body[:120]),
                f"an object holding {doc!r}",
                "MB-TEST-4",
            )

    def step_alone(self, n: int, ops: tuple[Op, ...]) -> None:
        for op in self.held(ops):
            sub = self.request(op)
            resp = self.ctx.alone(self.judge, sub)
            what = f"alone, step {n}, {op[0]} {op[1]}"
            self.answered(what, op, sub, resp.status, resp.get("Location"))
            if op[0] == "DELETE" and resp.status in DELETED:
                after = self.ctx.alone(self.judge, SubRequest("GET", sub.target)).status
                # MB-TEST-3: "after which a `GET` of it answers 404 or 410".
                self.judge.expect(f"{what}: GET after the DELETE", after, GONE, "MB-TEST-3")
            self.read_all(what)

    def step_batched(self, n: int, ops: tuple[Op, ...]) -> None:
        ops = self.held(ops)
        deleted = {label for method, label in ops if method == "DELETE"}
        kept = [(label, path) for label, (path, _) in self.live.items() if label not in deleted]
        items: list[tuple[Op | None, SubRequest]] = [(op, self.request(op)) for op in ops]
        items += [(None, SubRequest("GET", path)) for _, path in kept]
        reads = iter(kept)
        for run in within_max_parts(self.ctx, self.judge, items):
            subs = [sub for _, sub in run]
            sent = self.ctx.batch(self.judge, subs)
            env = expect_processed(self.ctx, self.judge, sent, [s.content_id for s in subs])
            for i, (op, sub) in enumerate(run):
                what = f"in a batch, step {n}, part {i}"
                if op is not None:
                    self.answered(
                        f"{what} ({op[0]} {op[1]})",
                        op,
                        sub,
                        part_status(env, i),
                        env.parts[i].get("Location"),
                    )
                    continue
                label, path = next(reads)
                if label not in self.live:
                    continue
                # MB-PROC-2 runs the parts in order: the GET follows every write of the step.
                self._judge_read(
                    f"{what}: GET {path} (member {label})",
                    part_status(env, i),
                    env.parts[i].body,
                    self.live[label][1],
                )
        self.read_all(f"after the batch of step {n}")

    def choose_put_ids(self, count: int) -> bool:
        """Paths no member is at, among the numbers after the newest Location's."""
        newest = next(reversed(self.live.values()), None) if self.live else None
        self.chosen = []
        if newest is None:
            return False
        for path in _next_numbers(newest[0]):
            if len(self.chosen) == count:
                break
            if self.ctx.alone(self.judge, SubRequest("GET", path)).status in GONE:
                self.chosen.append(path)
        return len(self.chosen) == count


def _creates_by_put(ctx: Context, judge: Judge, coll: str, member: dict[str, Any]) -> bool:
    """Whether the sandbox creates a member by a PUT to an absent id, learnt from one PUT to a
    random id a GET finds nothing at (MB-TEST-3 lets it refuse with 404 or 405)."""
    path = f"{coll}/mb-{secrets.token_hex(6)}"
    if ctx.alone(judge, SubRequest("GET", path)).status not in GONE:
        return False
    status = ctx.alone(judge, json_write("PUT", path, tagged(member, "mb-suite probe"))).status
    # MB-TEST-3: "a `PUT` to a member that does not exist with 201 ... or with 404 or 405".
    judge.expect(f"PUT to {path}, an id nothing was written to", status, PUT_ABSENT, "MB-TEST-3")
    if status is not None and status < 400:
        ctx.alone(judge, SubRequest("DELETE", path))
    return status == 201


@checker(
    "sandbox-creations-after-deletes",
    ("MB-TEST-3", "MB-TEST-4"),
    "POSTs to the sandbox after DELETEs of its oldest, newest and every member, interleaved with DELETEs, and after PUTs created the ids a counter hands out next, alone and as parts of batches, each answer 201 with a Location naming no member still there, and after every request every member still there reads back its own document.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_creations_after_deletes(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection")).rstrip("/")
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    if not any(isinstance(v, str) for v in member.values()):
        judge.not_applicable("sandbox.member has no string member to tell writes apart")
    by_put = _creates_by_put(ctx, judge, coll, member)
    if not by_put:
        judge.note("the sandbox refuses a PUT to an absent member: no PUT-created members")
    for how in ("alone", "batched"):
        run = _Run(ctx, judge, coll, member, how)
        step = run.step_alone if how == "alone" else run.step_batched
        try:
            for n, ops in enumerate(PLAN):
                step(n, ops)
            if not by_put:
                continue
            if not run.choose_put_ids(3):
                judge.note(f"{how}: no three free numbered ids after the newest member's")
                continue
            for n, ops in enumerate(AFTER_PUTS, start=len(PLAN)):
                step(n, ops)
        finally:
            for path in run.made:
                ctx.alone(judge, SubRequest("DELETE", path))
