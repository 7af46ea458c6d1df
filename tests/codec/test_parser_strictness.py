"""The parser's own rules beyond the vectors: limits, sticky errors, incompleteness, and the
aborted-part rule. Each test names the requirement it enforces."""

from __future__ import annotations

import pytest

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    IncompleteBatch,
    LimitExceeded,
    Limits,
    RemoteProtocolError,
    Role,
)


def batch(n: int, body: bytes = b"", boundary: str = "sep") -> bytes:
    writer = BatchWriter(boundary)
    return (
        b"".join(writer.request_part("GET", f"r/{i}", body=body) for i in range(n)) + writer.close()
    )


def error_of(
    wire: bytes, limits: Limits | None = None, role: Role = Role.REQUEST, eof: bool = True
) -> RemoteProtocolError:
    parser = BatchParser("sep", role, limits)

    def run() -> None:
        parser.feed(wire)
        if eof:
            parser.feed_eof()

    with pytest.raises(RemoteProtocolError) as info:
        run()
    return info.value


def test_part_count_over_the_limit_is_413_at_the_opening_delimiter() -> None:
    wire = batch(4)
    exc = error_of(wire, Limits(max_parts=3))
    assert isinstance(exc, LimitExceeded)
    assert (exc.status_hint, exc.part_index, exc.limit) == (413, 3, "max_parts")
    assert wire[exc.offset or 0 :].startswith(b"--sep\r\n")


def test_exactly_the_part_limit_is_accepted() -> None:
    parser = BatchParser("sep", limits=Limits(max_parts=3))
    events = parser.feed(batch(3)) + parser.feed_eof()
    assert type(events[-1]).__name__ == "BatchEnd"
    assert parser.parts_complete == 3


def test_oversized_part_header_section_is_431() -> None:
    writer = BatchWriter("sep")
    wire = writer.request_part("GET", "a", [("X-Big", "v" * 9000)]) + writer.close()
    exc = error_of(wire)
    assert isinstance(exc, LimitExceeded)
    assert exc.status_hint == 431


def _fields_part(count: int, index_parts: int = 1) -> bytes:
    writer = BatchWriter("sep")
    fields = [("a", "")] * count
    parts = b"".join(writer.request_part("GET", f"r/{i}", fields) for i in range(index_parts))
    return parts + writer.close()


def test_field_lines_over_max_part_fields_are_431_naming_the_limit() -> None:
    # MB-LIMIT-5: Http-Method, Content-Id, Content-Length and 98 others are 101 lines.
    wire = _fields_part(98, index_parts=2)
    exc = error_of(wire, Limits(max_part_fields=100))
    assert isinstance(exc, LimitExceeded)
    assert (exc.status_hint, exc.limit, exc.value, exc.part_index) == (
        431,
        "max_part_fields",
        100,
        0,
    )
    assert wire[exc.offset or 0 :].startswith(b"Http-Method: GET\r\n")
    problem = exc.to_problem()
    assert (problem["limit"], problem["part_index"]) == ("max_part_fields", 0)
    assert problem["byte_offset"] == exc.offset


def test_exactly_max_part_fields_lines_are_accepted() -> None:
    parser = BatchParser("sep", limits=Limits(max_part_fields=100))
    events = parser.feed(_fields_part(97, index_parts=3)) + parser.feed_eof()
    assert parser.parts_complete == 3
    assert len(events[0].fields) == 98  # type: ignore[union-attr]  # with Content-Length


def test_the_default_field_limit_refuses_a_dense_section_of_empty_fields() -> None:
    # 1,600 empty fields fit in 8 KiB of header octets; the field-line limit refuses them.
    exc = error_of(_fields_part(1_600))
    assert isinstance(exc, LimitExceeded)
    assert (exc.status_hint, exc.limit, exc.value) == (431, "max_part_fields", 100)


def test_a_response_part_is_held_to_max_part_fields_too() -> None:
    writer = BatchWriter("sep")
    wire = writer.response_part(200, "r", [("a", "")] * 5) + writer.close()
    # The pure-Python parser is the reference that enforces and reports every limit.
    parser = BatchParser("sep", Role.RESPONSE, Limits(max_part_fields=5), accelerated=False)
    with pytest.raises(LimitExceeded) as info:
        parser.feed(wire)
    assert (info.value.limit, info.value.status_hint) == ("max_part_fields", 431)


def test_oversized_header_section_is_found_without_its_end_arriving() -> None:
    # A slow sender that never ends its header section cannot grow the buffer past the limit.
    exc = error_of(b"--sep\r\nX-Big: " + b"v" * 10_000, eof=False)
    assert isinstance(exc, LimitExceeded)
    assert exc.status_hint == 431


def test_oversized_body_is_413_while_it_streams() -> None:
    parser = BatchParser("sep", limits=Limits(max_part_bytes=100))
    parser.feed(b"--sep\r\nHttp-Method: POST\r\nContent-Id: <a>\r\n\r\n")
    with pytest.raises(LimitExceeded) as info:
        parser.feed(b"x" * 50 * 10)
    assert info.value.limit == "max_part_bytes"


def test_batch_bytes_over_the_limit_is_413_without_an_offset() -> None:
    exc = error_of(batch(10, b"x" * 100), Limits(max_batch_bytes=500))
    assert isinstance(exc, LimitExceeded)
    assert exc.limit == "max_batch_bytes"
    assert exc.offset is None


def test_errors_are_sticky() -> None:
    parser = BatchParser("sep")
    with pytest.raises(RemoteProtocolError) as first:
        parser.feed(b"--sep\nHttp-Method: GET\n")
    with pytest.raises(RemoteProtocolError) as again:
        parser.feed(b"anything")
    assert again.value is first.value
    with pytest.raises(RemoteProtocolError):
        parser.feed_eof()


@pytest.mark.parametrize("cut", [3, 20, 60, -3, -1])
def test_truncated_request_is_incomplete_with_mb_wire_13(cut: int) -> None:
    wire = batch(2, b"body")
    exc = error_of(wire[:cut])
    if cut == -1:  # "--sep--\r": the close delimiter line ends in a bare CR
        assert exc.requirement == "MB-WIRE-8"
    elif cut == 3:  # "--s": no delimiter line at all
        assert exc.requirement == "MB-WIRE-18"
    else:
        assert exc.requirement == "MB-WIRE-13"
        assert isinstance(exc, IncompleteBatch)
        assert exc.offset == len(wire[:cut])


def test_truncated_response_keeps_whole_parts_and_cites_mb_wire_14() -> None:
    writer = BatchWriter("sep")
    wire = writer.response_part(200, "a", body=b"one") + writer.response_part(200, "b", body=b"two")
    cut = wire[: -len(b"\r\n--sep")]  # the second part's body never saw its delimiter
    parser = BatchParser("sep", Role.RESPONSE)
    events = parser.feed(cut)
    with pytest.raises(IncompleteBatch) as info:
        parser.feed_eof()
    assert info.value.requirement == "MB-WIRE-14"
    assert info.value.parts_complete == 1
    assert sum(1 for e in events if type(e).__name__ == "PartEnd") == 1


def test_a_response_missing_only_the_close_delimiter_has_every_part_whole() -> None:
    writer = BatchWriter("sep")
    wire = writer.response_part(200, "a", body=b"one") + writer.response_part(200, "b", body=b"two")
    parser = BatchParser("sep", Role.RESPONSE)
    parser.feed(wire)
    with pytest.raises(IncompleteBatch) as info:
        parser.feed_eof()
    assert info.value.parts_complete == 2


def test_a_part_after_the_aborted_part_is_an_error() -> None:
    writer = BatchWriter("sep")
    wire = (
        writer.response_part(
            None, None, [("Content-Type", "application/problem+json")], b"{}", outcome="aborted"
        )
        + writer.response_part(200, "a")
        + writer.close()
    )
    assert error_of(wire, role=Role.RESPONSE).requirement == "MB-STATUS-6"


def test_a_stray_lf_dash_boundary_in_a_body_is_a_bare_lf_delimiter() -> None:
    # MB-WIRE-8: a line "--sep" that follows a bare LF is a delimiter line with a bad terminator.
    wire = b"--sep\r\nHttp-Method: POST\r\nContent-Id: <a>\r\n\r\nbefore\n--sep\r\nafter\r\n--sep--\r\n"
    exc = error_of(wire)
    assert exc.requirement == "MB-WIRE-8"
    assert wire[exc.offset or 0 :].startswith(b"--sep\r\nafter")


def test_transport_padding_after_delimiters_is_accepted() -> None:
    wire = batch(2).replace(b"--sep\r\n", b"--sep \t \r\n").replace(b"--sep--\r\n", b"--sep-- \r\n")
    parser = BatchParser("sep")
    parser.feed(wire)
    parser.feed_eof()
    assert parser.parts_complete == 2


def test_a_part_with_an_absent_body_ends_at_the_blank_line() -> None:
    parser = BatchParser("sep")
    events = (
        parser.feed(b"--sep\r\nHttp-Method: GET\r\nContent-Id: <a>\r\n\r\n--sep--")
        + parser.feed_eof()
    )
    assert [type(e).__name__ for e in events] == ["RequestPartStart", "PartEnd", "BatchEnd"]


def test_repeated_equal_content_length_lines_are_refused_with_mb_wire_20() -> None:
    wire = b"--sep\r\nHttp-Method: POST\r\nContent-Id: <a>\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx\r\n--sep--\r\n"
    exc = error_of(wire)
    assert exc.requirement == "MB-WIRE-20"
    assert wire[exc.offset or 0 :].startswith(b"Content-Length: 1\r\n\r\n")


def test_request_part_start_locates_its_content_id_line() -> None:
    wire = b"--sep\r\nX-A: 1\r\nHttp-Method: GET\r\nContent-Id: <books/1>\r\n\r\n\r\n--sep--\r\n"
    event = BatchParser("sep").feed(wire)[0]
    assert wire[event.target_offset :].startswith(b"Content-Id: <books/1>")  # type: ignore[union-attr]
    assert wire[event.offset :].startswith(b"X-A: 1")


def test_an_unknown_outcome_token_passes_through_as_unknown() -> None:
    # MB-RESP-8: the client, not the parser, reports the part's outcome as unknown.
    wire = b"--sep\r\nBatch-Outcome: deferred\r\nContent-Id: <a>\r\n\r\n\r\n--sep--\r\n"
    event = BatchParser("sep", Role.RESPONSE).feed(wire)[0]
    assert event.outcome == "deferred"  # type: ignore[union-attr]
    assert event.outcome_known is False  # type: ignore[union-attr]


def _with_length(numeral: str) -> bytes:
    return (
        f"--sep\r\nHttp-Method: POST\r\nContent-Id: <a>\r\nContent-Length: {numeral}\r\n\r\n"
        "0123456789abcdef\r\n--sep--\r\n"
    ).encode()


@pytest.mark.parametrize("accelerated", [False, None])
def test_a_part_length_in_thousands_of_digits_is_read_as_its_number(
    accelerated: bool | None,
) -> None:
    # MB-WIRE-22: a part's Content-Length is the decimal number its digits write, leading
    # zeros included; a numeral of 4,400 digits is past what int() converts.
    parser = BatchParser("sep", accelerated=accelerated)
    events = parser.feed(_with_length("16".rjust(4_400, "0"))) + parser.feed_eof()
    assert [type(e).__name__ for e in events] == [
        "RequestPartStart",
        "PartData",
        "PartEnd",
        "BatchEnd",
    ]


def test_a_part_length_of_thousands_of_digits_is_over_max_part_bytes() -> None:
    # MB-WIRE-22 with MB-LIMIT-2: the declared length is over the limit, not unreadable.
    with pytest.raises(LimitExceeded) as info:
        BatchParser("sep", accelerated=False).feed(_with_length("1" + "0" * 4_400))
    assert info.value.limit == "max_part_bytes"
    assert "of 4401 digits" in str(info.value)
