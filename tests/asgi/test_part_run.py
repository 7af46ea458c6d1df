"""What a part inherits from its batch request: the authority it runs under, and the outer
fields it may take (MB-SUB-5), read from any endpoint that declares them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from mixbatch.asgi._part_run import Authorizer, authority, inherited_fields
from mixbatch.codec import Fields


@pytest.mark.parametrize(
    ("scope", "headers", "expected"),
    [
        ({"server": ("10.0.0.1", 8000)}, [("Host", "api.example.test")], "api.example.test"),
        ({"server": ("10.0.0.1", 8000)}, [], "10.0.0.1:8000"),
        ({"server": ("10.0.0.1", 80)}, [], "10.0.0.1"),
        ({"server": ("10.0.0.1", 80), "scheme": "https"}, [], "10.0.0.1:80"),
        ({"server": ("10.0.0.1", 443), "scheme": "https"}, [], "10.0.0.1"),
        ({"server": ("10.0.0.1", 443)}, [], "10.0.0.1:443"),
        ({"server": ("/run/app.sock", None)}, [], "/run/app.sock"),
        ({}, [], "localhost"),
        ({"server": None}, [], "localhost"),
    ],
)
def test_the_authority_is_host_else_the_server_address_without_its_default_port(
    scope: dict[str, Any], headers: list[tuple[str, str]], expected: str
) -> None:
    assert authority(scope, Fields(headers)) == expected


@dataclass
class _Endpoint:
    """An endpoint that is not ``BatchMiddleware``: only what running a part reads."""

    app: Any = None
    path: str = "/batch"
    inherit_headers: tuple[str, ...] = ("authorization", "cookie")
    authorize_part: Authorizer | None = None


def test_only_the_fields_named_inheritable_are_passed_on_whatever_their_case() -> None:
    headers = Fields(
        [
            ("AUTHORIZATION", "Bearer t"),
            ("Content-Type", "multipart/mixed; boundary=b"),
            ("Cookie", "a=1"),
            ("cookie", "b=2"),
            ("X-Request-Id", "7"),
        ]
    )
    assert inherited_fields(_Endpoint(), headers) == [
        ("AUTHORIZATION", "Bearer t"),
        ("Cookie", "a=1"),
        ("cookie", "b=2"),
    ]
    assert inherited_fields(_Endpoint(inherit_headers=()), headers) == []
