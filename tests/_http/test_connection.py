"""The host's connection: transfer codings h11 refuses get RFC 9112's own status, and a
response whose source fails part-way is a warning, both at the reference server and the proxy
(which share this code; tests/adversarial drives both over sockets)."""

from __future__ import annotations

import pytest

from mixbatch._http.connection import _transfer_coding_fault


def _head(*codings: str) -> bytearray:
    lines = "".join(f"Transfer-Encoding: {c}\r\n" for c in codings)
    return bytearray(f"POST /batch HTTP/1.1\r\nHost: test\r\n{lines}\r\n0\r\n\r\n".encode())


@pytest.mark.parametrize(
    "codings",
    [("xchunked",), ("chunked, gzip",), ("gzip",), ("chunked", "gzip")],
    ids=["xchunked", "chunked-then-gzip", "gzip-alone", "two-lines"],
)
def test_a_final_coding_other_than_chunked_is_400(codings: tuple[str, ...]) -> None:
    fault = _transfer_coding_fault(_head(*codings))
    assert fault is not None
    assert fault[0] == 400
    assert "RFC 9112 §6.3" in fault[1]


@pytest.mark.parametrize("codings", [("gzip, chunked",), ("gzip", "chunked"), ("x-zip, chunked",)])
def test_a_coding_not_understood_before_a_final_chunked_is_501(codings: tuple[str, ...]) -> None:
    fault = _transfer_coding_fault(_head(*codings))
    assert fault is not None
    assert fault[0] == 501
    assert "RFC 9112 §6.1" in fault[1]


def test_a_head_without_transfer_encoding_leaves_h11_s_decision() -> None:
    assert _transfer_coding_fault(bytearray(b"POST / HTTP/1.1\r\nHost: t\r\n\r\n")) is None
    assert _transfer_coding_fault(None) is None


def test_only_the_head_is_read_not_the_content() -> None:
    raw = bytearray(b"POST / HTTP/1.1\r\nHost: t\r\n\r\nTransfer-Encoding: xchunked\r\n")
    assert _transfer_coding_fault(raw) is None
