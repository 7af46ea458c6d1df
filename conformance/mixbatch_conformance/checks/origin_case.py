"""The batch's own origin in any case: a Host spelled otherwise than an absolute target's host.

Theory of operation: MB-SUB-2 refuses a part whose target names "a scheme or authority other
than the batch request's own", and adds "Scheme and host compare case-insensitively". The
envelope cases upper-case the target's host against the batch's Host; against a target reached
by an IP address that changes nothing, so a server comparing hosts octet for octet passes
them. This check addresses the batch to a host *name* (the target's own, or `localhost` for a
loopback address), spelled in lower, upper and mixed case in the batch's Host, and names the
same host in every other case in absolute part targets: each spelling is the batch's own
origin and is answered as the relative reference in the same batch is. A target that does not
answer a batch addressed by that name (a virtual host it does not serve) makes the check N/A.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.host_names import case_spellings, host_name
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

BOUNDARY = "mb-origin-case-5f1c9a2e7b"


@checker(
    "same-origin-host-in-any-case",
    ("MB-SUB-2",),
    "A batch whose Host names the target by a host name in lower, upper or mixed case accepts absolute part targets naming that host in every other case, answering each as the relative reference.",
    state=State.READ_ONLY,
)
def same_origin_host_in_any_case(ctx: Context, judge: Judge) -> None:
    name = host_name(ctx)
    if name is None:
        judge.not_applicable(f"the target's host {ctx.host} has no host name to spell in case")
    ok = ctx.path(ctx.resource(judge, "ok"))
    port = "" if ctx.port == DEFAULT_PORTS[ctx.scheme] else f":{ctx.port}"
    spellings = case_spellings(name)
    for spelled in spellings:
        authority = f"{spelled}{port}"
        subs = [SubRequest("GET", ok)]
        subs += [
            SubRequest("GET", f"{ctx.scheme}://{other}{port}{ok}")
            for other in spellings
            if other != spelled
        ]
        head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
        body = compose_batch(subs, BOUNDARY)
        probe = compose_batch(subs[:1], BOUNDARY)
        first = ctx.send(
            judge, ctx.raw_request("POST", ctx.batch_path, head, probe, authority=authority)
        )
        if first.status != 200:
            judge.not_applicable(
                f"a batch addressed to {authority} with one relative part was answered "
                f"{first.status}, so the target does not serve that name"
            )
        resp = ctx.send(
            judge, ctx.raw_request("POST", ctx.batch_path, head, body, authority=authority)
        )
        judge.note(f"Host {authority}: {resp.status}")
        # MB-SUB-2: "Scheme and host compare case-insensitively": each absolute target names
        # the batch request's own origin, so the batch is not refused for it.
        judge.require(f"Host {authority}: top-level status", resp.status, {200}, "MB-SUB-2")
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-SUB-2")
        for i, sub in enumerate(subs[1:], start=1):
            judge.expect(
                f"Host {authority}, part {i} ({sub.target}) status",
                part_status(env, i),
                {part_status(env, 0)},
                "MB-SUB-2",
            )
