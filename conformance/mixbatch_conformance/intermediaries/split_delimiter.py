"""Fault scenario ``split-delimiter``: every delimiter line of a batch response is cut in two.

The response streams; each chunk is split in the middle of every ``--boundary`` it contains and
the halves are written separately with a short pause (``mb_split_pause_ms``) so that they travel
in different TCP segments. A receiver that looks for the delimiter per read instead of across
reads loses or merges parts here.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error
from mixbatch_conformance.intermediaries._slices import boundary_of


class SplitDelimiter:
    def __init__(self) -> None:
        self.splits = 0

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_split_pause_ms", int, 5, "Pause between the two halves of a delimiter (0-500 ms)."
        )

    def configure(self, updated: set[str]) -> None:
        if not 0 <= ctx.options.mb_split_pause_ms <= 500:
            raise option_error(
                f"mb_split_pause_ms must be 0-500, got {ctx.options.mb_split_pause_ms}"
            )

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        assert flow.response is not None
        boundary = boundary_of(flow.response.headers.get("content-type"))
        if boundary is None:
            return
        dash = b"--" + boundary.encode("latin-1")
        half = len(dash) // 2
        pause = ctx.options.mb_split_pause_ms / 1000

        def split(data: bytes) -> Iterator[bytes]:
            start = 0
            while (found := data.find(dash, start)) != -1:
                cut = found + half
                yield data[start:cut]
                self.splits += 1
                time.sleep(pause)
                start = cut
            # Never an empty piece: mitmproxy writes each piece as one chunk, and an empty
            # chunk is the chunked coding's last-chunk, which would end the message early.
            if data[start:]:
                yield data[start:]

        flow.response.stream = split


addons = [SplitDelimiter()]
