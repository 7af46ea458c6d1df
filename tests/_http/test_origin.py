"""The origin a request was sent to: the request's own, the public origin, forwarded fields."""

from __future__ import annotations

import pytest

from mixbatch._http.config import HostConfig
from mixbatch._http.origin import Origin, host_fault, parse_public_origin, request_origin
from mixbatch.codec import Fields

PUBLIC = parse_public_origin("https://api.example.test")


def origin(fields: list[tuple[str, str]], **kwargs: object) -> str:
    options: dict[str, object] = {"public_origin": None, "trust_forwarded": False, **kwargs}
    return str(request_origin(Fields(fields), scheme="http", **options))  # type: ignore[arg-type]


def test_the_request_own_origin_by_default() -> None:
    assert origin([("Host", "api.example.test")]) == "http://api.example.test"


def test_forwarded_fields_are_ignored_unless_trusted() -> None:
    fields = [
        ("Host", "10.0.0.1:8080"),
        ("Forwarded", "proto=https;host=evil.test"),
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Host", "evil.test"),
    ]
    assert origin(fields) == "http://10.0.0.1:8080"


@pytest.mark.parametrize("host", ["api.example.test", "API.example.test", "api.example.test:443"])
def test_public_origin_applies_to_a_request_naming_its_authority(host: str) -> None:
    assert origin([("Host", host)], public_origin=PUBLIC).startswith("https://")


@pytest.mark.parametrize("host", ["api.example.test:8443", "other.test", "127.0.0.1:8080"])
def test_public_origin_leaves_other_authorities_alone(host: str) -> None:
    assert origin([("Host", host)], public_origin=PUBLIC) == f"http://{host}"


def test_trusted_forwarded_last_element_wins() -> None:
    fields = [
        ("Host", "10.0.0.1:8080"),
        ("Forwarded", 'for=a;proto=http;host=first.test, for=b;proto=https;host="api.test:8443"'),
    ]
    assert origin(fields, trust_forwarded=True) == "https://api.test:8443"


def test_trusted_x_forwarded_fields_when_forwarded_is_absent() -> None:
    fields = [
        ("Host", "10.0.0.1:8080"),
        ("X-Forwarded-Proto", "http, https"),
        ("X-Forwarded-Host", "api.test"),
    ]
    assert origin(fields, trust_forwarded=True) == "https://api.test"


def test_trusted_forwarded_proto_of_another_scheme_is_ignored() -> None:
    fields = [("Host", "h.test"), ("X-Forwarded-Proto", "gopher")]
    assert origin(fields, trust_forwarded=True) == "http://h.test"


@pytest.mark.parametrize(
    "text",
    ["api.example.test", "https://api.example.test/v1", "ftp://x.test", "https://u@x.test", ""],
)
def test_a_public_origin_is_a_bare_http_or_https_origin(text: str) -> None:
    with pytest.raises(ValueError, match="public origin"):
        parse_public_origin(text)
    with pytest.raises(ValueError, match="public origin"):
        HostConfig(public_origin=text)


def test_origin_keeps_its_authority_as_written() -> None:
    assert parse_public_origin("https://API.example.test:8443/") == Origin(
        "https", "API.example.test:8443"
    )


@pytest.mark.parametrize(
    ("host", "valid"),
    [
        ("[::1]:8080", True),
        ("[::ffff:1.2.3.4]", True),
        ("[v7.a:b]:8080", True),
        ("[V1.x]", True),
        ("[:::]", False),
        ("[1.2.3.4]", False),
        ("[v1.]", False),
        ("[fe80::1%25eth0]", False),
        ("127.0.0.1:8080", True),
        ("%6Cocalhost", True),
        ("u@127.0.0.1", False),
    ],
)
def test_host_field_ip_literals(host: str, valid: bool) -> None:
    """RFC 3986 §3.2.2: inside brackets an IPv6address or an IPvFuture, whose "v" is either case."""
    assert (host_fault([host]) is None) is valid
