"""Safe parts placed after a write of the same member see it (spec 7.2).

Theory of operation: MB-PROC-2 makes a batch's effects and responses those of its parts run
"one at a time, each starting after the previous one finished, in request order". MB-PROC-3
lets a server run consecutive safe parts together, and nothing more: a write between two reads
is a barrier. A server that starts safe parts early (at the start of the batch, or while an
earlier part is still running) answers a read placed after a write with the state before it.

Each batch opens with a slow part (the `delay` resource), which gives such a server time to run
the later reads first, then reads and writes sandbox members the check created:

    GET m1 (old), PUT m1 (new), GET m1 (new), HEAD m1,
    GET listing (without c), POST c, GET listing (with c),   where the sandbox is retrieved
    DELETE m2, HEAD m2, GET m2 (404 or 410)

The read before the write must not see it; each read after it must. Expected outcomes are
absolute where the spec fixes them (MB-TEST-3: a deleted member's GET answers 404 or 410;
MB-TEST-4: a sandbox that reads back serves what was last written) and learnt from the same
server where it does not: a HEAD is answered as a HEAD of the member alone once the batch is
answered, and without read-back a GET after the PUT carries the ETag a GET alone gets then.
The batch runs under the default policy, under `batch-on-error=stop` (error-policy) and as an
atomic batch (atomic); a policy that stops on a failure ends with the only failing part, and the
atomic batch leaves out the delete so that it commits. Where the target offers references
(spec 7.7), one more batch creates a member and reads it through a reference to the creating
part, `GET $(1)` after `POST`: the read must find the member it names, with its content.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.sandbox_marks import created_member, marked_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

JSON_FIELDS = (("Content-Type", "application/json"),)
LISTING = (("Accept", "multipart/mixed"),)
#: Milliseconds of the slow first part: ample time for a read started early to finish first.
DELAY_MS = 150
#: The policies a batch runs under: (name, batch fields, profile, whether it deletes).
POLICIES = (
    ("default (continue)", (), "core", True),
    ("batch-on-error=stop", (("Prefer", "batch-on-error=stop"),), "error-policy", True),
    ("atomic", (("Batch-Mode", "atomic"),), "atomic", False),
)


@dataclass(frozen=True)
class Probe:
    """One read of the batch and what it must show."""

    label: str
    sub: SubRequest
    #: "old", "new", "deleted", "head", "without" or "with" (a listing).
    expects: str


def _read(
    subs: list[SubRequest], probes: dict[int, Probe], label: str, sub: SubRequest, expects: str
) -> None:
    """Append the read `sub` to the batch, with what it must show."""
    probes[len(subs)] = Probe(label, sub, expects)
    subs.append(sub)


def _retrieved(ctx: Context, judge: Judge, coll: str) -> bool:
    got = ctx.send(judge, ctx.raw_request("GET", coll, LISTING))
    return got.status == 204 or (got.status == 200 and got.media_type == "multipart/mixed")


@checker(
    "safe-parts-see-earlier-writes",
    ("MB-PROC-2",),
    "After a slow first part, a GET, HEAD or collection retrieval part placed after a PUT, POST or DELETE of the same sandbox member sees its effect and one placed before does not, under the default policy, under stop and in an atomic batch; a GET through a reference to the POST part that created its member finds it.",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def safe_parts_see_earlier_writes(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    slow = SubRequest("GET", ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(DELAY_MS))))
    reads_back = ctx.target.sandbox_reads_back
    listed = reads_back and _retrieved(ctx, judge, coll)
    stable_tags = "etag" not in {v.lower() for v in ctx.target.volatile_headers}
    for policy, fields, profile, deletes in POLICIES:
        if not ctx.target.claims(profile):
            judge.note(f"{policy}: the target does not offer {profile}, not sent")
            continue
        old = f"mb-suite-old-{secrets.token_hex(6)}"
        new = f"mb-suite-new-{secrets.token_hex(6)}"
        made = f"mb-suite-created-{secrets.token_hex(6)}"
        m1 = created_member(ctx, judge, coll, old)
        m2 = created_member(ctx, judge, coll, old) if deletes else ""
        head_before = ctx.alone(judge, SubRequest("HEAD", m1)).status
        # A target that declares ETag volatile gives no tag to compare (spec 3.2.4).
        tag_before = ctx.alone(judge, SubRequest("GET", m1)).get("ETag") if stable_tags else None
        subs: list[SubRequest] = [slow]
        probes: dict[int, Probe] = {}

        _read(subs, probes, f"GET {m1} before its PUT", SubRequest("GET", m1), "old")
        subs.append(SubRequest("PUT", m1, JSON_FIELDS, marked_member(ctx, judge, new)))
        _read(subs, probes, f"GET {m1} after its PUT", SubRequest("GET", m1), "new")
        if head_before == 200:
            _read(subs, probes, f"HEAD {m1} after its PUT", SubRequest("HEAD", m1), "head")
        if listed:
            _read(
                subs,
                probes,
                f"retrieval of {coll} before the POST",
                SubRequest("GET", coll, LISTING),
                "without",
            )
            subs.append(SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, made)))
            _read(
                subs,
                probes,
                f"retrieval of {coll} after the POST",
                SubRequest("GET", coll, LISTING),
                "with",
            )
        if deletes:
            subs.append(SubRequest("DELETE", m2))
            if head_before == 200 and policy.startswith("default"):
                # A HEAD answering 404 fails, so under stop it would skip the GET after it.
                _read(subs, probes, f"HEAD {m2} after its DELETE", SubRequest("HEAD", m2), "head")
            _read(subs, probes, f"GET {m2} after its DELETE", SubRequest("GET", m2), "deleted")
        resp = ctx.batch(judge, subs, headers=fields)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
        writes = [i for i, s in enumerate(subs) if s.method in ("PUT", "POST", "DELETE")]
        for i in writes:
            # MB-TEST-3: the sandbox answers these writes with 2xx.
            judge.require(
                f"{policy}: part {i} ({subs[i].method} {subs[i].target}) status",
                part_status(env, i),
                {200, 201, 204},
                "MB-TEST-3",
            )
        # Once the batch is answered, each member is in the state its last write left, so a
        # read alone now is what a read placed after that write must have seen.
        after = {
            (p.sub.method, p.sub.target): ctx.alone(judge, p.sub)
            for p in probes.values()
            if p.expects == "head" or (p.expects == "new" and not reads_back)
        }
        for i, probe in probes.items():
            status, part = part_status(env, i), env.parts[i]
            body = part.body
            label = f"{policy}: {probe.label}"
            # MB-PROC-2: "MUST produce the effects and the responses of a batch as if it had
            # run the parts one at a time, each starting after the previous one finished, in
            # request order".
            if probe.expects == "deleted":
                judge.expect(f"{label}, status", status, {404, 410}, "MB-PROC-2")
            elif probe.expects == "head":
                alone = after[(probe.sub.method, probe.sub.target)]
                judge.expect(
                    f"{label}, status as alone once answered", status, {alone.status}, "MB-PROC-2"
                )
                tag = alone.get("ETag")
                if probe.sub.target == m1 and tag_before and tag and tag != tag_before:
                    judge.expect(f"{label}, ETag", part.get("ETag"), {tag}, "MB-PROC-2")
            elif probe.expects in ("old", "new"):
                judge.expect(f"{label}, status", status, {200}, "MB-PROC-2")
                mine, other = (old, new) if probe.expects == "old" else (new, old)
                if reads_back:
                    judge.expect_true(
                        f"{label}, content",
                        mine.encode() in body and other.encode() not in body,
                        f"holds {'the new' if new.encode() in body else 'the old' if old.encode() in body else 'neither'} document",
                        f"the {probe.expects} document",
                        "MB-PROC-2",
                    )
                elif probe.expects == "new":
                    tag_after = after[("GET", m1)].get("ETag")
                    if tag_before and tag_after and tag_after != tag_before:
                        judge.expect(f"{label}, ETag", part.get("ETag"), {tag_after}, "MB-PROC-2")
                elif tag_before is not None:
                    judge.expect(f"{label}, ETag", part.get("ETag"), {tag_before}, "MB-PROC-2")
            else:
                shown = made.encode() in body
                judge.expect_true(
                    f"{label}, the created member",
                    shown == (probe.expects == "with"),
                    f"{'shown' if shown else 'not shown'} (status {status})",
                    "shown" if probe.expects == "with" else "not shown",
                    "MB-PROC-2",
                )
    if ctx.target.claims("references"):
        _created_then_read(ctx, judge, coll, slow)


def _created_then_read(ctx: Context, judge: Judge, coll: str, slow: SubRequest) -> None:
    """A member created by a POST part and read through a reference to that part."""
    made = f"mb-suite-created-{secrets.token_hex(6)}"
    post = SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, made))
    subs = [slow, post, SubRequest("GET", "$(1)")]
    resp = ctx.batch(judge, subs, headers=(("Batch-Mode", "references"),))
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    # MB-TEST-3: the sandbox answers a POST of a member document 201.
    judge.require("references: part 1 (POST) status", part_status(env, 1), {201}, "MB-TEST-3")
    # MB-PROC-2: the GET runs after the POST finished, so the member it names exists.
    judge.expect(
        "references: GET $(1) after the POST, status", part_status(env, 2), {200}, "MB-PROC-2"
    )
    if ctx.target.sandbox_reads_back:
        body = env.parts[2].body
        judge.expect_true(
            "references: GET $(1) after the POST, content",
            made.encode() in body,
            "the created document" if made.encode() in body else f"{body[:80]!r}",
            "the created document",
            "MB-PROC-2",
        )
