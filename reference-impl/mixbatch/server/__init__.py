"""The mixbatch reference server: asyncio + h11, demo resources and the batch endpoint.

``serve`` runs a server until cancelled; ``Server`` and ``build_app`` let tests and tools run one
in-process. The server is an application on the shared HTTP/1.1 host (``mixbatch._http``): the
router, the resources and the batch endpoint work on that host's plain ``Request``/``Response``
model. The host's names below are re-exported so that code written against this package keeps
working.
"""

from __future__ import annotations

from mixbatch._constants import CAPABILITIES_MEDIA_TYPE, PROBLEM_MEDIA_TYPE, SPEC_VERSION
from mixbatch._http import (
    BodyReadError,
    BodyTooLarge,
    Request,
    Response,
    Server,
    choose,
    from_body_error,
    from_document,
    from_error,
    parse_prefer,
    problem,
    problem_body,
    problem_document,
    refuse_content_coding,
    refuse_get_with_content,
    refuse_repeated_field,
)

from ._app import App, build_app
from ._config import ServerConfig
from ._runner import serve

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
