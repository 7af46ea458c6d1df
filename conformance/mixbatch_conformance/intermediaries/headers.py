"""Scenario ``headers``: changes header field name case, reverses field order, adds Via and
X-Forwarded-* to requests and Via to responses, as many real proxies do (RFC 9110 §5.1: names
are case-insensitive; §5.3: order matters only among lines of one name, which this keeps).

A batch must survive all of it: none of these touch the content (MB-INTER-1).
"""

from __future__ import annotations

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from mixbatch_conformance.intermediaries._options import option_error

CASES = ("lower", "upper", "title")
VIA = "1.1 mitmproxy-headers-scenario"


def _recase(name: str, case: str) -> str:
    if case == "lower":
        return name.lower()
    if case == "upper":
        return name.upper()
    return "-".join(word.capitalize() for word in name.split("-"))


def _rewrite(headers: http.Headers, case: str) -> None:
    fields = list(headers.fields)
    # Reverse the order of distinct names but keep the lines of one name in their order.
    names: list[bytes] = []
    for name, _ in fields:
        if name.lower() not in names:
            names.append(name.lower())
    names.reverse()
    rewritten = [
        (_recase(n.decode("latin-1"), case).encode("latin-1"), v)
        for key in names
        for n, v in fields
        if n.lower() == key
    ]
    headers.fields = tuple(rewritten)


class Headers:
    def load(self, loader: Loader) -> None:
        loader.add_option(
            "mb_header_case", str, "upper", f"Case to give every field name: one of {CASES}."
        )

    def configure(self, updated: set[str]) -> None:
        if "mb_header_case" in updated and ctx.options.mb_header_case not in CASES:
            raise option_error(
                f"mb_header_case must be one of {CASES}, got {ctx.options.mb_header_case!r}"
            )

    def request(self, flow: http.HTTPFlow) -> None:
        headers = flow.request.headers
        headers.add("Via", VIA)
        headers.add(
            "X-Forwarded-For",
            flow.client_conn.peername[0] if flow.client_conn.peername else "unknown",
        )
        headers.add("X-Forwarded-Proto", flow.request.scheme)
        _rewrite(headers, ctx.options.mb_header_case)

    def response(self, flow: http.HTTPFlow) -> None:
        assert flow.response is not None
        flow.response.headers.add("Via", VIA)
        _rewrite(flow.response.headers, ctx.options.mb_header_case)


addons = [Headers()]
