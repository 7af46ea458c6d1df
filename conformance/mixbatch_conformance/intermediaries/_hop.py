"""What mitmdump does as a hop in every scenario, besides the scenario's own addon.

mitmproxy 12 cannot relay a chunked response that ends with trailer fields: it answers 502
("incomplete chunked read") instead. A proxy that cannot forward trailers must not pass on the
client's ``TE: trailers``, which promises that the whole path accepts them; TE is hop-by-hop
anyway (RFC 9110 §10.1.4). Without it the server sends no trailer (MB-STATUS-8: only to a
client that said it accepts them), so a scenario tests the batch, not mitmproxy's trailer bug.
"""

from __future__ import annotations

from mitmproxy import http


class HopByHop:
    def requestheaders(self, flow: http.HTTPFlow) -> None:
        flow.request.headers.pop("TE", None)


addons = [HopByHop()]
