"""Planted violations of servers that keep state per connection by mistake.

HTTP/1.1 connections persist (RFC 9112 §9.3) and clients send many requests over one, so a
server that stores per-request state on its connection object answers the second request on a
connection with what it learned from the first. Each plant keeps that state in the relay's
per-connection dict (`RelayRequest.connection`), so it shows only to a client that reuses
connections; the suite does, and a run with --fresh-connections does not see these bugs:

    boundary-fixed-per-connection    the response boundary drawn once per connection: random,
                                     but the same for every batch answered on it (MB-WIRE-5)
    authorization-of-first-request   the first request's Authorization kept for the connection
                                     and applied to every later request on it (MB-SUB-5)
    credentials-kept-for-requests-without
                                     the last Authorization and Cookie sent on the connection
                                     given to a later request that carries none (MB-SUB-5)
    echo-describes-first-request     the echo resource's description built once per connection,
                                     so it describes the first request on it (MB-TEST-2)
    echo-kept-per-request-line       the echo's description kept per request line on the
                                     connection, so a request sent again with other fields is
                                     described as the first one was (MB-TEST-2)
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference target's echo resource (the relay fronts the reference server).
ECHO_PATH = "/echo"


def _boundary_per_connection(req: RelayRequest, resp: RelayResponse) -> None:
    """Every batch answered on a connection uses the boundary drawn for its first."""
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if not is_batch(req) or parts is None:
        return
    drawn = f"plant-conn-{secrets.token_urlsafe(18)}"
    kept = str(req.connection.setdefault("boundary", drawn))
    resp.set("Content-Type", f"multipart/mixed; boundary={kept}")
    resp.body = write_parts(parts, kept)


def _first_authorization(req: RelayRequest) -> None:
    """The connection is authenticated once: its first Authorization stands for every request."""
    own = req.get("Authorization")
    kept = req.connection.get("authorization")
    if kept is None:
        if own is not None:
            req.connection["authorization"] = own
        return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "authorization"]
    req.headers.append(("Authorization", str(kept)))


def _credentials_for_requests_without(req: RelayRequest) -> None:
    """Credentials sent on the connection stand in for a later request that carries none."""
    for name in ("Authorization", "Cookie"):
        own = [v for n, v in req.headers if n.lower() == name.lower()]
        kept = req.connection.get(name)
        if own:
            req.connection[name] = own
        elif isinstance(kept, list):
            req.headers.extend((name, str(v)) for v in kept)


def _echo_per_request_line(req: RelayRequest, resp: RelayResponse) -> None:
    """The echo answers a request line it already described on the connection as it did."""
    if req.target.split("?", 1)[0] == ECHO_PATH and resp.status == 200:
        first = req.connection.setdefault(f"echo {req.method} {req.target}", resp.body)
        resp.body = first if isinstance(first, bytes) else resp.body


def _echo_of_first(req: RelayRequest, resp: RelayResponse) -> None:
    """The echo's description is made once per connection and answered to every request."""
    if req.target.split("?", 1)[0] == ECHO_PATH and resp.status == 200:
        first = req.connection.setdefault("echo", resp.body)
        resp.body = first if isinstance(first, bytes) else resp.body


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "boundary-fixed-per-connection",
        "MB-WIRE-5 one boundary per connection",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_boundary_per_connection,
    ),
    Mutation(
        "authorization-of-first-request",
        "MB-SUB-5 the first request's credentials kept for its connection",
        ("credentials-inherited",),
        on_request=_first_authorization,
    ),
    Mutation(
        "credentials-kept-for-requests-without",
        "MB-SUB-5 credentials of an earlier request on the connection for one without",
        ("credentials-inherited",),
        on_request=_credentials_for_requests_without,
    ),
    Mutation(
        "echo-kept-per-request-line",
        "MB-TEST-2 the description of a request line kept for its connection",
        ("test-resource-echo",),
        on_response=_echo_per_request_line,
    ),
    Mutation(
        "echo-describes-first-request",
        "MB-TEST-2 the first request's description kept for its connection",
        ("test-resource-echo",),
        on_response=_echo_of_first,
    ),
)
