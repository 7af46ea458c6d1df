"""Fields a client sends do not lengthen the server's time budget for a batch (spec 12).

Theory of operation: MB-SEC-1 asks a server to "bound the wall-clock time, the concurrency and
the total work it spends on one batch, and abort ([5.4]) a batch that exceeds its budget". The
bound is the server's: a target declares it as `batch_timeout_ms`, counted "from the moment its
server begins to receive the batch request" (MB-TEST-7). Several request fields speak of time:
`Prefer: wait` is how long the client will wait for a response (RFC 7240 §4.3), `respond-async`
asks for an asynchronous answer (§4.1), `Keep-Alive: timeout` is a connection's idle time,
`Timeout` is a WebDAV lock's life (RFC 4918 §10.7), `Expect: 100-continue` asks for an interim
answer (RFC 9110 §10.1.1). None of them is the server's budget, and a server that lets one
raise the bound lets any client hold a batch as long as it asks.

The check sends the outlasting batch of `_shared/outlast` (a quick part, a part that waits past
the declared limit, a quick part) with each of those fields, with `Prefer: wait` naming far
more than the slow part's wait, and the same batch without any of them; then `Prefer: wait` in
each 207 form and under each error policy and the atomic mode the target claims, each beside
the same batch in that form or mode without it. What the server does without the field is
learnt from the same server: a form or mode whose batch without the field is not aborted is
judged by the abort checks, and its batches with the field are not judged here. Every other
batch must be aborted as its twin is: an abort part or entry, or a multipart response cut short.

The batches are sent at once, in rounds of at most `ROUND` (fewer when the target publishes a
smaller budget of batches in flight), so the check costs a few budgets; N/A without a declared
limit and a delay resource, or when the limit is longer than `MAX_LIMIT_MS`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.budget_abort import expect_budget_abort
from mixbatch_conformance.checks._shared.budget_load import BUDGET
from mixbatch_conformance.checks._shared.outlast import outlasting_batch
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    MULTISTATUS_FORMS,
    Reader,
    entries_from_multipart,
)
from mixbatch_conformance.core.validator import read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: The most batches the check holds at once.
ROUND = 7
#: The longest declared limit the check waits out (it waits it once a round).
MAX_LIMIT_MS = 10_000
#: Seconds a client's fields name: far beyond the slow part's wait.
ASKED_S = 120
Fields = tuple[tuple[str, str], ...]


def _client_fields(ctx: Context) -> list[tuple[str, Fields]]:
    """(label, fields) for each client field that speaks of time."""
    out: list[tuple[str, Fields]] = [
        ("Prefer: wait", (("Prefer", f"wait={ASKED_S}"),)),
        ("Prefer: respond-async, wait", (("Prefer", f"respond-async, wait={ASKED_S}"),)),
        ("Prefer: respond-async", (("Prefer", "respond-async"),)),
        ("Timeout", (("Timeout", f"Second-{ASKED_S}"),)),
        ("Expect: 100-continue", (("Expect", "100-continue"),)),
    ]
    if not ctx.settings.http2:
        # RFC 9113 §8.2.2: connection-specific fields make an HTTP/2 request malformed.
        out.append(
            (
                "Keep-Alive: timeout",
                (("Connection", "keep-alive"), ("Keep-Alive", f"timeout={ASKED_S}, max=1000")),
            )
        )
    return out


def _modes(ctx: Context) -> list[tuple[str, Fields, Reader | None]]:
    """(label, fields, 207 reader or None for multipart) for each form and mode claimed."""
    out: list[tuple[str, Fields, Reader | None]] = [
        (f"Accept {accept}", (("Accept", accept),), reader)
        for profile, accept, reader, _ in MULTISTATUS_FORMS
        if ctx.target.claims(profile)
    ]
    if ctx.target.claims("error-policy"):
        out += [
            (f"batch-on-error={p}", (("Prefer", f"batch-on-error={p}"),), None)
            for p in ("continue", "stop")
        ]
    if ctx.target.claims("atomic"):
        out.append(("Batch-Mode: atomic", (("Batch-Mode", "atomic"),), None))
    return out


def _with_wait(fields: Fields) -> Fields:
    """`fields` with `Prefer: wait` added: to a Prefer field it has, else as one of its own."""
    if any(n == "Prefer" for n, _ in fields):
        return tuple((n, f"{v}, wait={ASKED_S}" if n == "Prefer" else v) for n, v in fields)
    return (*fields, ("Prefer", f"wait={ASKED_S}"))


def _stopped(judge: Judge, label: str, resp: Response, reader: Reader | None) -> bool | None:
    """Whether the batch was aborted; None when the answer is no batch response to read."""
    if reader is not None:
        if resp.status != 207:
            judge.note(f"{label}: answered {resp.status}, not judged here")
            return None
        entries, problem = reader(resp.body)
        if problem is not None:
            judge.note(f"{label}: unreadable ({problem}), not judged here")
            return None
        return any(e.outcome == "aborted" for e in entries)
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        judge.note(f"{label}: answered {resp.status} {resp.media_type}, not judged here")
        return None
    _, params = judge.media_type("response Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
    env = read_multipart(resp.body, params.get("boundary", ""))
    aborted = any(e.outcome == "aborted" for e in entries_from_multipart(env))
    return aborted or not env.complete


@checker(
    "batch-budget-not-raised-by-client-fields",
    ("MB-SEC-1",),
    "A batch outlasting the declared time limit is aborted as the same batch without them is when it carries Prefer: wait far beyond its wait, Prefer: respond-async, Timeout, Expect: 100-continue or Keep-Alive: timeout, and with Prefer: wait in every 207 form and under each error policy and the atomic mode claimed.",
    tier="standard",
    state=State.READ_ONLY,
)
def budget_not_raised_by_client_fields(ctx: Context, judge: Judge) -> None:
    subs = outlasting_batch(ctx, judge)
    limit_ms = ctx.target.batch_timeout_ms or 0
    if limit_ms > MAX_LIMIT_MS:
        judge.not_applicable(f"batch_timeout_ms {limit_ms} is more than the check waits out")
    # (label, fields, reader, the label of its twin without the client's field, or None)
    batches: list[tuple[str, Fields, Reader | None, str | None]] = [
        ("no client field", (), None, None)
    ]
    batches += [(label, fields, None, "no client field") for label, fields in _client_fields(ctx)]
    for label, fields, reader in _modes(ctx):
        batches.append((label, fields, reader, None))
        batches.append((f"{label} with Prefer: wait", _with_wait(fields), reader, label))
    published = ctx.limit(BUDGET)
    size = ROUND if published is None else max(1, min(ROUND, published - 1))
    answers: dict[str, Response] = {}
    for start in range(0, len(batches), size):
        chunk = batches[start : start + size]
        with ThreadPoolExecutor(len(chunk), thread_name_prefix="mixbatch-budget-fields") as pool:
            sent = [pool.submit(_send, ctx, judge, subs, fields) for _, fields, _, _ in chunk]
            for (label, _, _, _), future in zip(chunk, sent, strict=True):
                answers[label] = future.result()
    stopped = {
        label: _stopped(judge, label, answers[label], reader) for label, _, reader, _ in batches
    }
    for label, fields, _, twin in batches:
        if twin is None:
            continue
        if stopped[twin] is not True:
            judge.note(f"{label}: the same batch without it ({twin}) was not aborted; not judged")
            continue
        if stopped[label] is None:
            continue
        shown = "; ".join(f"{n}: {v}" for n, v in fields)
        # MB-SEC-1: "SHOULD bound the wall-clock time ... it spends on one batch, and abort
        # ([5.4]) a batch that exceeds its budget": the bound is the server's, and the same
        # batch without the client's field was aborted by it.
        expect_budget_abort(judge, f"{label} ({shown}): ", bool(stopped[label]))
    if not judge.expectations:
        judge.not_applicable(
            "no batch without the client's field was aborted to compare with; "
            "batch-abort-after-timeout and batch-abort-in-multistatus judge that"
        )


def _send(ctx: Context, judge: Judge, subs: list[SubRequest], fields: Fields) -> Response:
    return ctx.batch(judge, subs, headers=fields)
