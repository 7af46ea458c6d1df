"""The batching proxy of thesis §4.3 and spec §10.2: batches in, standalone requests out.

A client sends a batch to the proxy; the proxy validates the whole envelope (MB-PROXY-3), sends
each part as a standalone HTTP/1.1 request to its one origin over a pool of keep-alive
connections, pipelining consecutive safe parts, and streams the answers back as one
multipart/mixed response in request order (MB-PROXY-1). An upstream failure or timeout is that
part's 502 or 504 (MB-PROXY-2). Requests to any other path pass through unchanged.

``ProxyServer`` runs one in-process; ``serve_proxy`` runs one until a signal; ``ProxyApp`` is
the application alone, for embedding behind the reference server's ``Server``.
"""

from __future__ import annotations

from ._app import REFUSED_METHODS, ProxyApp
from ._batch import INHERITED_FIELDS, SAFE_METHODS, plan_runs
from ._config import (
    BATCH_PATH,
    CONNECT_TIMEOUT,
    MAX_CONNECTIONS,
    MAX_PIPELINE_DEPTH,
    RUN_AHEAD,
    SUBREQUEST_TIMEOUT,
    ProxyConfig,
    Upstream,
)
from ._envelope import AUTHORITY_FIELDS
from ._runner import ANNOUNCEMENT, ProxyServer, serve_proxy
from ._upstream import UpstreamError, UpstreamPool, UpstreamTimeout

__all__ = [
    "ANNOUNCEMENT",
    "AUTHORITY_FIELDS",
    "BATCH_PATH",
    "CONNECT_TIMEOUT",
    "INHERITED_FIELDS",
    "MAX_CONNECTIONS",
    "MAX_PIPELINE_DEPTH",
    "REFUSED_METHODS",
    "RUN_AHEAD",
    "SAFE_METHODS",
    "SUBREQUEST_TIMEOUT",
    "ProxyApp",
    "ProxyConfig",
    "ProxyServer",
    "Upstream",
    "UpstreamError",
    "UpstreamPool",
    "UpstreamTimeout",
    "plan_runs",
    "serve_proxy",
]
