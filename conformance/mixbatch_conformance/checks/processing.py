"""Processing-model checks (spec 7.1, 7.5, 7.6): validation first, atomic mode, conditionals.

Theory of operation: a batch rejected for a malformed later part must not have run its
earlier write, a POST of the target's `sandbox.member` marked with a fresh value, observed
through a collection retrieval of the sandbox (MB-PROC-1); a server without the
atomic profile answers Batch-Mode: atomic with 501 (MB-PROC-7); conditional parts give the
status the same request gets alone and pass ETag and Last-Modified through octet for octet as
the request alone gets them, in every form the target declares (MB-PROC-9, MB-PROC-10), and
so does a conditional field split over two field lines, the current tag on either. The
error-policy checks (spec 7.4) live in policies, but for `error-policy-skipped-parts-do-not-run`,
which writes: a POST skipped under stop must not have run (MB-PROC-6), read back from the sandbox
listing as `malformed-batch-runs-nothing` reads it. `batch-mode-read-as-list` sends Batch-Mode
joined on one field line and split over several, an unimplemented mode before and after an
implemented one: each lists a mode the server does not implement, so each is 501 (MB-PROC-17).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import etag_of, ok_and_not_found, sandbox_listing
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form, entry_requirement

BOUNDARY = "mb-sem-5d0c6f1e2b9a8374"
#: The modes the spec defines, each with the profile that implements it (spec 7.7).
MODES = {"atomic": "atomic", "references": "references"}
#: A mode no server implements.
UNKNOWN_MODE = "mb-suite-no-such-mode"
#: The fields MB-PROC-10 has passed through unchanged.
PASSED_THROUGH = ("ETag", "Last-Modified")


@checker(
    "malformed-batch-runs-nothing",
    ("MB-PROC-1", "MB-STATUS-2"),
    "A batch rejected for a malformed later part has not run its earlier well-formed write.",
    state=State.WRITES_IN_SANDBOX,
)
def malformed_runs_nothing(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    marker, post = marked_post(ctx, judge, coll)
    before = sandbox_listing(ctx, judge, coll)
    if marker.encode() in before:
        judge.setup_error("the marker is already in the sandbox listing")
    body = compose_batch([post], BOUNDARY)
    body = (
        body[: -len(f"\r\n--{BOUNDARY}--")]
        + (f"\r\n--{BOUNDARY}\r\nContent-Id: <{echo}>\r\n\r\n\r\n--{BOUNDARY}--").encode()
    )
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    # MB-STATUS-2: a missing `Http-Method` is answered 400 "before any part runs".
    expect_rejected(judge, resp, {400}, "MB-STATUS-2")
    after = sandbox_listing(ctx, judge, coll)
    # MB-PROC-1: "MUST NOT run any part before it has ... validated its whole envelope".
    judge.expect_true(
        "collection unchanged",
        marker.encode() not in after,
        "the POST part ran" if marker.encode() in after else "not created",
        "the earlier POST part did not run",
        "MB-PROC-1",
    )


@checker(
    "error-policy-skipped-parts-do-not-run",
    ("MB-PROC-6",),
    "Under batch-on-error=stop a POST after the failing part is answered skipped and has not run: the sandbox holds no member it would have written.",
    profile="error-policy",
    state=State.WRITES_IN_SANDBOX,
)
def skipped_parts_do_not_run(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    marker, post = marked_post(ctx, judge, coll)
    before = sandbox_listing(ctx, judge, coll)
    if marker.encode() in before:
        judge.setup_error("the marker is already in the sandbox listing")
    _, nf = ok_and_not_found(ctx, judge)
    subs = [nf, post]
    resp = ctx.batch(judge, subs, headers=(("Prefer", "batch-on-error=stop"),))
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    judge.expect("part 1 outcome", env.parts[1].get("Batch-Outcome"), {"skipped"}, "MB-PROC-6")
    after = sandbox_listing(ctx, judge, coll)
    # MB-PROC-6: "answer every part after the first failing part with `Batch-Outcome:
    # skipped`, run none of them".
    judge.expect_true(
        "collection unchanged",
        marker.encode() not in after,
        "the skipped POST ran" if marker.encode() in after else "not created",
        "the skipped POST did not run",
        "MB-PROC-6",
    )


@checker(
    "atomic-unsupported",
    ("MB-PROC-7",),
    "A server without the atomic profile answers Batch-Mode: atomic with 501 before any part runs, for a batch of one part and for one of several whose first fails.",
    state=State.READ_ONLY,
)
def atomic_unsupported(ctx: Context, judge: Judge) -> None:
    if ctx.target.claims("atomic"):
        judge.not_applicable("the target claims the atomic profile")
    ok, not_found = ok_and_not_found(ctx, judge)
    # MB-PROC-7: "answer a batch request carrying `Batch-Mode: atomic` with 501 (Not
    # Implemented) before any part runs", however many parts it has and whatever they answer.
    for label, subs in (("one part", [ok]), ("a failing part, then another", [not_found, ok])):
        resp = ctx.batch(judge, subs, headers=(("Batch-Mode", "atomic"),))
        judge.expect(f"{label}: status", resp.status, {501})


@checker(
    "conditional-parts",
    ("MB-PROC-9", "MB-PROC-10"),
    "If-None-Match and If-Match in parts give 304 and 412 exactly as alone, with ETag and Last-Modified passed through unchanged, in every form.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_parts(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    subs = [
        SubRequest("GET", path, (("If-None-Match", etag),)),
        SubRequest("GET", path, (("If-Match", '"mb-suite-no-such-etag"'),)),
        SubRequest("GET", path, (("If-None-Match", '"mb-suite-no-such-etag"'),)),
    ]
    # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly as
    # for the standalone request"; MB-PROC-10: "pass a sub-response's `ETag` ... through".
    alone = [ctx.alone(judge, s) for s in subs]
    statuses = [a.status for a in alone]
    if statuses != [304, 412, 200]:
        # RFC 9110 §13.1 fixes these answers alone; a resource that gives others is not the
        # etag_resource MB-TEST-1 describes, and the batch cannot be judged against it.
        judge.setup_error(f"the conditional GETs alone answered {statuses}, not [304, 412, 200]")
    # Every form the target declares: each carries the part's header fields (MB-MULTI-5).
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, single in enumerate(alone):
            judge.expect(
                f"{media} part {i} status", entries[i].status, {single.status}, "MB-PROC-9"
            )
            # MB-PROC-10: "pass a sub-response's `ETag` and `Last-Modified` fields through to
            # the response part unchanged": octet for octet what the same request gets alone.
            for name in PASSED_THROUGH:
                got = [v for n, v in entries[i].fields if n.lower() == name.lower()]
                judge.expect(f"{media} part {i} {name}", got, [single.get_all(name)], "MB-PROC-10")
        for i in (0, 2):
            got = [v for n, v in entries[i].fields if n.lower() == "etag"]
            judge.expect(f"{media} part {i} ETag", got, [[etag]], "MB-PROC-10")


@checker(
    "rolled-back-validators-kept",
    ("MB-PROC-10", "MB-PROC-8", "MB-MULTI-6", "MB-MULTI-4"),
    "In an atomic batch that fails, the etag_resource's GET and conditional GET parts before the failing one are rolled-back with the ETag and Last-Modified the same requests get alone, in every form.",
    profile="atomic",
    state=State.READ_ONLY,
)
def rolled_back_validators_kept(ctx: Context, judge: Judge) -> None:
    if not ctx.target.claims("conditional"):
        judge.not_applicable("the target does not offer the conditional profile (MB-PROC-10)")
    path, etag = etag_of(ctx, judge)
    _, nf = ok_and_not_found(ctx, judge)
    ran = [SubRequest("GET", path), SubRequest("GET", path, (("If-None-Match", etag),))]
    alone = [ctx.alone(judge, s) for s in ran]
    statuses = [a.status for a in alone]
    if statuses != [200, 304]:
        judge.setup_error(f"the etag_resource's GETs alone answered {statuses}, not [200, 304]")
    # GETs only, then a 404 (MB-TEST-1): the batch fails and changes nothing either way.
    subs = [*ran, nf]
    forms = answers_in_every_form(ctx, judge, subs, (("Batch-Mode", "atomic"),))
    base = forms[0][2]
    for media, _, entries in forms:
        for i, single in enumerate(alone):
            # MB-PROC-8: "mark each part before the failing one `Batch-Outcome:
            # rolled-back` with its real status".
            # The 207 forms: see entry_requirement.
            judge.expect(
                f"{media} part {i} outcome",
                entries[i].outcome,
                {"rolled-back"},
                entry_requirement(media, base[i].outcome == "rolled-back", "MB-PROC-8"),
            )
            # MB-PROC-10: "pass a sub-response's `ETag` and `Last-Modified` fields through to
            # the response part unchanged": a part rolled back ran, and its sub-response had
            # them; the spec makes no exception for the outcome.
            for name in PASSED_THROUGH:
                got = [v for n, v in entries[i].fields if n.lower() == name.lower()]
                judge.expect(
                    f"{media} rolled-back part {i} {name}",
                    got,
                    [single.get_all(name)],
                    "MB-PROC-10",
                )


#: A tag the etag_resource never has.
OTHER_TAG = '"mb-suite-no-such-etag"'


def _split_conditions(etag: str) -> list[tuple[tuple[str, str], ...]]:
    """Conditional fields whose list is split over two field lines (RFC 9110 §5.3: a recipient
    may combine them into one list): the current tag on the first line and on the second, two
    tags that do not match, and the current tag's weak form on the second line."""
    out: list[tuple[tuple[str, str], ...]] = []
    for name in ("If-None-Match", "If-Match"):
        out.append(((name, etag), (name, OTHER_TAG)))
        out.append(((name, OTHER_TAG), (name, etag)))
    out.append((("If-Match", OTHER_TAG), ("If-Match", '"mb-suite-other-etag"')))
    if not etag.startswith("W/"):
        # RFC 9110 §13.1.2: If-None-Match compares weakly, so the weak form of the current
        # tag on the second line matches as well.
        out.append((("If-None-Match", OTHER_TAG), ("If-None-Match", f"W/{etag}")))
    return out


@checker(
    "conditional-fields-on-several-lines",
    ("MB-PROC-9",),
    "If-None-Match and If-Match split over two field lines, the current tag on the first or on the second, give a GET or HEAD part the status the same request gets alone, in every form.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_fields_on_several_lines(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    # GET and HEAD alike: RFC 9110 §13.1.2 answers either 304 when If-None-Match matches.
    subs = [
        SubRequest(m, path, lines) for lines in _split_conditions(etag) for m in ("GET", "HEAD")
    ]
    alone = [ctx.alone(judge, s) for s in subs]
    # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly as
    # for the standalone request": every field line of the part, not the first or the last.
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, single in enumerate(alone):
            judge.expect(
                f"{media} part {i} ({subs[i].method}) status with {list(subs[i].headers)!r}",
                entries[i].status,
                {single.status},
                "MB-PROC-9",
            )


@checker(
    "batch-mode-read-as-list",
    ("MB-PROC-17", "MB-PROC-12"),
    "Batch-Mode is read as one list over all its field lines: an unimplemented mode joined to or on a line after an implemented one is answered 501, and implemented modes split over lines run as when joined.",
    state=State.READ_ONLY,
)
def batch_mode_read_as_list(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    known = [m for m, profile in MODES.items() if ctx.target.claims(profile)]
    unknown = [m for m, profile in MODES.items() if not ctx.target.claims(profile)]
    unknown.append(UNKNOWN_MODE)
    sendings: list[list[str]] = []
    for bad in unknown:
        for good in known or [UNKNOWN_MODE if bad != UNKNOWN_MODE else "atomic"]:
            if good == bad:
                continue
            sendings += [[good, bad], [bad, good], [f"{good}, {bad}"], [f"{bad}, {good}"]]
            sendings += [[f"{good},", bad], [good, f" {bad} "]]
    for lines in sendings:
        resp = ctx.batch(judge, [ok], headers=tuple(("Batch-Mode", v) for v in lines))
        judge.note(f"sent Batch-Mode lines {lines!r}: {resp.status}")
        # MB-PROC-17: "read `Batch-Mode` as a comma-separated list of modes and MUST answer
        # 501 (Not Implemented) ... a batch request that lists a mode it does not implement";
        # field lines of one name are one list (RFC 9110 5.3).
        expect_rejected(judge, resp, {501}, "MB-PROC-17")
    if len(known) < 2:
        return
    joined = ctx.batch(judge, [ok], headers=(("Batch-Mode", ", ".join(known)),))
    split = ctx.batch(judge, [ok], headers=tuple(("Batch-Mode", m) for m in known))
    # MB-PROC-17: the list split over lines is the same list, so it runs as when joined.
    judge.expect(
        f"status for Batch-Mode {known!r} on separate lines",
        split.status,
        {joined.status},
        "MB-PROC-17",
    )
