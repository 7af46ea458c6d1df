"""The framing rules a multipart sender meets, judged on any multipart a server writes.

A batch answer is read by `expect_processed`, which judges its framing; a collection retrieval
and the other multiparts a server writes outside a batch answer are read by the checks that
ask for them, which hand the envelope here so that no sender rule goes unjudged there.
"""

from __future__ import annotations

from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.validator import Envelope

__all__ = ["judge_sender_findings"]


def judge_sender_findings(judge: Judge, what: str, env: Envelope) -> None:
    """Every rule a multipart sender breaks in `env`, each judged against its own requirement.

    The framing rules bind every multipart a server writes, a collection retrieval as much as
    a batch answer: MB-WIRE-10 (SHOULD NOT) "A sender SHOULD NOT send a preamble or an
    epilogue", MB-WIRE-12 "A sender MUST NOT write transport padding after a boundary
    delimiter", MB-WIRE-15 (SHOULD) "A sender SHOULD give each part a `Content-Length` field",
    and the fatal ones (MB-WIRE-7, MB-WIRE-16, ...) the reader stops at.
    """
    for finding in env.findings:
        judge.expect_true(
            f"{what}: {finding.sender} at octet {finding.offset}",
            False,
            finding.message,
            "framed as the sender rules of spec 3.1 say",
            finding.sender,
        )
    for part in env.parts:
        # MB-WIRE-15 (SHOULD): "A sender SHOULD give each part a `Content-Length` field".
        judge.expect_true(
            f"{what}: part {part.index} Content-Length",
            part.get("Content-Length") is not None,
            "absent" if part.get("Content-Length") is None else "present",
            "present (SHOULD)",
            "MB-WIRE-15",
        )
