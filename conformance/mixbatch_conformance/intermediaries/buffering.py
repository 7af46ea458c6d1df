"""Scenario ``buffering``: whole-message buffering against streaming, in each direction.

``mb_buffering`` = ``whole``: mitmproxy reads each message to its end before it forwards any of
it (so a streamed batch response reaches the client in one piece, after its last part);
``stream``: octets are forwarded as they arrive. Both are legitimate for a generic
intermediary (MB-INTER-3); only timing changes, never the parts.
"""

from __future__ import annotations

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error

MODES = ("whole", "stream")


class Buffering:
    def load(self, loader: Loader) -> None:
        loader.add_option("mb_buffering", str, "whole", f"Buffering mode: one of {MODES}.")

    def configure(self, updated: set[str]) -> None:
        if ctx.options.mb_buffering not in MODES:
            raise option_error(
                f"mb_buffering must be one of {MODES}, got {ctx.options.mb_buffering!r}"
            )

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        flow.request.stream = ctx.options.mb_buffering == "stream"

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        assert flow.response is not None
        flow.response.stream = ctx.options.mb_buffering == "stream"


addons = [Buffering()]
