"""The batch request's authority, as written, given to every part (spec 3.2.3, 3.2.4).

Theory of operation: MB-PART-13 gives each sub-request "the batch request's authority", and
3.2.4 holds a part to the same request sent alone. Host names compare case-insensitively
(RFC 3986 §6.2.2.1), so a server may be tempted to normalise the authority once, for the batch,
and hand every part the lower-cased form; the same request sent alone keeps the case it was
sent in. The check addresses the batch with its own host name in upper and in mixed case (the
machine's other name for a loopback address when the target is reached by one), learns from the
same server what the echo resource receives for a GET sent alone with that Host, and expects
each part of a batch sent with that Host to receive the same authority, octet for octet, for a
relative target and for a path-absolute one. A spelling the server refuses alone is skipped.
It writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.host_names import case_spellings, host_name
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

BOUNDARY = "mb-authority-case-3d91"


def _spellings(ctx: Context) -> list[str]:
    """The batch's host name in upper and in mixed case, with the port as the suite sends it."""
    name = host_name(ctx)
    if name is None:
        return []
    port = "" if ctx.port == DEFAULT_PORTS[ctx.scheme] else f":{ctx.port}"
    return [f"{spelled}{port}" for spelled in case_spellings(name) if spelled != name.lower()]


@checker(
    "batch-authority-case-kept-for-parts",
    ("MB-PART-13", "MB-SUB-1"),
    "A batch addressed with its host name in upper or mixed case gives each part's resource the authority in the same case as the same request sent alone with that Host.",
    state=State.READ_ONLY,
)
def batch_authority_case_kept_for_parts(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    spellings = _spellings(ctx)
    if not spellings:
        judge.not_applicable(f"the host {ctx.host} has no name to write in another case")
    judged = 0
    for authority in spellings:
        single = ctx.send(
            judge, ctx.raw_request("GET", f"{echo}?mb-case=alone", authority=authority)
        )
        seen_alone = read_echo(single.body) if single.status == 200 else None
        if seen_alone is None or seen_alone.authority is None:
            judge.note(f"Host: {authority} alone: {single.status}, no echo of its authority")
            continue
        subs = [
            SubRequest("GET", f"{ctx.ref(echo, 'relative')}?mb-case=relative"),
            SubRequest("GET", f"{echo}?mb-case=absolute-path"),
        ]
        head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
        body = compose_batch(subs, BOUNDARY)
        resp = ctx.send(
            judge, ctx.raw_request("POST", ctx.batch_path, head, body, authority=authority)
        )
        # The same Host was taken alone, so the batch addressed with it is the batch's own.
        judge.expect(f"batch with Host: {authority}", resp.status, {200}, "MB-PART-13")
        if resp.status != 200:
            continue
        env = ctx.read_batch(judge, resp)
        judge.require("part count", len(env.parts), {len(subs)}, "MB-RESP-1")
        for i, sub in enumerate(subs):
            seen = read_echo(env.parts[i].body) if part_status(env, i) == 200 else None
            if seen is None:
                judge.expect(f"part {i} <{sub.target}> status", part_status(env, i), {200})
                continue
            judged += 1
            # MB-PART-13: "give each sub-request the batch request's authority"; 3.2.4 (MB-SUB-1):
            # what the resource receives is what the same request alone receives.
            judge.expect(
                f"Host: {authority}, part {i} <{sub.target}> authority received",
                seen.authority,
                {seen_alone.authority},
                "MB-PART-13",
            )
    if not judged:
        judge.not_applicable("no spelling of the host in another case was taken alone")
