"""Why some checks can only be judged on a direct connection to the target.

A check names one of these as its `direct_only` reason; a run through an intermediary
(--via) then reports it N/A with that reason instead of judging what the intermediary did.
"""

from __future__ import annotations

__all__ = ["PIPELINING_NEEDS_ONE_CONNECTION"]

#: MB-PIPE-1 is about the order of answers on one connection; an intermediary may read one
#: request, answer it, then read the next (mitmproxy does), so the target never sees a pipeline.
PIPELINING_NEEDS_ONE_CONNECTION = (
    "an intermediary may de-pipeline: it reads one request, answers it, then reads the next"
)
