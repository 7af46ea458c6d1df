"""Scenario ``h2``: HTTP/2 over TLS toward the client, HTTP/1.1 toward the origin.

The client connects with TLS (the run's own CA, ``mitmproxy-ca-cert.pem`` in the run's private
confdir) and ALPN. With mitmproxy 12.2.3 and a lazy upstream, two adjustments are needed:
``tls_clienthello`` keeps the server side unopened and picks h2 for the client whenever the
client offers it, whatever its order (``mb_prefer_h2``), and ``request`` gives an HTTP/2 upload that carries no
Content-Length one from its buffered content, because the HTTP/1.1 origin needs framing and
mitmproxy does not add it on its own.
"""

from __future__ import annotations

from mitmproxy import ctx, http, tls
from mitmproxy.addonmanager import Loader

H2 = b"h2"


class Http2Client:
    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_prefer_h2", bool, True, "Move h2 to the front of the client's ALPN offers."
        )

    def tls_clienthello(self, data: tls.ClientHelloData) -> None:
        data.establish_server_tls_first = False
        offers = list(data.context.client.alpn_offers or ())
        if ctx.options.mb_prefer_h2 and H2 in offers:
            # mitmproxy's ALPN callback honours a protocol already chosen for the client before
            # the client's own order (httpx offers http/1.1 first), so choose h2 here.
            data.context.client.alpn = H2

    def request(self, flow: http.HTTPFlow) -> None:
        request = flow.request
        if request.http_version != "HTTP/2.0":
            return
        if "content-length" in request.headers or "transfer-encoding" in request.headers:
            return
        if request.raw_content or request.method in ("POST", "PUT", "PATCH"):
            request.headers["content-length"] = str(len(request.raw_content or b""))


addons = [Http2Client()]
