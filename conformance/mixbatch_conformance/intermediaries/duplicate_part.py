"""Fault scenario ``duplicate-part``: the intermediary repeats one part of a batch response.

This breaks MB-INTER-1 and MB-RESP-1: the response now has one part more than the request, and
every part after the copy is shifted by one, so correlation by position (MB-RESP-6) pairs the
wrong answers with requests. The suite must flag it. ``mb_duplicate_part`` picks the part.
"""

from __future__ import annotations

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error
from mixbatch_conformance.intermediaries._slices import boundary_of, split_parts


class DuplicatePart:
    def load(self, loader: Loader) -> None:
        loader.add_option("mb_duplicate_part", int, 0, "Index (0-based) of the part to repeat.")

    def configure(self, updated: set[str]) -> None:
        if ctx.options.mb_duplicate_part < 0:
            raise option_error(
                f"mb_duplicate_part must be >= 0, got {ctx.options.mb_duplicate_part}"
            )

    def response(self, flow: http.HTTPFlow) -> None:
        response = flow.response
        assert response is not None
        boundary = boundary_of(response.headers.get("content-type"))
        if boundary is None or "content-encoding" in response.headers:
            return
        head, parts, tail = split_parts(response.raw_content or b"", boundary)
        index = ctx.options.mb_duplicate_part
        if index >= len(parts):
            return
        parts.insert(index, parts[index])
        response.headers.pop("transfer-encoding", None)
        response.content = head + b"".join(parts) + tail  # sets Content-Length


addons = [DuplicatePart()]
