"""The HTTP/1.1 layer the reference server, the batching proxy, the client and ASGI stand on.

Below the applications and above the envelope and codec: an asyncio + h11 host (``listener``
accepts, ``connection`` drives one h11 machine per TCP connection and hands each request to an
application callable), the plain ``Request``/``Response`` model it hands over (``messages``),
the request-target forms it accepts (``targets``), problem documents (``problems``), content
negotiation and preferences (``negotiation``), conditional requests (``conditional``),
refusals every batch endpoint gives alike (``refusals``, ``content_coding``), the in-flight
batch budget (``budget``), the wait for a stop signal (``runner``), and the pipelining client
connection (``pipeline``) the client and the proxy's upstream pool share. The reference server
(``mixbatch.server``) is one application on this host; the batching proxy is another.
"""

from __future__ import annotations

from .budget import (
    BUSY_RETRY_AFTER,
    MAX_BATCH_BYTES_IN_FLIGHT,
    MAX_BATCHES_IN_FLIGHT,
    BatchBudget,
    BudgetExhausted,
    Ticket,
)
from .config import HostConfig, HostSettings
from .content_coding import refuse_content_coding
from .listener import Server
from .messages import (
    BodyReadError,
    BodyTooLarge,
    Request,
    RequestBody,
    Response,
    ResponseCut,
    SpooledBody,
)
from .negotiation import choose, parse_accept, parse_prefer
from .problems import (
    PROBLEM_MEDIA_TYPE,
    from_body_error,
    from_document,
    from_error,
    problem,
    problem_body,
    problem_document,
    reason,
)
from .refusals import refuse_get_with_content, refuse_repeated_field
from .runner import until_stop_signal

__all__ = [
    "BUSY_RETRY_AFTER",
    "MAX_BATCHES_IN_FLIGHT",
    "MAX_BATCH_BYTES_IN_FLIGHT",
    "PROBLEM_MEDIA_TYPE",
    "BatchBudget",
    "BodyReadError",
    "BodyTooLarge",
    "BudgetExhausted",
    "HostConfig",
    "HostSettings",
    "Request",
    "RequestBody",
    "Response",
    "ResponseCut",
    "Server",
    "SpooledBody",
    "Ticket",
    "choose",
    "from_body_error",
    "from_document",
    "from_error",
    "parse_accept",
    "parse_prefer",
    "problem",
    "problem_body",
    "problem_document",
    "reason",
    "refuse_content_coding",
    "refuse_get_with_content",
    "refuse_repeated_field",
    "until_stop_signal",
]
