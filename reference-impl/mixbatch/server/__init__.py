"""The mixbatch reference server: asyncio + h11, demo resources and the batch endpoint.

``serve`` runs a server until cancelled; ``Server`` and ``build_app`` let tests and tools run one
in-process. The I/O adapter is ``_connection``; everything below it (router, resources, batch
endpoint) works on the plain ``Request``/``Response`` model of ``_messages``. The problem-details
helpers are public too, so the batching proxy answers its own refusals in the same shape.
"""

from __future__ import annotations

from ._app import App, build_app
from ._batch_endpoint import refuse_get_with_content
from ._capabilities import CAPABILITIES_MEDIA_TYPE, SPEC_VERSION
from ._config import ServerConfig
from ._content_coding import refuse_content_coding
from ._messages import BodyReadError, BodyTooLarge, Request, Response
from ._negotiation import choose, parse_prefer
from ._problems import (
    PROBLEM_MEDIA_TYPE,
    from_body_error,
    from_document,
    from_error,
    problem,
    problem_body,
    problem_document,
)
from ._router import refuse_repeated_field
from ._runner import serve
from ._server import Server

__all__ = [
    "CAPABILITIES_MEDIA_TYPE",
    "PROBLEM_MEDIA_TYPE",
    "SPEC_VERSION",
    "App",
    "BodyReadError",
    "BodyTooLarge",
    "Request",
    "Response",
    "Server",
    "ServerConfig",
    "build_app",
    "choose",
    "from_body_error",
    "from_document",
    "from_error",
    "parse_prefer",
    "problem",
    "problem_body",
    "problem_document",
    "refuse_content_coding",
    "refuse_get_with_content",
    "refuse_repeated_field",
    "serve",
]
