"""Absolute part targets behind a TLS terminator: same-origin by public_origin or forwarded
fields, and only when the server is told so (MB-SUB-2, MB-PART-5)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mixbatch.cli import build_parser
from mixbatch.cli._serve import config_from_args
from mixbatch.server import ServerConfig

from ._client import RunningServer, build_batch, parse_batch

PUBLIC = "https://api.example.test"


def send_absolute(running: RunningServer, headers: list[tuple[str, str]]) -> tuple[int, list[Any]]:
    content_type, body = build_batch([("GET", f"{PUBLIC}/echo")])
    with running.client() as http:
        reply = http.request("POST", "/batch", [*headers, ("Content-Type", content_type)], body)
    return reply.status, parse_batch(reply) if reply.status == 200 else []


def test_an_https_target_is_another_origin_by_default(make_server: Any) -> None:
    status, _parts = send_absolute(
        make_server(ServerConfig(port=0)), [("Host", "api.example.test")]
    )
    assert status == 400


def test_public_origin_makes_its_https_targets_same_origin(make_server: Any) -> None:
    running = make_server(ServerConfig(port=0, public_origin=PUBLIC))
    status, parts = send_absolute(running, [("Host", "api.example.test")])
    assert status == 200
    assert parts[0].status == 200


def test_forwarded_proto_is_honoured_only_when_trusted(make_server: Any) -> None:
    headers = [("Host", "api.example.test"), ("X-Forwarded-Proto", "https")]
    assert send_absolute(make_server(ServerConfig(port=0)), headers)[0] == 400
    trusted = make_server(ServerConfig(port=0, trust_forwarded=True))
    assert send_absolute(trusted, headers)[0] == 200
    forwarded = [("Host", "10.0.0.1:8080"), ("Forwarded", "proto=https;host=api.example.test")]
    assert send_absolute(trusted, forwarded)[0] == 200


def test_an_invalid_public_origin_is_refused_when_configured() -> None:
    with pytest.raises(ValueError, match="public_origin"):
        ServerConfig(public_origin="https://api.example.test/v1")


def test_serve_options_set_the_public_origin_and_trust() -> None:
    args = build_parser().parse_args(
        ["serve", "--public-origin", PUBLIC, "--trust-forwarded", "--discard-timeout", "2"]
    )
    config = config_from_args(args)
    assert config.public_origin == PUBLIC
    assert config.trust_forwarded is True
    assert config.discard_timeout == 2.0
    defaults = config_from_args(build_parser().parse_args(["serve"]))
    assert defaults.public_origin is None
    assert defaults.trust_forwarded is False


def test_an_absolute_form_request_is_addressed_to_its_own_authority(make_server: Any) -> None:
    # RFC 9112 §3.2.2: the server "MUST ignore the received Host header field (if any) and
    # instead use the host information of the request-target".
    running = make_server(ServerConfig(port=0))
    with running.client() as http:
        reply = http.request("GET", "http://api.example.test/echo?x=1", [("Host", "other.test")])
        assert reply.status == 200
        described = json.loads(reply.body)
        assert (described["authority"], described["target"]) == ("api.example.test", "/echo?x=1")
        content_type, body = build_batch([("GET", "http://api.example.test/echo")])
        batch = http.request(
            "POST",
            "http://api.example.test/batch",
            [("Host", "other.test"), ("Content-Type", content_type)],
            body,
        )
    assert batch.status == 200
    assert json.loads(parse_batch(batch)[0].body)["authority"] == "api.example.test"
