"""One batch result read in each form it was asked for, each 207 form's entries held to the
multipart form's parts.

MB-MULTI-5: "carry the same information in every representation of one batch result: for each
part, in order, its status or outcome, its `Content-Id` echo, its header fields and its body",
a skipped or rolled-back part as much as one that ran. Fields the target declares volatile are
left out of the comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.representations import Entry

__all__ = ["expect_entries_as_multipart"]


def expect_entries_as_multipart(
    judge: Judge,
    media: str,
    entries: Sequence[Entry],
    multipart: Sequence[Entry],
    volatile: Iterable[str],
    where: str = "",
) -> None:
    """Each of `media`'s `entries` carries what the multipart form's part at its place does;
    `where` names the batch in the expectation ("around 404")."""
    volatile = tuple(volatile)
    for i, (entry, mine) in enumerate(zip(entries, multipart, strict=False)):
        judge.expect(
            f"{media} part {i}{where} as in multipart/mixed",
            entry.comparable(volatile),
            [mine.comparable(volatile)],
            "MB-MULTI-5",
        )
