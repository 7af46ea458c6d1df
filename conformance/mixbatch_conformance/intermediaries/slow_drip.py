"""Fault scenario ``slow-drip``: the batch response arrives a few octets at a time, slowly.

Every response body streams in pieces of ``mb_drip_size`` octets with ``mb_drip_delay_ms``
between them, for at most ``mb_drip_budget_s`` seconds per response (after that the rest goes
at once, so a large batch cannot stall a run). A client must reassemble the same parts however
the octets trickle in. The pause blocks mitmproxy's loop, which is acceptable for a one-client
test proxy and is why the budget exists.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error


class SlowDrip:
    def load(self, loader: Loader) -> None:
        loader.add_option("mb_drip_size", int, 5, "Octets per piece (at least 1).")
        loader.add_option("mb_drip_delay_ms", int, 1, "Pause between pieces, in ms (0-1000).")
        loader.add_option(
            "mb_drip_budget_s", float, 2.0, "Longest total pause per response, in seconds."
        )

    def configure(self, updated: set[str]) -> None:
        if ctx.options.mb_drip_size < 1:
            raise option_error(f"mb_drip_size must be >= 1, got {ctx.options.mb_drip_size}")
        if not 0 <= ctx.options.mb_drip_delay_ms <= 1000:
            raise option_error(
                f"mb_drip_delay_ms must be 0-1000, got {ctx.options.mb_drip_delay_ms}"
            )
        if ctx.options.mb_drip_budget_s < 0:
            raise option_error(f"mb_drip_budget_s must be >= 0, got {ctx.options.mb_drip_budget_s}")

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        assert flow.response is not None
        size = ctx.options.mb_drip_size
        delay = ctx.options.mb_drip_delay_ms / 1000
        budget = [ctx.options.mb_drip_budget_s]

        def drip(data: bytes) -> Iterator[bytes]:
            for start in range(0, len(data), size):
                if budget[0] <= 0:
                    yield data[start:]
                    return
                yield data[start : start + size]
                time.sleep(delay)
                budget[0] -= delay

        flow.response.stream = drip


addons = [SlowDrip()]
