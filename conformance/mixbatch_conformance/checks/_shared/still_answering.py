"""Whether a server still answers after a batch its time budget stopped.

Theory of operation: a server that stops a batch for its time (spec 5.4) must leave nothing of
that batch holding the server: the part it cut off, a hold on its store, a slot among its
batches in flight. A server that leaves one may answer every check that runs before it and none
after, and a run against it ends in timeouts that blame nothing. So the requests here are sent
before the batches the budget stops, and again after them: a one-part batch, a one-part atomic
batch where the target claims the `atomic` profile (a hold the stopped batch kept blocks the
exclusive hold an atomic batch takes), and the declared `ok` resource alone. What was answered
before and gets no answer after, within the run's wait, is the stopped batch's doing:
MB-STATUS-1 for a batch ("A well-formed batch that was processed is answered 200"), MB-TEST-1 for
the resource ("A declared ok ... answers GET with 200"). Only an answer's coming is judged: a
server may refuse a batch while it finishes the part it cut off (MB-LIMIT-6 lets it answer 503).
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge, StopCheck

__all__ = ["AnsweredBefore", "answered_before", "expect_still_answered"]

#: The boundary of the one-part batches sent before and after.
PROBE_BOUNDARY = "mb-still-answering-5b1d"


@dataclass(frozen=True, slots=True)
class AnsweredBefore:
    """A request sent before the stopped batches, and the status it was answered with."""

    what: str
    request: bytes
    requirement: str
    status: int


def answered_before(ctx: Context, judge: Judge) -> list[AnsweredBefore]:
    """Send each probe once, before the batches the budget stops."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    head = [("Content-Type", f"multipart/mixed; boundary={PROBE_BOUNDARY}")]
    content = compose_batch([SubRequest("GET", ok)], PROBE_BOUNDARY)
    probes = [("a one-part batch", ctx.raw_request("POST", ctx.batch_path, head, content))]
    if ctx.target.claims("atomic"):
        atomic = [*head, ("Batch-Mode", "atomic")]
        probes.append(
            ("a one-part atomic batch", ctx.raw_request("POST", ctx.batch_path, atomic, content))
        )
    probes.append((f"GET {ok} alone", ctx.raw_request("GET", ok, [], None)))
    return [
        AnsweredBefore(
            what,
            request,
            "MB-TEST-1" if what.startswith("GET") else "MB-STATUS-1",
            ctx.send(judge, request).status,
        )
        for what, request in probes
    ]


def expect_still_answered(ctx: Context, judge: Judge, before: list[AnsweredBefore]) -> None:
    """Send each probe again: one that gets no answer breaks its requirement (the check stops)."""
    for probe in before:
        try:
            status = ctx.send(judge, probe.request).status
        except TimeoutError as exc:
            judge.expect(
                f"{probe.what} after the batches the time budget stopped, answered as it was "
                f"({probe.status}) before them",
                f"no answer ({exc})",
                {"an answer"},
                probe.requirement,
            )
            raise StopCheck(f"{probe.what}: no answer after the stopped batches") from None
        judge.expect_true(
            f"{probe.what} after the batches the time budget stopped",
            True,
            f"answered {status} ({probe.status} before them)",
            "an answer",
            probe.requirement,
        )
