"""Scenario ``rechunk``: changes the transfer coding of batch messages (MB-INTER-3 allows it).

``mb_rechunk`` = ``to-chunked``: a Content-Length message leaves chunked; ``to-length``: a
chunked message is buffered and leaves with Content-Length; ``small-chunks``: the body streams
through in chunks of ``mb_chunk_size`` octets, whatever its framing was. Applies to requests and
responses alike; the content's octets never change.
"""

from __future__ import annotations

from collections.abc import Iterable

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error

MODES = ("to-chunked", "to-length", "small-chunks")


def _pieces(size: int) -> object:
    def cut(data: bytes) -> Iterable[bytes]:
        # No empty piece ever: each piece becomes one chunk, and an empty chunk ends the body.
        return [data[i : i + size] for i in range(0, len(data), size)]

    return cut


class Rechunk:
    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_rechunk", str, "to-chunked", f"Transfer coding change: one of {MODES}."
        )
        loader.add_option(
            "mb_chunk_size", int, 7, "Octets per chunk in small-chunks mode (at least 1)."
        )

    def configure(self, updated: set[str]) -> None:
        if ctx.options.mb_rechunk not in MODES:
            raise option_error(f"mb_rechunk must be one of {MODES}, got {ctx.options.mb_rechunk!r}")
        if ctx.options.mb_chunk_size < 1:
            raise option_error(
                f"mb_chunk_size must be at least 1, got {ctx.options.mb_chunk_size!r}"
            )

    def _reframe(self, message: http.Message) -> None:
        mode = ctx.options.mb_rechunk
        if mode == "to-chunked":
            message.headers.pop("content-length", None)
            message.headers["transfer-encoding"] = "chunked"
        elif mode == "to-length":
            message.headers.pop("transfer-encoding", None)
            message.headers["content-length"] = str(len(message.raw_content or b""))

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if ctx.options.mb_rechunk == "small-chunks":
            flow.request.stream = _pieces(ctx.options.mb_chunk_size)  # type: ignore[assignment]

    def request(self, flow: http.HTTPFlow) -> None:
        if ctx.options.mb_rechunk != "small-chunks":
            self._reframe(flow.request)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        assert flow.response is not None
        if ctx.options.mb_rechunk == "small-chunks":
            flow.response.stream = _pieces(ctx.options.mb_chunk_size)  # type: ignore[assignment]

    def response(self, flow: http.HTTPFlow) -> None:
        assert flow.response is not None
        # RFC 9112 §6.3: a response to HEAD and a 1xx, 204 or 304 response has no content, so
        # it has no framing to change; a chunked coding there would send a last chunk that the
        # next response on the connection would begin with.
        bodiless = flow.request.method == "HEAD" or flow.response.status_code in (204, 304)
        if (
            ctx.options.mb_rechunk != "small-chunks"
            and not bodiless
            and flow.response.status_code >= 200
        ):
            self._reframe(flow.response)


addons = [Rechunk()]
