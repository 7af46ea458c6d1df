"""Nested batches: a part whose target is the batch endpoint, in every spelling.

MB-SUB-4 answers a batch with such a part 400 before any part runs. Spellings that resolve to the
batch endpoint by RFC 3986 §5.2 (dot segments, the empty reference, the absolute URI of the own
origin, a query) must be refused outright. Spellings a server may route elsewhere (percent-encoded
octets, a trailing slash, another case, path parameters) need not be refused, but must never run
as a batch: the part's answer is then not a 200 multipart response (``no_nested_run``).
"""

from __future__ import annotations

from ._case import Case, batch, part, post, statuses

__all__ = ["CASES"]

INNER_BOUNDARY = "inner-boundary-5678"
INNER = batch(part("GET", "/books/1"), boundary=INNER_BOUNDARY)
INNER_FIELDS = [("Content-Type", f"multipart/mixed; boundary={INNER_BOUNDARY}")]


def nested(case_id: str, target: str, *, must_refuse: bool, requirement: str = "MB-SUB-4") -> Case:
    return Case(
        f"nested-{case_id}",
        post(batch(part("POST", target, INNER_FIELDS, INNER))),
        statuses(400) if must_refuse else statuses(200, 400),
        "MB-SUB-4: a part whose target is a batch endpoint is answered 400, so batches do not nest",
        requirement=requirement if must_refuse else None,
        check="no_nested_run",
    )


CASES = [
    nested("path", "/batch", must_refuse=True),
    nested("empty-reference", "", must_refuse=True),
    nested("relative", "batch", must_refuse=True),
    nested("absolute-uri", "http://test/batch", must_refuse=True),
    nested("absolute-uri-upper-case", "HTTP://TEST/batch", must_refuse=True),
    nested("absolute-uri-default-port", "http://test:80/batch", must_refuse=True),
    nested("dot-segment", "/./batch", must_refuse=True),
    nested("dot-dot-segment", "/a/../batch", must_refuse=True),
    nested("query", "/batch?x=1", must_refuse=True),
    nested("empty-query", "/batch?", must_refuse=True),
    # A network-path reference: refused by MB-SUB-2 before it could name the endpoint.
    nested("double-slash", "//batch", must_refuse=True, requirement="MB-SUB-2"),
    nested("percent-encoded-letter", "/%62atch", must_refuse=False),
    nested("percent-encoded-slash", "/%2Fbatch", must_refuse=False),
    nested("trailing-slash", "/batch/", must_refuse=False),
    nested("upper-case-path", "/BATCH", must_refuse=False),
    nested("path-parameter", "/batch;x", must_refuse=False),
    nested("nul-suffix", "/batch%00", must_refuse=False),
]
