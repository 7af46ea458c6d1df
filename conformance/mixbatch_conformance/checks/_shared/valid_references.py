"""A batch whose every Content-Id is `"<" URI-reference ">"` is not refused as malformed.

MB-PART-4 answers 400 to a `Content-Id` that "is not `"<" URI-reference ">"`" and "MUST take a
`Content-Id` that is such a value as the part's target whatever characters of that grammar it
holds: a batch is refused for what such a target names ([8.3], [8.4]) or for another fault,
never for how a valid reference is written". A 400 to such a batch may still be right for what
the target names (another origin, MB-SUB-2); the refusal is for the reference's syntax when its
problem document says so, naming MB-PART-4 (or MB-PART-3, the client's side of the same rule).
"""

from __future__ import annotations

from mixbatch_conformance.core.context import json_object
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import Response

__all__ = ["SYNTAX_RULES", "expect_not_refused_for_syntax"]

#: The requirements a refusal for a Content-Id's syntax names.
SYNTAX_RULES = frozenset({"MB-PART-4", "MB-PART-3"})


def expect_not_refused_for_syntax(judge: Judge, label: str, resp: Response) -> bool:
    """`resp`, the answer to a batch whose Content-Ids are all valid references, is no 400
    whose problem document names the Content-Id rule. Whether it held."""
    doc = json_object(resp.body) if resp.status == 400 else None
    named = doc.get("requirement") if doc is not None else None
    # MB-PART-4: "MUST take a `Content-Id` that is such a value as the part's target whatever
    # characters of that grammar it holds: ... never for how a valid reference is written".
    return judge.expect_true(
        f"{label}: a valid URI-reference not refused as malformed",
        named not in SYNTAX_RULES,
        f"400 naming {named}: the Content-Id refused for its syntax",
        "not a 400 for the Content-Id's syntax (a refusal, if any, for what the target names)",
        "MB-PART-4",
    )
