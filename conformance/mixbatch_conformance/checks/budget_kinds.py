"""Every kind of batch holds a place in the budget of batches in flight and is refused beyond
it (spec 9.1, MB-LIMIT-6).

Theory of operation: MB-LIMIT-6 asks a server to "bound the batches it holds in flight" and to
"answer a batch request beyond that budget with 503 (Service Unavailable) and a `Retry-After`
field before any part of it runs". The budget is of batches, whatever form of answer they ask
for and whatever mode they run in: spec 9.1 holds a batch in flight "while it arrives, while
it is validated, while its parts run and while its response is written, since its envelope and
its results take memory all that time", and a 207 document built whole takes that memory as
much as a multipart answer written part by part. A server that takes the budget on one path
only (where it streams a multipart answer, or where no mode is asked) lets batches of the
other kinds run beyond it, and does not count them against the batches of the kind it does
budget.

The check sends batches of each kind the target declares, each differing from a plain batch in
one respect: `Accept: multipart/mixed`, `Accept` naming each 207 form claimed (XML, JSON),
`Prefer: batch-on-error=stop`, `Batch-Mode: atomic`, `Batch-Mode: references`, an HTTP/1.0
request line, and content framed chunked (those two over HTTP/1.1 only). Each kind's batch
beyond the budget (a POST of the sandbox member marked with its own fresh value, then a GET of
`ok`, or under references a GET of `$(0)`, the member just created) is first sent alone while
the server is idle: a kind not processed alone (200, or 207 in a 207 form) is not judged.

It then holds at once `held` batches, where `held` is the published `max_batches_in_flight`
(`MAX_PROBED` when none is published): one of each kind, and the rest of the kinds in turn but
the atomic one (an atomic batch may hold the store alone, MB-PROC-15, and the others wait
behind it), each a GET of `ok` and a GET of the delay resource taking `HOLD_MS`. After
`SETTLE_S`, while they all run, it sends one batch of every kind beyond them, all at once, so
that a budget filled by batches of one kind meets a batch of every other (the budget held by
JSON batches meets a multipart one, and the reverse). A batch beyond them that is processed is
sent again (with a fresh marker) every `PROBE_STEP_S` until `PROBE_UNTIL_S` after the held
batches were sent, as `beyond_held` does, so that a loaded server that admits the held batches
late is judged once it has. A budget smaller than the kinds is filled in rounds, each holding
the budget with the next kinds (and the others in turn) and sending a batch of every kind
beyond it.

The budget was full when the batches beyond came if the held batches were the published
budget's worth, or if the server refused one of them (it was full then, and the held batches
it took still run): every batch beyond them must then be answered 503 with `Retry-After` and a
problem document, and no refused batch's marker may be among the sandbox's members afterwards
(a collection retrieval, MB-STATUS-7, where the target lists the sandbox). Each held batch must
be processed or refused 503. With no published budget and no held batch refused, the budget
was not seen full and the check is N/A. The batches beyond the held ones are no smaller than a
held one, so a budget by memory that refuses a held batch has no room for them either.

The load is bounded: a published budget over `MAX_PROBED` is N/A, and a round holds the budget
for `HOLD_MS` (a second, more where held batches wait behind an atomic one); there is one round
unless the published budget is smaller than the number of kinds. An intermediary may queue
concurrent requests or spread them over its own connections, so the check runs direct only.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.budget_load import (
    BUDGET,
    CONCURRENT_LOAD,
    MAX_PROBED,
    PROBE_STEP_S,
    PROBE_UNTIL_S,
    RELEASE_S,
    RELEASE_STEP_S,
    SETTLE_S,
    probed_budget,
    slow_part,
)
from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_retry_after
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS, Reader
from mixbatch_conformance.transport.http import Exchange, Response

__all__: list[str] = []

BOUNDARY = "mb-budget-kinds-2f7c90e4a1b6d358"
#: Octets per chunk of the chunked kind: several chunks for one small batch.
CHUNK_OCTETS = 64


@dataclass(frozen=True)
class _Kind:
    """One kind of batch: the fields that make it that kind, its request line's version,
    whether its content goes chunked, and whether it asks for references."""

    label: str
    fields: tuple[tuple[str, str], ...] = ()
    version: str = "1.1"
    chunked: bool = False
    references: bool = False


def _kinds(ctx: Context) -> list[_Kind]:
    """Each kind of batch the target declares, each apart from a plain batch in one respect."""
    kinds = [_Kind("Accept: multipart/mixed", (("Accept", "multipart/mixed"),))]
    kinds += [
        _Kind(f"Accept: {accept}", (("Accept", accept),))
        for profile, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(profile)
    ]
    if ctx.target.claims("error-policy"):
        kinds.append(_Kind("batch-on-error=stop", (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        kinds.append(_Kind("Batch-Mode: atomic", (("Batch-Mode", "atomic"),)))
    if ctx.target.claims("references"):
        refs = (("Batch-Mode", "references"),)
        kinds.append(_Kind("Batch-Mode: references", refs, references=True))
    if not ctx.settings.http2:
        # An HTTP/2 request has neither an HTTP/1.0 request line nor chunked framing.
        kinds.append(_Kind("HTTP/1.0", version="1.0"))
        kinds.append(_Kind("chunked content", chunked=True))
    return kinds


def _request(ctx: Context, kind: _Kind, subs: list[SubRequest]) -> bytes:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *kind.fields]
    body = compose_batch(subs, BOUNDARY)
    if kind.chunked:
        head.append(("Transfer-Encoding", "chunked"))
        body = chunked_content(body, CHUNK_OCTETS)[0]
    request = ctx.raw_request("POST", ctx.batch_path, head, body)
    return request if kind.version == "1.1" else with_version(request, kind.version)


def _beyond(ctx: Context, judge: Judge, kind: _Kind, coll: str, ok: str) -> tuple[str, bytes]:
    """A fresh marker and the batch of `kind` sent beyond the budget: a POST of the sandbox
    member marked with it, then a GET of `ok` (under references, of the member created)."""
    marker, post = marked_post(ctx, judge, coll)
    then = SubRequest("GET", "$(0)" if kind.references else ok)
    return marker, _request(ctx, kind, [post, then])


def _status(ex: Exchange) -> int | None:
    return ex.response.status if ex.response is not None else None


def _processed(ex: Exchange) -> bool:
    """Whether the batch was processed: 200, or 207 in a 207 form."""
    return _status(ex) in (200, 207)


def _created_in_form(ctx: Context, coll: str, resp: Response) -> str | None:
    """The member a processed batch in a 207 form created with its first part (the Context
    records those a multipart answer names itself)."""
    readers: dict[str, Reader] = {accept: reader for _, accept, reader, _ in MULTISTATUS_FORMS}
    reader = readers.get(resp.media_type or "")
    if resp.status != 207 or reader is None:
        return None
    entries, _ = reader(resp.body)
    if not entries or entries[0].status != 201:
        return None
    location = next((v for n, v in entries[0].fields if n.lower() == "location"), None)
    return created_path(ctx, coll, location)


@dataclass
class _Sent:
    """A batch sent beyond the held ones: its kind and what it is called in the round, its
    last exchange and marker, and the answers of its tries that were processed (for the
    members they created)."""

    kind: _Kind
    label: str
    last: Exchange
    marker: str
    processed: list[Response]


def _send_beyond(
    ctx: Context, judge: Judge, kind: _Kind, label: str, coll: str, ok: str, held_at: float
) -> _Sent:
    """The batch of `kind` sent beyond the held ones, sent again while processed until
    `PROBE_UNTIL_S` after they were sent (at `held_at`)."""
    tries: list[Response] = []
    while True:
        marker, request = _beyond(ctx, judge, kind, coll, ok)
        last = ctx.send_many(judge, [request])[0]
        if not _processed(last) or time.monotonic() - held_at >= PROBE_UNTIL_S:
            break
        assert last.response is not None
        tries.append(last.response)
        time.sleep(PROBE_STEP_S)
    if _processed(last) and last.response is not None:
        tries.append(last.response)
    return _Sent(kind, label, last, marker, tries)


def _round(
    ctx: Context,
    judge: Judge,
    held_kinds: list[_Kind],
    extra_kinds: list[_Kind],
    prefix: str,
    coll: str,
    ok: str,
    delay: str,
) -> tuple[list[Exchange], list[_Sent]]:
    """The held batches' exchanges, and the batches sent beyond them."""
    held_requests = [
        _request(ctx, kind, [SubRequest("GET", ok), SubRequest("GET", delay)])
        for kind in held_kinds
    ]
    count = len(held_requests) + len(extra_kinds)
    with ThreadPoolExecutor(count, thread_name_prefix="mixbatch-budget-kinds") as pool:
        held_at = time.monotonic()
        held = [pool.submit(ctx.send_many, judge, [r]) for r in held_requests]
        time.sleep(SETTLE_S)
        extras = [
            pool.submit(_send_beyond, ctx, judge, k, f"{prefix}{k.label}", coll, ok, held_at)
            for k in extra_kinds
        ]
        return [f.result()[0] for f in held], [f.result() for f in extras]


def _rounds(kinds: list[_Kind], budget: int) -> list[tuple[list[_Kind], list[_Kind]]]:
    """(held kinds, kinds beyond) of each round: the budget held by each kind once (over as
    many rounds as it takes) and the rest by the kinds in turn, and one batch of every kind
    sent beyond it.

    An atomic batch may hold the store alone while it runs (MB-PROC-15), so the other held
    batches can wait behind it: one atomic batch holds its kind's place, and the rest of the
    budget is filled with the other kinds."""
    fill = [k for k in kinds if ("Batch-Mode", "atomic") not in k.fields] or kinds
    out = []
    for start in range(0, len(kinds), budget):
        some = kinds[start : start + budget]
        held = [*some, *(fill[i % len(fill)] for i in range(budget - len(some)))]
        out.append((held, kinds))
    return out


def _listing(ctx: Context, judge: Judge, coll: str) -> bytes | None:
    """The sandbox's members as a collection retrieval shows them (MB-STATUS-7), or None
    (noted) when the target lists none: the refusals are judged without it."""
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    if resp.status == 204:
        return b""
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        judge.note(f"GET {coll} answered {resp.status}: whether a refused batch ran is not seen")
        return None
    return resp.body


def _released(ctx: Context, judge: Judge, ok: str) -> None:
    """Wait until the server processes a batch again (N/A when it does not within
    `RELEASE_S`)."""
    small = _request(ctx, _Kind("plain"), [SubRequest("GET", ok)])
    deadline = time.monotonic() + RELEASE_S
    while not _processed(ctx.send_many(judge, [small])[0]):
        if time.monotonic() > deadline:
            judge.not_applicable(f"no batch was processed within {RELEASE_S} s of the held ones")
        time.sleep(RELEASE_STEP_S)


@checker(
    "budget-holds-every-kind-of-batch",
    ("MB-LIMIT-6",),
    "With the budget of batches in flight held by batches of every kind declared (Accept of "
    "multipart/mixed and of each 207 form, batch-on-error=stop, the atomic and references "
    "modes, HTTP/1.0, chunked content), one batch of each kind sent beyond it is answered 503 "
    "with Retry-After and runs nothing.",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
    direct_only=CONCURRENT_LOAD,
)
def budget_holds_every_kind(ctx: Context, judge: Judge) -> None:
    published = ctx.limit(BUDGET)
    if published is not None and not 1 <= published <= MAX_PROBED:
        judge.not_applicable(
            f"{BUDGET} {published} is outside the 1 to {MAX_PROBED} the check fills"
        )
    budget = probed_budget(ctx)
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay = slow_part(ctx, judge)

    # Each kind's batch alone, while the server is idle: how it is answered when it runs.
    created: list[str] = []
    kinds: list[_Kind] = []
    for kind in _kinds(ctx):
        alone = ctx.send_many(judge, [_beyond(ctx, judge, kind, coll, ok)[1]])[0]
        if alone.response is None:
            judge.setup_error(f"the {kind.label} batch alone got no answer: {alone.error}")
        if not _processed(alone):
            judge.note(f"{kind.label}: answered {alone.response.status} alone, not judged")
            continue
        kinds.append(kind)
        created.append(_created_in_form(ctx, coll, alone.response) or "")
    if not kinds:
        judge.not_applicable("no kind of batch was processed alone")

    sent: list[_Sent] = []
    full = True
    rounds = _rounds(kinds, budget)
    for n, (held_kinds, extra_kinds) in enumerate(rounds):
        if n:
            _released(ctx, judge, ok)
        prefix = f"round {n + 1}: " if len(rounds) > 1 else ""
        held, extras = _round(ctx, judge, held_kinds, extra_kinds, prefix, coll, ok, delay)
        sent += extras
        missing = [k.label for k, ex in zip(held_kinds, held, strict=True) if ex.response is None]
        if missing:
            judge.setup_error(f"held batches ({', '.join(missing)}) got no answer")
        statuses = [_status(ex) for ex in held]
        judge.note(
            f"{prefix}{budget} batches held ({', '.join(k.label for k in held_kinds)}) answered "
            f"{statuses}; beyond them "
            + ", ".join(f"{s.kind.label}: {_status(s.last) or s.last.error}" for s in extras)
        )
        for i, (kind, ex) in enumerate(zip(held_kinds, held, strict=True)):
            # MB-LIMIT-6: a batch within the budget runs; one the server finds beyond it (the
            # budget is shared with every client) is answered 503.
            judge.expect(
                f"{prefix}held batch {i} ({kind.label}) status",
                _status(ex),
                {200, 207, 503},
                "MB-LIMIT-6",
                allowed_text="processed (200, or 207 in a 207 form) or 503",
            )
        refused_held = any(s == 503 for s in statuses)
        # Full when the published budget's worth were held, or when the server refused one.
        full = full and (refused_held or published is not None)
    for s in sent:
        created += [_created_in_form(ctx, coll, r) or "" for r in s.processed]
    # Members the 207 forms name are deleted with those the Context recorded.
    ctx.created.extend(p for p in created if p and p not in ctx.created)
    if not full:
        judge.not_applicable(
            f"none of {budget} batches held at once was refused and no budget is published: "
            "the budget was not seen full"
        )

    refused: list[_Sent] = []
    for s in sent:
        status = _status(s.last)
        if s.last.response is None:
            judge.setup_error(f"{s.label}: the batch beyond the budget got no answer")
        # MB-LIMIT-6: "SHOULD bound the batches it holds in flight ... and SHOULD answer a
        # batch request beyond that budget with 503 (Service Unavailable)": every batch is in
        # flight "while it arrives, while it is validated, while its parts run and while its
        # response is written" (spec 9.1), whatever its form or mode, so the budget the held
        # batches fill has no place for a batch of any kind.
        if not judge.expect(
            f"{s.label}: the batch beyond the budget",
            status,
            {503},
            "MB-LIMIT-6",
            allowed_text="503 (the budget is full)",
        ):
            continue
        refused.append(s)
        response = s.last.response
        expect_retry_after(judge, response, f"{s.label}: Retry-After")
        # MB-STATUS-4: "A server MUST give each 4xx or 5xx response it makes to a batch request
        # an `application/problem+json` body (RFC 9457)".
        judge.expect_true(
            f"{s.label}: problem document",
            problem_of(response) is not None,
            repr(response.get("Content-Type")),
            "a JSON object as application/problem+json",
            "MB-STATUS-4",
        )
    listing = _listing(ctx, judge, coll) if refused else None
    if listing is None:
        return
    for s in refused:
        ran = s.marker.encode() in listing
        # MB-LIMIT-6: the 503 comes "before any part of it runs".
        judge.expect_true(
            f"{s.label}: the refused batch ran nothing",
            not ran,
            "its POST part created a member" if ran else "no member with its marker",
            "no part of a refused batch ran",
            "MB-LIMIT-6",
        )
