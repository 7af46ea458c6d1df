"""The writer refuses to break a sender's duty, blaming the local caller."""

from __future__ import annotations

import pytest

from mixbatch.codec import BatchWriter, LocalProtocolError


def refused(call: object) -> LocalProtocolError:
    with pytest.raises(LocalProtocolError) as info:
        call()  # type: ignore[operator]
    assert info.value.blame == "local"
    return info.value


def test_refuses_a_body_holding_the_delimiter() -> None:
    writer = BatchWriter("sep")
    for body in (b"x\r\n--sep\r\n", b"x\n--sep", b"--sep"):
        assert (
            refused(lambda body=body: writer.request_part("POST", "a", body=body)).requirement
            == "MB-WIRE-6"
        )


def test_allows_a_boundary_lookalike_that_is_not_at_a_line_start() -> None:
    writer = BatchWriter("sep")
    assert writer.request_part("POST", "a", body=b"x--sep").endswith(b"x--sep\r\n--sep")


@pytest.mark.parametrize(
    "name",
    [
        "Host",
        "transfer-encoding",
        "Connection",
        "Expect",
        "Content-Transfer-Encoding",
        "Http-Status-Code",
        "Content-Id",
    ],
)
def test_refuses_forbidden_fields_in_request_parts(name: str) -> None:
    writer = BatchWriter("sep")
    refused(lambda: writer.request_part("GET", "a", [(name, "x")]))


@pytest.mark.parametrize("value", ["a\r\nInjected: yes", "a\n b", "a\x00b"])
def test_refuses_values_that_would_fold_or_inject_lines(value: str) -> None:
    writer = BatchWriter("sep")
    assert (
        refused(lambda: writer.request_part("GET", "a", [("X-Note", value)])).requirement
        == "MB-PART-11"
    )


def test_refuses_connect_trace_and_non_token_methods() -> None:
    writer = BatchWriter("sep")
    assert refused(lambda: writer.request_part("CONNECT", "a")).requirement == "MB-SUB-3"
    assert refused(lambda: writer.request_part("TRACE", "a")).requirement == "MB-SUB-3"
    assert refused(lambda: writer.request_part("GE T", "a")).requirement == "MB-PART-1"


def test_refuses_a_wrong_content_length_and_adds_a_right_one() -> None:
    writer = BatchWriter("sep")
    assert (
        refused(
            lambda: writer.request_part("POST", "a", [("Content-Length", "9")], b"abc")
        ).requirement
        == "MB-WIRE-16"
    )
    assert b"Content-Length: 3\r\n" in writer.request_part("POST", "a", body=b"abc")


def test_status_and_outcome_must_agree() -> None:
    writer = BatchWriter("sep")
    refused(lambda: writer.response_part(None, "a"))
    refused(lambda: writer.response_part(200, "a", outcome="skipped"))
    refused(lambda: writer.response_part(200, None))


def test_an_empty_batch_cannot_be_closed() -> None:
    writer = BatchWriter("sep")
    assert refused(writer.close).requirement == "MB-WIRE-18"


def test_writes_crlf_and_no_transport_padding() -> None:
    writer = BatchWriter("sep")
    wire = writer.request_part("GET", "a") + writer.request_part("GET", "b") + writer.close()
    assert wire.count(b"\n") == wire.count(b"\r\n")
    assert b"--sep \r\n" not in wire
    assert wire.startswith(b"--sep\r\n")
    assert wire.endswith(b"\r\n--sep--\r\n")


def test_each_part_ends_with_the_delimiter_that_closes_its_body() -> None:
    # MB-PROC-4: a reader sees part i whole before part i + 1 is written.
    writer = BatchWriter("sep")
    first = writer.request_part("GET", "a")
    second = writer.request_part("GET", "b")
    assert first.startswith(b"--sep\r\n")
    assert first.endswith(b"\r\n--sep")
    assert second.startswith(b"\r\nHttp-Method: GET")
    assert writer.close() == b"--\r\n"
