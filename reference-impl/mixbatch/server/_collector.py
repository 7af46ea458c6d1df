"""The cyclic collector while batches are in flight: its young generation collects less often.

A batch holds every part it received until its last part ran: for 10,000 parts some 40,000
objects the collector counts (each part, its fields and their tuples), every one of them alive.
At CPython's default threshold of 700 they set off a young collection every 200 parts or so, and
each one walks the parts received since the last and moves them on to an older generation,
whose collections walk them again: about half a microsecond of each part's CPU time, for no
garbage found. While any batch is in flight the threshold is ``BATCH_YOUNG_THRESHOLD`` instead,
so that a batch of ``MAX_PARTS`` parts ends without a young collection; it is put back once the
last batch in flight ends. The collector still runs meanwhile, only less often: cyclic garbage
waits for at most that many allocations, a few MiB at worst.

The threshold belongs to the process, so the count of batches holding it raised does too.
"""

from __future__ import annotations

import gc

__all__ = ["BATCH_YOUNG_THRESHOLD", "Hold", "hold"]

#: The young generation's threshold while batches are in flight: ten times MAX_PARTS, room for
#: the four or so counted objects each part of a batch at that limit holds, and more.
BATCH_YOUNG_THRESHOLD = 100_000


class _Threshold:
    """How many batches hold the threshold raised, and what it was before the first."""

    __slots__ = ("holders", "saved")

    def __init__(self) -> None:
        self.holders = 0
        self.saved: tuple[int, int, int] | None = None

    def raise_(self) -> None:
        if self.holders == 0:
            young, middle, old = gc.get_threshold()
            # 0 means the collector is off; a threshold already higher is left as it is.
            if 0 < young < BATCH_YOUNG_THRESHOLD:
                self.saved = (young, middle, old)
                gc.set_threshold(BATCH_YOUNG_THRESHOLD, middle, old)
        self.holders += 1

    def lower(self) -> None:
        self.holders -= 1
        if self.holders == 0 and self.saved is not None:
            gc.set_threshold(*self.saved)
            self.saved = None


_THRESHOLD = _Threshold()


class Hold:
    """One batch's hold on the raised threshold, until ``release``."""

    __slots__ = ("_released",)

    def __init__(self) -> None:
        self._released = False
        _THRESHOLD.raise_()

    def release(self) -> None:
        """Let go of the threshold; a second call does nothing."""
        if not self._released:
            self._released = True
            _THRESHOLD.lower()


def hold() -> Hold:
    """Raise the young generation's threshold for one batch, until the hold is released."""
    return Hold()
