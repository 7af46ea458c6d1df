"""HTTP/1.0 pipelines that ask for keep-alive in another case (spec 11, RFC 9110 §7.6.1).

Theory of operation: an HTTP/1.0 connection persists only when the request carries the
`keep-alive` connection option and the server chooses to honour it (RFC 9112 §9.3), so nothing
makes a server keep one; what a server does with it is learnt from the same server. The check
pipelines two HTTP/1.0 GETs of the `ok` resource, each with `Connection: keep-alive`, on one
connection: a server that answers both has chosen to keep such connections (N/A otherwise).
RFC 9110 §7.6.1 says "Connection options are case-insensitive", so `Keep-Alive` (the spelling
HTTP/1.0 clients send), `KEEP-ALIVE` and `kEEP-aLIVE` ask for the same thing: each pair is
answered as the lower-case pair was, both requests in order (MB-PIPE-1), each 200 (MB-TEST-1).
A server that tells the options apart by their spelling answers the first and closes, and the
second request, pipelined, is never answered. A spelling not kept is judged only when the
lower-case pair, sent again right after it, is still kept: a server may stop keeping HTTP/1.0
connections at any time (under load, say), which says nothing of the spelling. An
intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

#: The option as the server is first asked for it, then in the spellings judged against it.
LEARNT = "keep-alive"
SPELLINGS = ("Keep-Alive", "KEEP-ALIVE", "kEEP-aLIVE")


def _statuses(exchanges: list[Exchange]) -> list[int | None]:
    return [ex.response.status if ex.response is not None else None for ex in exchanges]


@checker(
    "pipelining-http10-keep-alive-in-any-case",
    ("MB-PIPE-1",),
    "A server that answers two HTTP/1.0 GETs pipelined with Connection: keep-alive answers them in order when the option is spelt Keep-Alive, KEEP-ALIVE or kEEP-aLIVE, connection options being case-insensitive.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_http10_keep_alive_in_any_case(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    wait = ctx.timeout_for(judge)

    def pair(option: str) -> list[int | None]:
        get = with_version(ctx.raw_request("GET", ok.target, [("Connection", option)]), "1.0")
        return _statuses(ctx.send_many_within(judge, [get, get], wait))

    learnt = pair(LEARNT)
    if learnt != [200, 200]:
        judge.not_applicable(
            f"two HTTP/1.0 GETs pipelined with Connection: {LEARNT} were answered {learnt}: "
            "the server does not keep such connections, as HTTP/1.0 lets it"
        )
    for option in SPELLINGS:
        got = pair(option)
        if got != [200, 200] and pair(LEARNT) != [200, 200]:
            # The server's choice to keep such connections changed (under load, say): what it
            # does with this spelling says nothing of the spelling.
            judge.note(f"Connection: {option} answered {got}; {LEARNT} no longer kept either")
            continue
        # RFC 9110 §7.6.1: "Connection options are case-insensitive"; MB-PIPE-1: the server
        # "MUST answer pipelined requests on a connection ... in the order it received them",
        # as it answers the same pipeline with the option in lower case, sent again after it.
        judge.expect(
            f"statuses of two HTTP/1.0 GETs pipelined with Connection: {option}",
            got,
            [[200, 200]],
            "MB-PIPE-1",
            allowed_text=f"[200, 200], as with Connection: {LEARNT} before and after it",
        )
    if not judge.expectations:
        judge.not_applicable(f"the server stopped keeping pipelines with Connection: {LEARNT}")
