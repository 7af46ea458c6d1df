"""A refusal for a fault outside the batch's content places it nowhere in the content (spec 5.3).

Theory of operation: MB-STATUS-4 gives a refusal `part_index` and `byte_offset` "when the
server knows them", and spec 5.3 has them "absent or null where the fault is not in the
content (the top-level `Content-Type`, a limit on the whole batch, a 503)". A server that fills
both members with 0 by default points a client at the first part of a batch that has nothing
wrong with it. Each batch here has well-formed content and one fault outside it: its
`Content-Type`, its `Accept`, its `Batch-Mode`, its method. Only an answer with the status
that fault calls for is judged; the checks of each rule judge the status itself.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import LOCATION_MEMBERS
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-unlocated-8b03e7"


@checker(
    "unlocated-refusals-carry-no-location",
    ("MB-STATUS-4",),
    "The refusal of a well-formed batch for its Content-Type (415), its Accept (406), an unknown Batch-Mode (501) or its method (405) has no part_index or byte_offset, or null ones.",
    state=State.READ_ONLY,
)
def unlocated_refusals(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    body = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--"
    faults = [
        ("a text/plain Content-Type", "POST", [("Content-Type", "text/plain")], 415),
        ("Accept: text/html", "POST", [ctype, ("Accept", "text/html")], 406),
        ("an unknown Batch-Mode", "POST", [ctype, ("Batch-Mode", "mb-suite-no-such-mode")], 501),
        ("the method PUT", "PUT", [ctype], 405),
    ]
    for what, method, head, status in faults:
        resp = ctx.send(judge, ctx.raw_request(method, ctx.batch_path, head, body.encode()))
        doc = problem_of(resp)
        if resp.status != status or doc is None:
            judge.note(f"{what}: {resp.status}, judged by the checks of its rule")
            continue
        for member in LOCATION_MEMBERS:
            # Spec 5.3: `part_index` and `byte_offset` are "absent or null where the fault is
            # not in the content (the top-level `Content-Type`, a limit on the whole batch, a
            # 503)"; MB-STATUS-4 gives them only "when the server knows them".
            judge.expect(
                f"{what} ({status}): problem {member}", doc.get(member), {None}, "MB-STATUS-4"
            )
