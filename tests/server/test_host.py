"""The batch request's Host: an invalid or empty one is 400, and a part target with an empty
host matches no batch, whatever the batch's Host says (spec 3.2.2, 8.3)."""

from __future__ import annotations

import json

import pytest

from ._client import RunningServer, read_until_close

BATCH = b"--BB\r\nHttp-Method: GET\r\nContent-Id: <{target}>\r\n\r\n\r\n--BB--"


def _post(server: RunningServer, host_line: bytes, target: bytes = b"/echo") -> tuple[bytes, bytes]:
    body = BATCH.replace(b"{target}", target)
    request = (
        b"POST /batch HTTP/1.1\r\n" + host_line + b"Content-Type: multipart/mixed; boundary=BB\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )
    with server.connect() as sock:
        sock.sendall(request)
        data = read_until_close(sock)
    head, _, content = data.partition(b"\r\n\r\n")
    return head, content


@pytest.mark.parametrize(
    "value", [b"a b", b"x:y:z", b"", b":80", b"a\xe9b", b"[::1", b"a,b c"], ids=repr
)
def test_an_invalid_or_empty_host_is_400_problem(server: RunningServer, value: bytes) -> None:
    head, content = _post(server, b"Host: " + value + b"\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    document = json.loads(content)
    assert document["type"] == "https://mixbatch.dev/problems/invalid-host"
    assert document["requirement"] == "MB-PART-5"


def test_a_missing_host_is_400(server: RunningServer) -> None:
    head, _ = _post(server, b"")
    assert head.startswith(b"HTTP/1.1 400 ")


@pytest.mark.parametrize("value", [b"127.0.0.1:8080", b"[::1]:80", b"ex-ample.test", b"h:"])
def test_a_valid_host_is_processed(server: RunningServer, value: bytes) -> None:
    head, _ = _post(server, b"Host: " + value + b"\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize("target", [b"http:///echo", b"http://:80/echo", b"http://u@/echo"])
def test_a_part_target_with_an_empty_host_is_refused(server: RunningServer, target: bytes) -> None:
    head, content = _post(server, b"Host: t\r\n", target)
    assert head.startswith(b"HTTP/1.1 400 ")
    assert json.loads(content)["requirement"] == "MB-SUB-2"
