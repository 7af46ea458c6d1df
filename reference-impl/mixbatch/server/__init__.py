"""The mixbatch reference server: asyncio + h11, demo resources and the batch endpoint.

``serve`` runs a server until cancelled; ``Server`` and ``build_app`` let tests and tools run one
in-process. The I/O adapter is ``_connection``; everything below it (router, resources, batch
endpoint) works on the plain ``Request``/``Response`` model of ``_messages``.
"""

from __future__ import annotations

from ._app import App, build_app
from ._config import ServerConfig
from ._messages import Request, Response
from ._runner import serve
from ._server import Server

__all__ = ["App", "Request", "Response", "Server", "ServerConfig", "build_app", "serve"]
