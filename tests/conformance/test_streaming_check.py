"""When the streaming check counts part 0 as arrived (MB-PROC-4)."""

from __future__ import annotations

from mixbatch_conformance.checks.streaming import part0_complete
from mixbatch_conformance.checks.streaming_forms import xml_entry0_complete

DASH = b"--b"
HEAD = b"--b\r\nContent-Id: </ok>\r\nHttp-Status-Code: 200\r\n"


def test_the_next_delimiter_completes_part_0() -> None:
    assert part0_complete(HEAD + b"\r\nbody\r\n--b", DASH)
    assert not part0_complete(HEAD + b"\r\nbody\r\n", DASH)


def test_content_length_completes_part_0_before_the_next_delimiter() -> None:
    head = HEAD + b"Content-Length: 4\r\n\r\n"
    assert part0_complete(head + b"body", DASH)
    assert part0_complete(head + b"body\r\n", DASH)
    assert not part0_complete(head + b"bod", DASH)
    assert not part0_complete(HEAD + b"Content-Length: 4\r\n", DASH)


def test_an_unusable_content_length_waits_for_the_delimiter() -> None:
    twice = HEAD + b"Content-Length: 4\r\nContent-Length: 4\r\n\r\nbody"
    assert not part0_complete(twice, DASH)
    assert not part0_complete(b"preamble only", DASH)


def test_an_xml_entry_closes_under_any_prefix_xml_allows() -> None:
    for closed in ("</response>", "</D:response >", "</ñ:response>", "</d.1-x:response>"):
        assert xml_entry0_complete(f"<m>{closed}".encode()), closed
    for open_ in ("<D:response>", "<D:responsedescription/>", "</a b:response>", "</D:respons>"):
        assert not xml_entry0_complete(open_.encode()), open_
