"""When the client-leaving checks count a response part as read whole, and what the relay plants
of an undone write take for the parts a leaving client read (MB-PROC-2, MB-PROC-16)."""

from __future__ import annotations

from mixbatch_conformance.checks.client_leaving import complete_parts
from mixbatch_conformance.run.plants.client_leaving import _answered

DASH = b"--b"
HEAD = b"--b\r\nContent-Id: </ok>\r\nHttp-Status-Code: 201\r\n"


def test_a_part_is_whole_by_its_content_length_or_the_next_delimiter() -> None:
    sized = HEAD + b"Content-Length: 4\r\n\r\n"
    assert complete_parts(sized + b"bod", DASH) == (0, 0)
    assert complete_parts(sized + b"body", DASH) == (1, len(sized) + 4)
    unsized = HEAD + b"\r\nbody"
    assert complete_parts(unsized, DASH) == (0, 0)
    assert complete_parts(unsized + b"\r\n--b", DASH) == (1, len(unsized))


def test_parts_are_counted_up_to_the_close_delimiter() -> None:
    part = HEAD + b"Content-Length: 2\r\n\r\nok"
    two = part + b"\r\n" + part + b"\r\n--b--\r\n"
    assert complete_parts(two, DASH)[0] == 2
    # The second part's head has arrived, its body not yet.
    assert complete_parts(part + b"\r\n" + part[:-1], DASH)[0] == 1
    assert complete_parts(b"no delimiter yet", DASH) == (0, 0)


def test_the_plants_read_the_whole_parts_a_client_was_sent() -> None:
    part = HEAD + b"Content-Length: 2\r\n\r\nok"
    fields = _answered(part + b"\r\n" + part + b"\r\n--b--")
    assert [dict(f)["Http-Status-Code"] for f in fields] == ["201", "201"]
    assert len(_answered(part + b"\r\n" + part[:-1])) == 1
    assert _answered(b"") == []
