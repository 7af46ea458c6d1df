"""Conditional parts evaluated against the state the parts before them left (spec 7.2, 7.6).

Theory of operation: MB-PROC-9 evaluates a part's conditional fields "exactly as for the
standalone request", and MB-PROC-2 runs the parts "one at a time, each starting after the
previous one finished": a part's precondition is therefore evaluated when the part runs,
against what the writes before it in the same batch left, never against the state the batch
found. A server that evaluates every part's preconditions up front (while validating the
envelope, or against a snapshot taken for an atomic batch) answers them as if the earlier
writes had not happened. The check creates a member in the sandbox, learns its ETag alone, and
sends [PUT of another document, PUT with If-Match: the old tag, GET with If-None-Match: the
old tag, GET]: the old tag is stale once the first PUT ran, so the second PUT is 412 (RFC 9110
§13.1.1) and the GET is 200 (§13.1.2). It does so in every declared form, plain, under
batch-on-error=stop and as an atomic batch: under stop and atomic the 412 fails the batch
(spec 7.4), so the parts after it are skipped. A second batch deletes the member and then PUTs
it with If-None-Match: *, true once the member is gone, so the PUT gets what a PUT to a member
that does not exist gets alone (201, or the sandbox's 404 or 405), never 412.

`part-validators-of-their-moment` holds each part to the validators its own sub-response had
(MB-PROC-10), not those the resource has once the batch is over: [GET, PUT of another document,
GET, PUT of the first document, GET] of a member, plain and as an atomic batch, in every
declared form. The first GET carries the tag a GET alone has just before the batch, the last
the tag a GET alone has just after; a strong tag (RFC 9110 §8.8.1: a strong validator "changes
value whenever a change occurs to the representation data") differs between two GET parts whose
contents differ. A server that writes every part's ETag and Last-Modified at the end (a refresh
at an atomic batch's commit, validators read from the store once the parts have run) gives the
middle GET the tag of the document the batch ended with.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence

from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

JSON_TYPE = ("Content-Type", "application/json")


def _document(ctx: Context, mark: str) -> bytes:
    member = dict(ctx.target.sandbox_member or {})
    for key, value in member.items():
        if isinstance(value, str):
            member[key] = f"{value} {mark}"
            break
    return json.dumps(member).encode()


def _modes(ctx: Context) -> list[tuple[tuple[tuple[str, str], ...], str, str]]:
    modes: list[tuple[tuple[tuple[str, str], ...], str, str]] = [((), "continue", "MB-PROC-9")]
    if ctx.target.claims("error-policy"):
        modes.append(((("Prefer", "batch-on-error=stop"),), "stop", "MB-PROC-6"))
    if ctx.target.claims("atomic"):
        modes.append(((("Batch-Mode", "atomic"),), "atomic", "MB-PROC-8"))
    return modes


@checker(
    "conditional-parts-after-writes",
    ("MB-PROC-9", "MB-PROC-6", "MB-PROC-8"),
    "A PUT part whose If-Match names the tag a member had before an earlier PUT part of the same batch is answered 412, and a GET whose If-None-Match names it 200, in every declared form, plain, under batch-on-error=stop and atomic; a PUT with If-None-Match: * after a DELETE part of the member gets what a PUT to an absent member gets alone.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_parts_after_writes(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    before = ctx.alone(judge, SubRequest("GET", path))
    old = before.get("ETag")
    if before.status != 200 or not old:
        judge.setup_error(f"GET {path} alone answered {before.status} with ETag {old!r}")
    other = _document(ctx, secrets.token_hex(4))
    changed = ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), other))
    now = ctx.alone(judge, SubRequest("GET", path))
    if changed.status not in (200, 204) or not now.get("ETag"):
        judge.setup_error(f"PUT {path} alone answered {changed.status}")
    if now.get("ETag") == old:
        judge.not_applicable(f"{path} kept its ETag {old} across a write of another document")
    # Back to the first document, whose tag is `old` again where tags follow the content.
    ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), doc))
    for fields, name, requirement in _modes(ctx):
        subs = [
            SubRequest("PUT", path, (JSON_TYPE,), other),
            SubRequest("PUT", path, (JSON_TYPE, ("If-Match", old)), doc),
            SubRequest("GET", path, (("If-None-Match", old),)),
            SubRequest("GET", path),
        ]
        for media, _, entries in answers_in_every_form(ctx, judge, subs, fields):
            # MB-PROC-9 (RFC 9110 §13.1.1): once part 0 ran, `old` is no current tag of the
            # member, so If-Match is false and the PUT is 412; MB-PROC-2 runs part 1 after
            # part 0 finished.
            judge.expect(
                f"{name}, {media}: part 1 (If-Match: the tag before part 0)",
                entries[1].status,
                {412},
                "MB-PROC-9",
            )
            if name == "continue":
                # RFC 9110 §13.1.2: If-None-Match with a tag the member no longer has is true.
                judge.expect(
                    f"{name}, {media}: part 2 (If-None-Match: the tag before part 0)",
                    entries[2].status,
                    {200},
                    "MB-PROC-9",
                )
            elif entries[1].status == 412:
                # MB-PROC-6 / MB-PROC-8: the parts after the first failing part are skipped.
                judge.expect(
                    f"{name}, {media}: parts 2 and 3 after the 412",
                    (entries[2].outcome, entries[3].outcome),
                    {("skipped", "skipped")},
                    requirement,
                )
        # Back to the first document for the next mode.
        ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), doc))
    absent = f"{path.rsplit('/', 1)[0]}/mb-absent-{secrets.token_hex(6)}"
    created = ctx.alone(judge, SubRequest("PUT", absent, (JSON_TYPE,), doc))
    if created.status in (200, 201, 204):
        ctx.alone(judge, SubRequest("DELETE", absent))
    subs = [
        SubRequest("DELETE", path),
        SubRequest("PUT", path, (JSON_TYPE, ("If-None-Match", "*")), doc),
    ]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    judge.require(f"part 0 (DELETE {path}) status", part_status(env, 0), {200, 204}, "MB-TEST-3")
    # RFC 9110 §13.1.2: If-None-Match: * is false only "if the origin server has a current
    # representation for the target resource"; part 0 removed it, so the PUT runs as a PUT to
    # a member that does not exist does alone (MB-PROC-9).
    judge.expect(
        "part 1 (PUT with If-None-Match: * after the DELETE) status",
        part_status(env, 1),
        {created.status},
        "MB-PROC-9",
    )
    if part_status(env, 1) in (200, 201, 204):
        ctx.alone(judge, SubRequest("DELETE", path))


def _tag(fields: Sequence[tuple[str, str]]) -> str | None:
    return next((v for n, v in fields if n.lower() == "etag"), None)


@checker(
    "part-validators-of-their-moment",
    ("MB-PROC-10",),
    "In [GET, PUT of another document, GET, PUT back, GET] of a member, plain and atomic, in every declared form, each GET part carries the ETag of its own moment: the first the tag alone has just before, the last the tag alone has just after, and two GETs of different contents never one strong tag.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def part_validators_of_their_moment(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    other = _document(ctx, secrets.token_hex(4))
    changed = ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), other))
    if changed.status not in (200, 204):
        judge.setup_error(f"PUT {path} alone answered {changed.status}")
    ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), doc))
    modes: list[tuple[tuple[tuple[str, str], ...], str]] = [((), "plain")]
    if ctx.target.claims("atomic"):
        modes.append(((("Batch-Mode", "atomic"),), "atomic"))
    for fields, name in modes:
        subs = [
            SubRequest("GET", path),
            SubRequest("PUT", path, (JSON_TYPE,), other),
            SubRequest("GET", path),
            SubRequest("PUT", path, (JSON_TYPE,), doc),
            SubRequest("GET", path),
        ]
        before = _tag(ctx.alone(judge, SubRequest("GET", path)).headers)
        forms = answers_in_every_form(ctx, judge, subs, fields)
        after = _tag(ctx.alone(judge, SubRequest("GET", path)).headers)
        for k, (media, _, entries) in enumerate(forms):
            what = f"{name}, {media}"
            if any(entries[i].status != 200 for i in (0, 2, 4)):
                judge.note(f"{what}: a GET part was not answered 200; its tags are not judged")
                continue
            tags = [_tag(entries[i].fields) for i in (0, 2, 4)]
            # MB-PROC-10: "pass a sub-response's ETag and Last-Modified fields through to the
            # response part unchanged": part 0 ran before any write of the batch, part 4 after
            # its last, each where a GET alone found the member.
            if k == 0 and before is not None:
                judge.expect(f"{what}: part 0 ETag", tags[0], {before}, "MB-PROC-10")
            if k == len(forms) - 1 and after is not None:
                judge.expect(f"{what}: part 4 ETag", tags[2], {after}, "MB-PROC-10")
            for a, b in ((0, 2), (2, 4)):
                ta, tb = tags[a // 2], tags[b // 2]
                strong = ta is not None and tb is not None and not ta.startswith("W/")
                if strong and entries[a].body != entries[b].body:
                    # RFC 9110 §8.8.1: a strong validator "changes value whenever a change
                    # occurs to the representation data"; the two parts read different data.
                    judge.expect_true(
                        f"{what}: parts {a} and {b} ETags",
                        ta != tb,
                        f"both {ta} for different contents",
                        "the tag each sub-response had",
                        "MB-PROC-10",
                    )
