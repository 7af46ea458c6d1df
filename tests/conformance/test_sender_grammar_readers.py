"""The suite's readers of what a server sends take exactly what the sender rules allow: JSON
texts (RFC 8259), base64 (RFC 4648), HTTP-dates (RFC 9110 §5.6.7), a Batch-Summary dictionary
(RFC 9651) and the head of an HTTP/1.1 response (RFC 9112), whose breaks are kept as
violations while the response is still read."""

from __future__ import annotations

import io

import pytest

from mixbatch_conformance.checks._shared.content_codings import accepted_codings
from mixbatch_conformance.checks._shared.validators import http_date_seconds, is_http_date
from mixbatch_conformance.checks.batch_summary import _counts
from mixbatch_conformance.core.base64_text import decode_base64
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.json_text import is_json_integer, loads_json_text, same_json_value
from mixbatch_conformance.transport.http import ResponseError, read_response


def test_json_names_repeated_with_two_values_are_refused_and_with_one_read() -> None:
    assert loads_json_text(b'{"a": 1, "a": 1.0}') == {"a": 1.0}
    for text in (b'{"a": 1, "a": 2}', b'{"a": 1, "a": true}', b'[{"b": [0], "b": [false]}]'):
        with pytest.raises(ValueError, match="given twice"):
            loads_json_text(text)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (1, 1.0, True),
        ({"x": [1]}, {"x": [1.0]}, True),
        (True, 1, False),
        (0, False, False),
        ({"x": 1}, {"x": True}, False),
        ("1", 1, False),
    ],
)
def test_json_values_compare_as_json_values(a: object, b: object, same: bool) -> None:
    assert same_json_value(a, b) is same


@pytest.mark.parametrize(
    ("value", "integer"), [(100, True), (100.0, True), (True, False), (1.5, False), ("1", False)]
)
def test_json_integers_are_json_schemas(value: object, integer: bool) -> None:
    assert is_json_integer(value) is integer


@pytest.mark.parametrize("text", ["QR==", "QQ", "QQ==\n", "Q Q=="])
def test_base64_is_the_octets_one_encoding(text: str) -> None:
    assert decode_base64("QQ==") == b"A"
    with pytest.raises(ValueError, match="base64"):
        decode_base64(text)


def test_echo_read_refuses_what_no_echo_sends() -> None:
    fields = b'"method": "GET", "target": "/e", "headers": []'
    assert read_echo(b"{" + fields + b', "body_base64": "QQ=="}') is not None
    for bad in (b'"body_base64": "QR=="', b'"body": "\\ud800"'):
        assert read_echo(b"{" + fields + b", " + bad + b"}") is None
    assert read_echo(b"\xef\xbb\xbf{" + fields + b', "body": ""}') is None


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("Sun, 06 Nov 1994 08:49:37 GMT", True),
        ("Mon, 06 Nov 1994 08:49:37 GMT", False),
        ("Sunday, 06-Nov-94 08:49:37 GMT", False),
        ("Sun Nov  6 08:49:37 1994", False),
        ("Sun, 06 Nov 1994 08:49:37 UTC", False),
        ("Tue, 31 Feb 1994 08:49:37 GMT", False),
        ("Sun, 06 Nov 1994 24:49:37 GMT", False),
    ],
)
def test_a_servers_http_date_is_an_imf_fixdate_on_its_weekday(value: str, valid: bool) -> None:
    assert is_http_date(value) is valid
    assert (http_date_seconds(value) == 784111777.0) is (valid and "Nov 1994" in value)


@pytest.mark.parametrize(
    ("value", "counts"),
    [
        ("ok=3, failed=1", {"ok": 3, "failed": 1}),
        ("ok=3,failed=1;a=?1", {"ok": 3, "failed": 1}),
        ("ok=1, ok=2", {"ok": 2}),
        ("ok = 3", None),
        ("ok=3 ;a", None),
        ("ok=1.5", None),
        ("ok=3,", None),
        ("ok=3\u00a0", None),
    ],
)
def test_batch_summary_is_read_as_rfc_9651_reads_a_dictionary(
    value: str, counts: dict[str, int] | None
) -> None:
    assert _counts(value) == counts


def _read(raw: bytes) -> tuple[str, ...]:
    return read_response(io.BytesIO(raw), "GET").violations


def test_a_head_as_rfc_9112_writes_it_has_no_violation() -> None:
    raw = b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nETag: "x"\r\nVary: a\r\nVary: b\r\n\r\nhi'
    assert _read(raw) == ()
    chunked = (
        b'HTTP/1.1 299 \r\nTransfer-Encoding: chunked\r\n\r\n2;a="b"\r\nhi\r\n0\r\nX: y\r\n\r\n'
    )
    assert _read(chunked) == ()


@pytest.mark.parametrize(
    "raw",
    [
        b"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\nContent-Length: 0\n\n",
        b"HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-A : 1\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
        b'HTTP/1.1 200 OK\r\nETag: "a"\r\nETag: "a"\r\nContent-Length: 0\r\n\r\n',
        b"HTTP/1.1 600 OK\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nhi\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
)
def test_a_head_a_sender_breaks_is_read_with_its_violation(raw: bytes) -> None:
    assert _read(raw)


def test_a_value_keeps_octets_that_are_no_optional_whitespace() -> None:
    resp = read_response(io.BytesIO(b"HTTP/1.1 200 OK\r\nX-A: \t1\xa0 \r\n\r\n"), "GET")
    assert resp.get("X-A") == "1\xa0"


def test_a_content_length_in_other_digits_is_no_length() -> None:
    with pytest.raises(ResponseError, match="bad Content-Length"):
        read_response(io.BytesIO(b"HTTP/1.1 200 OK\r\nContent-Length: \xb2\r\n\r\nhi"), "GET")


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("gzip, deflate;q=0.5", ["gzip", "deflate"]),
        ("gzip ; Q=1.000, x-gzip;q=0", ["gzip"]),
        ("gzip;q=1.0000, deflate;q=high, br;level=1", []),
    ],
)
def test_accept_encoding_names_codings_by_rfc_9110s_weights(value: str, named: list[str]) -> None:
    raw = f"HTTP/1.1 415 \r\nAccept-Encoding: {value}\r\nContent-Length: 0\r\n\r\n".encode()
    assert accepted_codings(read_response(io.BytesIO(raw), "POST")) == named
