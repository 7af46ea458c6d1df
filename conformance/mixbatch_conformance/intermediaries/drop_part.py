"""Fault scenario ``drop-part``: the intermediary silently removes one part of a batch response.

This breaks MB-INTER-1 and MB-RESP-1 ("exactly one part per request part, in request order").
The framing stays valid, so only a client that counts parts and checks each Content-Id echo
(MB-RESP-3) notices; the suite must flag it. ``mb_drop_part`` picks the part (0-based).
"""

from __future__ import annotations

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error
from mixbatch_conformance.intermediaries._slices import boundary_of, split_parts


class DropPart:
    def load(self, loader: Loader) -> None:
        loader.add_option("mb_drop_part", int, 0, "Index (0-based) of the part to remove.")

    def configure(self, updated: set[str]) -> None:
        if ctx.options.mb_drop_part < 0:
            raise option_error(f"mb_drop_part must be >= 0, got {ctx.options.mb_drop_part}")

    def response(self, flow: http.HTTPFlow) -> None:
        response = flow.response
        assert response is not None
        boundary = boundary_of(response.headers.get("content-type"))
        if boundary is None or "content-encoding" in response.headers:
            return
        head, parts, tail = split_parts(response.raw_content or b"", boundary)
        index = ctx.options.mb_drop_part
        if index >= len(parts) or len(parts) < 2:
            return
        del parts[index]
        response.headers.pop("transfer-encoding", None)
        response.content = head + b"".join(parts) + tail  # sets Content-Length


addons = [DropPart()]
