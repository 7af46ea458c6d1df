"""Response part bodies and whole answers across orders of magnitude, in every form (spec 3.1,
3.3, 5.1, 6).

Theory of operation: a server writes a short part body from the buffer it writes the part's
header section from and is tempted to stream a long one after it, and a 207 document is built
whole in memory; both paths change with size. A writer that streams long bodies may leave out
the Content-Length line it writes with a buffered part, and one that holds the whole document
may refuse to send it past some bound although its parts ran. The bounds where such paths part
ways are commonly 64 KiB (buffers, read sizes, flow-control windows), 1 MiB and 16 MiB.

`response-part-lengths-across-sizes` asks the `random` resource for 0, 1 and either side of
64 KiB and 1 MiB octets, each as a batch of its own (so that the whole answer is that size) and
all in one batch, and, where the target declares an `echo` resource whose answer the suite can
read, PUTs to it bodies of 0, 1, 64 KiB and 1 MiB octets (within the published limits), whose
descriptions come back over 64 KiB and 1 MiB; every batch goes once per form the target
declares. Each multipart part must carry one Content-Length equal to its body (MB-WIRE-15, a
SHOULD: WARN unless strict); each random part or entry must carry exactly n octets (MB-TEST-5,
by the form's own body sentence); each echo description must hold the body sent (MB-PART-8).
The random resource's octets may differ from one request to the next (spec 14.4, after
MB-TEST-5: "a check relies on their number only"), and no target field says they repeat, so
random octets are judged by their number; the echo, which describes what it received, is where
the octets themselves are judged.

`answers-over-16-mib-every-form` sends, once per form, a batch whose whole answer is just over
1 MiB and one whose whole answer is over 16 MiB (random parts of a little over 4 MB, four of
them), each after a part that PUTs a marked document to a sandbox member the check created. A
batch answered with a 5xx is judged by that member: if it holds the marker, a part has run, and
MB-STATUS-12 forbids the 5xx ("once a part has run, it MUST send a batch response (200 or
207)"); if it does not, the server refused before any part ran, which MB-STATUS-12 allows.
Other answers are judged as in the first check. It moves about 60 MB over loopback per run
(the JSON and XML forms carry the 16.8 MB of octets in base64), so it is in the standard tier.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.checks._shared.octet_patterns import pattern
from mixbatch_conformance.checks._shared.sandbox_marks import (
    MARKER_PREFIX,
    created_member,
    marked_member,
)
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    BODY_REQUIREMENT,
    ENTRY_COUNT_REQUIREMENT,
    MULTISTATUS_FORMS,
    Entry,
    answers_in_every_form,
    broken_by,
    entries_from_multipart,
    expect_form_chosen,
)
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Octet counts asked of the random resource: nothing, one octet, and either side of 64 KiB and
#: 1 MiB, where buffers and write paths commonly change.
RANDOM_SIZES = (0, 1, 65_535, 65_536, 65_537, 1_048_575, 1_048_576, 1_048_577)
#: Body sizes PUT to the echo resource, whose descriptions (the body in base64 among the
#: request's fields) come back over 64 KiB and over 1 MiB.
ECHO_SIZES = (0, 1, 65_536, 1_048_576)
#: Room left in max_batch_bytes for the delimiters and header sections of the echo batch.
FRAMING_ROOM = 16_384


def _random_target(ctx: Context, template: str, n: int) -> str:
    return ctx.path(template.replace("{n}", str(n)))


def _served(ctx: Context, judge: Judge, template: str, sizes: tuple[int, ...]) -> list[int]:
    """The sizes the random resource serves: MB-TEST-5 answers "a 4xx status for any larger
    *n*", so the sizes from the first one answered 4xx alone on are left out."""
    largest = SubRequest("GET", _random_target(ctx, template, sizes[-1]))
    if not 400 <= ctx.alone(judge, largest).status < 500:
        return list(sizes)
    served: list[int] = []
    for n in sizes:
        if (
            400
            <= ctx.alone(judge, SubRequest("GET", _random_target(ctx, template, n))).status
            < 500
        ):
            break
        served.append(n)
    return served


def _judge_part_length(
    judge: Judge, what: str, fields: tuple[tuple[str, str], ...], body: bytes
) -> None:
    """MB-WIRE-15 (SHOULD): "A sender SHOULD give each part a `Content-Length` field stating
    the length of its body", a long body as much as a short one."""
    lengths = [v for n, v in fields if n.lower() == "content-length"]
    judge.expect(f"{what} Content-Length", lengths, [[str(len(body))]], "MB-WIRE-15")


def _judge_random(judge: Judge, media: str, what: str, entry: Entry, n: int) -> None:
    # MB-TEST-5: "answer a `GET` of that resource for a count *n* with 200 and exactly *n*
    # octets of content", which each form carries by its own sentence (BODY_REQUIREMENT).
    judge.expect(f"{what} status", entry.status, {200}, "MB-TEST-5")
    judge.expect(f"{what} octets", len(entry.body), {n}, BODY_REQUIREMENT[media])


def _echo_readable(ctx: Context, judge: Judge, echo: str) -> bool:
    """Whether the echo resource describes a request in the form the suite reads, learnt from
    an empty PUT sent alone."""
    alone = ctx.alone(
        judge, SubRequest("PUT", echo, (("Content-Type", "application/octet-stream"),), b"")
    )
    return alone.status == 200 and read_echo(alone.body) is not None


def _echo_sizes(ctx: Context) -> list[int]:
    """ECHO_SIZES within max_part_bytes, and together within max_batch_bytes."""
    part_limit = ctx.limit("max_part_bytes")
    batch_limit = ctx.limit("max_batch_bytes")
    sizes: list[int] = []
    for n in ECHO_SIZES:
        if part_limit is not None and n > part_limit:
            break
        if batch_limit is not None and sum(sizes) + n + FRAMING_ROOM > batch_limit:
            break
        sizes.append(n)
    return sizes


@checker(
    "response-part-lengths-across-sizes",
    ("MB-WIRE-15", "MB-RESP-4", "MB-MULTI-6", "MB-MULTI-7", "MB-TEST-5", "MB-PART-8"),
    "Random bodies of 0, 1 and either side of 64 KiB and 1 MiB octets, each alone in a batch and all together, and echo descriptions over 64 KiB and 1 MiB, come back whole in every form, each multipart part with a Content-Length equal to its body.",
    state=State.READ_ONLY,
)
def response_part_lengths_across_sizes(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "random")
    sizes = _served(ctx, judge, template, RANDOM_SIZES)
    if not sizes:
        judge.not_applicable("the random resource answers a 4xx for every size asked")
    parts_limit = ctx.limit("max_parts")
    every = [SubRequest("GET", _random_target(ctx, template, n)) for n in sizes]
    batches: list[tuple[str, list[SubRequest], list[int | None]]] = [
        (f"{n} octets alone", [sub], [n]) for n, sub in zip(sizes, every, strict=True)
    ]
    if parts_limit is None or len(every) <= parts_limit:
        batches.append(("every size together", every, list(sizes)))
    echo = ctx.target.resource("echo")
    if echo and _echo_readable(ctx, judge, ctx.path(echo)):
        echoed = _echo_sizes(ctx)
        if parts_limit is not None:
            echoed = echoed[:parts_limit]
        puts = [
            SubRequest(
                "PUT",
                ctx.path(echo),
                (("Content-Type", "application/octet-stream"),),
                pattern(n),
            )
            for n in echoed
        ]
        batches.append(("echo descriptions", puts, [None] * len(puts)))
    for label, subs, counts in batches:
        for media, _, entries in answers_in_every_form(ctx, judge, subs):
            for i, (sub, entry, n) in enumerate(zip(subs, entries, counts, strict=True)):
                what = f"{label}, {media}, part {i}"
                if media == "multipart/mixed":
                    _judge_part_length(judge, what, entry.fields, entry.body)
                if n is not None:
                    _judge_random(judge, media, f"{what} ({n} octets asked)", entry, n)
                    continue
                seen = read_echo(entry.body)
                if seen is None:
                    # The same resource described an empty PUT alone, so a description that
                    # cannot be read here is a part body that did not arrive whole.
                    judge.expect_true(
                        f"{what} echo description",
                        False,
                        f"{len(entry.body)} octets that are not an echo description",
                        "the whole echo description",
                        BODY_REQUIREMENT[media],
                    )
                    continue
                # MB-PART-8: "the part body is its content": the echo received the octets sent.
                judge.expect_true(
                    f"{what} echo of {len(sub.body)} octets",
                    seen.body == sub.body,
                    f"{len(seen.body)} octets, {'equal' if seen.body == sub.body else 'different'}",
                    f"the {len(sub.body)} octets sent",
                    "MB-PART-8",
                )


#: Whole answers judged by `answers-over-16-mib-every-form`: (label, the random counts asked).
#: Over 1 MiB in one part; over 16 MiB (16,777,216) in four parts of a little over 4 MB, so that
#: no part nears the 16 MiB a random resource may stop at, and each part's Content-Id differs.
LARGE_ANSWERS = (
    ("an answer just over 1 MiB", (1_048_577,)),
    ("an answer over 16 MiB", (4_200_000, 4_200_001, 4_200_002, 4_200_003)),
)


def _forms(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """multipart/mixed, then each 207 form the target declares, with the Accept asking for it."""
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [("multipart/mixed", ())]
    out += [
        (accept, (("Accept", accept),))
        for p, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(p)
    ]
    return out


def _read_form(
    ctx: Context, judge: Judge, media: str, resp: Response, subs: list[SubRequest]
) -> list[Entry] | None:
    """The entries of a batch answer that is not a 5xx, judged as processed: 200 and readable
    for multipart/mixed, 207 and readable for a 207 form (MB-STATUS-1), one per part; None for
    an answer that ends with the abort part (the target's time budget ran out first)."""
    if media == "multipart/mixed":
        entries = entries_from_multipart(ctx.read_batch(judge, resp))
        count = "MB-RESP-1"
    else:
        reader = next(r for _, accept, r, _ in MULTISTATUS_FORMS if accept == media)
        fallback = next(req for _, accept, _, req in MULTISTATUS_FORMS if accept == media)
        # MB-STATUS-1: "answer a well-formed batch that it processed with 200 (OK), or with 207
        # for the representations of section 6".
        expect_form_chosen(judge, media, resp)
        judge.require(f"{media} status", resp.status, {207}, "MB-STATUS-1")
        entries, problem = reader(resp.body)
        judge.require(
            f"{media} readable",
            problem,
            {None},
            broken_by(problem, fallback),
            allowed_text="valid",
        )
        count = ENTRY_COUNT_REQUIREMENT[media]
    if any(e.outcome == "aborted" for e in entries):
        # Spec 5.4: a batch stopped by its time budget ends with the abort part; what ran is
        # answered, and the sizes asked are not all there to judge.
        judge.note(f"{media}: the answer ends with the abort part; its sizes are not judged")
        return None
    # MB-RESP-1 "one response part per request part", MB-MULTI-3 and MB-MULTI-4 per entry.
    judge.require(f"{media} part count", len(entries), {len(subs)}, count)
    return entries


@checker(
    "answers-over-16-mib-every-form",
    (
        "MB-STATUS-12",
        "MB-STATUS-1",
        "MB-WIRE-15",
        "MB-RESP-4",
        "MB-MULTI-6",
        "MB-MULTI-7",
        "MB-TEST-5",
    ),
    "A batch whose whole answer is just over 1 MiB or over 16 MiB is answered 200 or 207 in every form, never with a 5xx once its first part (a sandbox write) has run, its random parts whole and each multipart part with a Content-Length equal to its body.",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def answers_over_16_mib_every_form(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "random")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    parts_limit = ctx.limit("max_parts")
    answers = []
    for label, counts in LARGE_ANSWERS:
        # A size the random resource does not serve is left out (MB-TEST-5: "a 4xx status for
        # any larger *n*"); so is a batch over the published part count.
        if parts_limit is not None and len(counts) + 1 > parts_limit:
            judge.note(f"{label}: {len(counts) + 1} parts are over max_parts {parts_limit}")
            continue
        if not _served(ctx, judge, template, (max(counts),)):
            judge.note(f"{label}: the random resource does not serve {max(counts)} octets")
            continue
        answers.append((label, counts))
    if not answers:
        judge.not_applicable("the random resource serves no size these answers need")
    # A member the batch's first part writes: read back after a 5xx, it shows whether that part
    # ran. Without a member document, or one read back as written, a 5xx is only noted.
    member = None
    if ctx.target.sandbox_member is not None and ctx.target.sandbox_reads_back:
        member = created_member(ctx, judge, coll, f"{MARKER_PREFIX}{secrets.token_hex(6)}")
    for label, counts in answers:
        randoms = [SubRequest("GET", _random_target(ctx, template, n)) for n in counts]
        for media, headers in _forms(ctx):
            what = f"{label}, {media}"
            marker = f"{MARKER_PREFIX}{secrets.token_hex(6)}"
            subs = list(randoms)
            if member is not None:
                body = marked_member(ctx, judge, marker)
                subs.insert(
                    0, SubRequest("PUT", member, (("Content-Type", "application/json"),), body)
                )
            resp = ctx.batch(judge, subs, headers=headers)
            if 500 <= resp.status < 600:
                if member is None:
                    judge.note(
                        f"{what}: answered {resp.status}; no member to show whether a part ran"
                    )
                    continue
                after = ctx.alone(judge, SubRequest("GET", member))
                ran = after.status == 200 and marker.encode() in after.body
                # MB-STATUS-12: "A server MUST answer with a 5xx status only when it fails
                # before any part has run; once a part has run, it MUST send a batch response
                # (200 or 207)"; spec 5.1: "A part has run ... once the server has begun its
                # sub-request".
                judge.expect_true(
                    f"{what}: top-level status",
                    not ran,
                    f"{resp.status}, though the PUT part ran (the member holds its marker)"
                    if ran
                    else f"{resp.status}, with the PUT part not run (the member lacks its marker)",
                    "200 or 207 once a part has run",
                    "MB-STATUS-12",
                )
                continue
            entries = _read_form(ctx, judge, media, resp, subs)
            if entries is None:
                continue
            offset = len(subs) - len(randoms)
            for i, entry in enumerate(entries):
                if media == "multipart/mixed":
                    _judge_part_length(judge, f"{what}, part {i}", entry.fields, entry.body)
                if i >= offset:
                    n = counts[i - offset]
                    _judge_random(judge, media, f"{what}, part {i} ({n} octets asked)", entry, n)
    if not judge.expectations:
        judge.not_applicable(
            "no answer could be judged: each was a 5xx with no member to show whether a part "
            "ran, or ended with the abort part"
        )
