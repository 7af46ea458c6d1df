"""What every check of a batch outlasting its time budget shares: it was aborted, and how an
abort part's field line reads."""

from __future__ import annotations

import re

from mixbatch_conformance.core.judge import Judge

__all__ = ["ABORTED_LINE", "expect_budget_abort"]

#: An abort part's field line (spec 5.4), found anywhere in a batch answer's octets.
ABORTED_LINE = re.compile(rb"(?im)^batch-outcome:[ \t]*aborted[ \t]*\r?$")


def expect_budget_abort(judge: Judge, label: str, stopped: bool) -> None:
    """The batch, which outlasted the target's declared time limit, was stopped: an abort
    part (or entry) or, where the server could not write one, the response cut short.

    MB-SEC-1: a server "SHOULD bound the wall-clock time ... it spends on one batch, and abort
    ([5.4]) a batch that exceeds its budget", whatever its mode, policy or response form."""
    judge.expect_true(
        f"{label}the batch was aborted once its time budget ran out",
        stopped,
        "ran to its end: no abort part, the close delimiter written",
        "an abort part, or the response cut short",
        "MB-SEC-1",
    )
