"""The Accept-Post field the spec names, judged member by member.

MB-WIRE-2 and MB-LIMIT-2 both name "an `Accept-Post: multipart/mixed` field": the field's value
is that one media type. Accept-Post lists the media types a resource accepts in a POST (W3C
Linked Data Platform 1.0 §7.1), so a member naming any other type, such as a 207 form the
server answers in, tells a client the endpoint takes what it refuses with 415. Parameters on
the member are left unjudged: the spec does not speak of them.
"""

from __future__ import annotations

from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.validator import list_members
from mixbatch_conformance.transport.http import Response

__all__ = ["ACCEPTED_MEDIA", "expect_accept_post_exact", "other_members"]

#: The one media type a batch endpoint accepts in a POST (MB-WIRE-1, MB-WIRE-2).
ACCEPTED_MEDIA = "multipart/mixed"


def other_members(values: list[str]) -> list[str]:
    """The members of an Accept-Post (all its lines) that do not name multipart/mixed."""
    return [
        m for m in list_members(values) if m.split(";", 1)[0].strip(" \t").lower() != ACCEPTED_MEDIA
    ]


def expect_accept_post_exact(judge: Judge, resp: Response, requirement: str) -> bool:
    """Accept-Post names multipart/mixed and nothing else; judged under `requirement`."""
    values = resp.get_all("Accept-Post")
    members = list_members(values)
    others = other_members(values)
    # MB-WIRE-2 / MB-LIMIT-2: "an `Accept-Post: multipart/mixed` field": the media type the
    # endpoint accepts, and only it.
    return judge.expect_true(
        "Accept-Post members",
        bool(members) and not others,
        f"Accept-Post: {values!r}"
        + (f" (members not multipart/mixed: {others!r})" if others else ""),
        "Accept-Post: multipart/mixed, no other media type",
        requirement,
    )
