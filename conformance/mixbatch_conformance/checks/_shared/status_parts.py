"""The status a part for the `status` resource carries, judged by who got it wrong.

A part that GETs the target's status resource for a code (MB-TEST-6: "a code from 200 to 599
with that status") must carry that code. When it does not, either the resource answers another
code (MB-TEST-6) or the batch reported the code it got as another (MB-RESP-2 in the multipart
form, MB-MULTI-6 and MB-MULTI-4 in the XML and JSON forms). The same GET sent alone tells the
two apart, so it is sent only when the part's status differs.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.representations import FORM_REQUIREMENT

__all__ = ["require_status_code"]


def require_status_code(
    ctx: Context,
    judge: Judge,
    what: str,
    sub: SubRequest,
    got: int | None,
    code: int,
    media: str = "multipart/mixed",
) -> None:
    """Stop the check unless the part for `sub` (a GET of the status resource for `code`),
    read from form `media`, carries `code`."""
    if got == code:
        judge.require(what, got, {code}, FORM_REQUIREMENT.get(media, "MB-RESP-2"))
        return
    alone = ctx.alone(judge, sub)
    # MB-TEST-6: the status resource answers "a code from 200 to 599 with that status".
    judge.require(f"{what}: {sub.target} alone", alone.status, {code}, "MB-TEST-6")
    # MB-RESP-2: "exactly one `Http-Status-Code` field holding the sub-response's three-digit
    # status code"; MB-MULTI-6: the XML form's "`DAV:status` (`HTTP/1.1 NNN`, ...)"; MB-MULTI-4:
    # the JSON entry's status is "The sub-response status".
    judge.require(what, got, {code}, FORM_REQUIREMENT.get(media, "MB-RESP-2"))
