"""The status a part for the `status` resource carries, judged by who got it wrong.

A part that GETs the target's status resource for a code (MB-TEST-6: "a code from 200 to 599
with that status") must carry that code. When it does not, either the resource answers another
code (MB-TEST-6) or the batch reported the code it got as another (MB-RESP-2 in the multipart
form, MB-MULTI-6 and MB-MULTI-4 in the XML and JSON forms). The same GET sent alone tells the
two apart, so it is sent only when the part's status differs.

A part for the status resource's 204 or 304 carries no content. When it carries some, either
the resource answered with content (MB-TEST-6: "with no content for 204 and 304") or the batch
put content in the part that the sub-response lacked (MB-RESP-4: "MUST put the sub-response's
content in the part body"). The same GET alone cannot tell them apart: HTTP framing ends a 204
or 304 at its header section (RFC 9112 §6.3), so the content a resource builds for it never
reaches the wire alone. A part is the only place the resource's answer shows, so such a part
is judged under both requirements (`expect_status_resource_empty`), one of which it breaks.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.representations import FORM_REQUIREMENT

__all__ = ["expect_status_resource_empty", "require_status_code"]


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


def expect_status_resource_empty(judge: Judge, what: str, code: int | None, body: bytes) -> bool:
    """Expect the part for a GET of the status resource for 204 or 304, answered `code`, to
    carry no content, under MB-TEST-6 (the caller judges MB-RESP-4). Codes other than 204 and
    304 carry content the spec does not rely on, and are not judged."""
    if code not in (204, 304):
        return True
    # MB-TEST-6: "MUST answer a `GET` of that resource for a code from 200 to 599 with that
    # status, with no content for 204 and 304"; MB-RESP-4 makes the part body the
    # sub-response's content, so content here is the resource's, or the batch's own.
    return judge.expect_true(
        f"{what}: the status resource's {code} without content",
        not body,
        f"{len(body)} octets: {body[:40]!r}",
        "no content",
        "MB-TEST-6",
    )
