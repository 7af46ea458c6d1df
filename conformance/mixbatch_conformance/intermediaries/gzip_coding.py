"""Scenario ``gzip``: adds a gzip content coding to every batch response.

A transforming intermediary that ignores ``Cache-Control: no-transform`` (MB-INTER-4) does
this; MB-INTER-2 makes the client undo any content coding before it parses the multipart
body. The suite's checks must therefore pass through this scenario only if its client decodes.
``mb_gzip_all`` extends the coding to every response, not only multipart/mixed ones.
"""

from __future__ import annotations

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader


class GzipCoding:
    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_gzip_all", bool, False, "Gzip every response, not only multipart/mixed batches."
        )

    def response(self, flow: http.HTTPFlow) -> None:
        response = flow.response
        assert response is not None
        kind = response.headers.get("content-type", "").lower()
        if "content-encoding" in response.headers or not response.raw_content:
            return
        if ctx.options.mb_gzip_all or kind.startswith("multipart/mixed"):
            response.encode("gzip")  # sets Content-Encoding and Content-Length


addons = [GzipCoding()]
