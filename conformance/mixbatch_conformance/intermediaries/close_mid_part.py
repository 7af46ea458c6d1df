"""Fault scenario ``close-mid-part``: the connection closes in the middle of a part.

The batch response is buffered, cut halfway through part ``mb_close_in_part`` (0-based), and
sent read-until-close: no Content-Length, no chunked coding, ``Connection: close``. The client
therefore sees a well-formed HTTP/1.1 message whose multipart body has no close delimiter and
MUST report the batch incomplete, keeping only the parts that arrived whole (MB-WIRE-14).
"""

from __future__ import annotations

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error
from mixbatch_conformance.intermediaries._slices import boundary_of, split_parts


class CloseMidPart:
    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_close_in_part", int, 1, "Index (0-based) of the part cut in the middle."
        )

    def configure(self, updated: set[str]) -> None:
        if ctx.options.mb_close_in_part < 0:
            raise option_error(f"mb_close_in_part must be >= 0, got {ctx.options.mb_close_in_part}")

    def response(self, flow: http.HTTPFlow) -> None:
        response = flow.response
        assert response is not None
        boundary = boundary_of(response.headers.get("content-type"))
        body = response.raw_content or b""
        if boundary is None or "content-encoding" in response.headers:
            return
        head, parts, _tail = split_parts(body, boundary)
        index = min(ctx.options.mb_close_in_part, len(parts) - 1)
        if index < 0:
            return
        victim = parts[index]
        cut = head + b"".join(parts[:index]) + victim[: max(1, len(victim) // 2)]
        response.headers.pop("content-length", None)
        response.headers.pop("transfer-encoding", None)
        response.headers.pop("trailer", None)
        response.headers["connection"] = "close"
        response.raw_content = cut


addons = [CloseMidPart()]
