"""Scenario ``passthrough``: mitmproxy relays every message untouched (the control run).

Anything the suite finds through this scenario and not directly is mitmproxy's own doing:
it de-pipelines, answers ``Expect: 100-continue`` itself and refuses Content-Length together
with Transfer-Encoding, so checks about those run direct only.
"""

from __future__ import annotations

from mitmproxy import http
from mitmproxy.addonmanager import Loader


class Passthrough:
    def __init__(self) -> None:
        self.flows = 0

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_passthrough_count",
            bool,
            True,
            "Count the flows relayed (no effect on the traffic; shown in the event log).",
        )

    def response(self, flow: http.HTTPFlow) -> None:
        self.flows += 1


addons = [Passthrough()]
