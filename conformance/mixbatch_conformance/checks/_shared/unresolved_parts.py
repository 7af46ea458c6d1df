"""The answer MB-PROC-20 gives a part whose reference cannot be resolved, judged in one place.

MB-PROC-20: "The answer is `Batch-Outcome: skipped` with an `application/problem+json` body that
the problem schema admits, whose `status` is a 4xx code, whose `requirement` is `MB-PROC-20` and
whose `reference` member is the reference as written". The part itself has no status
(MB-RESP-5). Any 4xx is allowed: the examples use 424, and a client reads the part's outcome
from `Batch-Outcome`, never from the problem's `status`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.schemas import problem_error
from mixbatch_conformance.core.validator import Part, parse_media_type

__all__ = ["ABSENT_FIELD", "expect_unresolved_part"]

#: A field name no resource of the test profile answers with (MB-TEST-1 to MB-TEST-8 name their
#: fields), so ``$(N:ABSENT_FIELD)`` cannot be resolved (MB-PROC-20).
ABSENT_FIELD = "X-Mb-Suite-Absent"


def _problem(part: Part) -> dict[str, Any] | None:
    try:
        media = parse_media_type(part.get("Content-Type") or "")[0]
        doc = loads_json_text(part.body) if media == "application/problem+json" else None
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def expect_unresolved_part(judge: Judge, label: str, part: Part, written: Collection[str]) -> None:
    """`part` is skipped with no status and the MB-PROC-20 problem document, whose `reference`
    is one of `written` (the reference as written, in each spelling the spec allows)."""
    judge.expect(f"{label} Batch-Outcome", part.get("Batch-Outcome"), {"skipped"}, "MB-PROC-20")
    judge.expect(f"{label} Http-Status-Code", part.get("Http-Status-Code"), {None}, "MB-RESP-5")
    doc = _problem(part)
    judge.expect(
        f"{label} problem requirement", (doc or {}).get("requirement"), {"MB-PROC-20"}, "MB-PROC-20"
    )
    judge.expect(
        f"{label} problem reference", (doc or {}).get("reference"), set(written), "MB-PROC-20"
    )
    if doc is None:
        return
    status = doc.get("status")
    # MB-PROC-20: "whose `status` is a 4xx code".
    judge.expect_true(
        f"{label} problem status",
        type(status) is int and 400 <= status <= 499,
        repr(status),
        "a 4xx code (424 in the examples)",
        "MB-PROC-20",
    )
    # MB-PROC-20: "a body that the problem schema admits".
    error = problem_error(doc)
    judge.expect_true(
        f"{label} problem document",
        error is None,
        error or "",
        "a document valid against problem.schema.json",
        "MB-PROC-20",
    )
