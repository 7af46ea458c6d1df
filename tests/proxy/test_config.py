"""``Upstream.parse`` and ``ProxyConfig``: an origin is accepted as given, and every bad
argument is refused when the config is built, with a message naming it and its value."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mixbatch.proxy import ProxyConfig, Upstream
from mixbatch.proxy._config import DEFAULT_HOST


@pytest.mark.parametrize(
    ("url", "host", "port", "authority"),
    [
        ("http://origin.test", "origin.test", 80, "origin.test"),
        ("http://origin.test:80/", "origin.test", 80, "origin.test"),
        ("http://127.0.0.1:8080", "127.0.0.1", 8080, "127.0.0.1:8080"),
        ("http://[::1]:9000", "::1", 9000, "[::1]:9000"),
        ("http://[::1]", "::1", 80, "[::1]"),
    ],
)
def test_an_origin_parses_to_host_port_and_the_authority_sent_in_host(
    url: str, host: str, port: int, authority: str
) -> None:
    upstream = Upstream.parse(url)
    assert (upstream.scheme, upstream.host, upstream.port) == ("http", host, port)
    assert upstream.authority == authority
    assert upstream.url == f"http://{authority}"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://origin.test", "must be an http:// URL"),
        ("origin.test:8080", "must be an http:// URL"),
        ("http://", "has no host"),
        ("http://user:secret@origin.test", "must not carry userinfo"),
        ("http://user@origin.test", "must not carry userinfo"),
        ("http://origin.test/api", "no path, query or fragment"),
        ("http://origin.test/?q=1", "no path, query or fragment"),
        ("http://origin.test/#top", "no path, query or fragment"),
        ("http://origin.test:99999", "bad port"),
        ("http://origin.test:http", "bad port"),
    ],
)
def test_an_upstream_that_is_not_an_http_origin_is_refused_naming_the_url(
    url: str, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason) as caught:
        Upstream.parse(url)
    assert repr(url) in str(caught.value)


def test_the_proxy_listens_on_loopback_unless_told_otherwise() -> None:
    config = ProxyConfig(Upstream.parse("http://origin.test"))
    assert config.host == DEFAULT_HOST == "127.0.0.1"
    assert config.batch_path == "/batch"


@pytest.mark.parametrize("port", [-1, 65536])
def test_a_port_outside_0_to_65535_is_refused(port: int) -> None:
    with pytest.raises(ValueError, match=rf"ProxyConfig\.port must be 0-65535, got {port}"):
        ProxyConfig(Upstream.parse("http://origin.test"), port=port)


#: Every numeric bound of ``ProxyConfig`` (the port aside, which may be 0), read from the class so
#: that a bound added later is held to the same rule.
BOUNDS = [
    f.name
    for f in dataclasses.fields(ProxyConfig)
    if isinstance(f.default, int | float) and not isinstance(f.default, bool) and f.name != "port"
]


def test_the_bounds_include_the_pool_the_pipeline_the_timeouts_and_the_budget() -> None:
    assert {"max_connections", "max_pipeline_depth", "run_ahead", "subrequest_timeout"} <= set(
        BOUNDS
    )
    assert {"connect_timeout", "max_batches_in_flight", "busy_retry_after"} <= set(BOUNDS)


@pytest.mark.parametrize("name", BOUNDS)
@pytest.mark.parametrize("value", [0, -1, True, "4", None])
def test_every_bound_must_be_a_positive_number(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"ProxyConfig\.{name} must be positive, got {value!r}"):
        ProxyConfig(Upstream.parse("http://origin.test"), **{name: value})


def test_a_batch_path_must_be_a_path() -> None:
    with pytest.raises(ValueError, match=r"batch_path must start with '/', got 'batch'"):
        ProxyConfig(Upstream.parse("http://origin.test"), batch_path="batch")


def test_port_0_asks_for_an_ephemeral_port_and_fractions_of_a_second_are_allowed() -> None:
    config = ProxyConfig(Upstream.parse("http://origin.test"), port=0, subrequest_timeout=0.25)
    assert (config.port, config.subrequest_timeout) == (0, 0.25)
