"""The aggregate Last-Modified of a collection retrieval (spec 4.2, MB-METHOD-5).

Theory of operation: MB-METHOD-5 (SHOULD) asks for "an aggregate `Last-Modified` on a
collection retrieval equal to the latest `Last-Modified` among the members, when every member
has one". The members' own dates are in their parts (each part carries the member's header
fields), so the check reads them there and compares the aggregate with the latest, as dates
(RFC 9110 §5.6.7), not as strings. When some member has no date the check is N/A.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

__all__: list[str] = []


def _date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None


@checker(
    "collection-last-modified",
    ("MB-METHOD-5",),
    "A collection retrieval whose members all carry Last-Modified carries an aggregate Last-Modified equal to the latest of them.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_last_modified(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    if resp.status != 200:
        judge.setup_error(f"GET {coll} answered {resp.status}; collection-get judges that")
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        judge.setup_error("the collection retrieval is not multipart; collection-get judges that")
    env = read_multipart(resp.body, params.get("boundary", ""))
    dates = [_date(p.get("Last-Modified")) for p in env.parts]
    if not dates or any(d is None for d in dates):
        judge.not_applicable("not every member part carries a Last-Modified field")
    latest = max(d for d in dates if d is not None)
    aggregate = resp.get("Last-Modified")
    judge.expect_true(
        "aggregate Last-Modified",
        _date(aggregate) == latest,
        repr(aggregate),
        "the latest member Last-Modified (SHOULD)",
    )
