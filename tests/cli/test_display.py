"""How ``send`` and ``inspect`` show parts and faults: text for a person, JSON lines for a
program. A part that did not take effect says so, a binary body never reaches a terminal, and
a fault names its requirement and points at the offending octets."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from mixbatch.cli._display import (
    CONTEXT_OCTETS,
    HumanOutput,
    JsonOutput,
    PartView,
    exit_status_epilog,
    format_body,
    print_fault,
    print_part,
    requirement_summary,
)
from mixbatch.codec import IncompleteBatch, MixbatchError


def _part(**overrides: Any) -> str:
    fields: dict[str, Any] = {
        "index": 0,
        "status": 200,
        "outcome": None,
        "content_id": None,
        "fields": [],
        "body": b"",
        "max_chars": 100,
    } | overrides
    out = io.StringIO()
    print_part(out, **fields)
    return out.getvalue()


# --- a part as text ----------------------------------------------------------------------------


def test_a_rolled_back_part_shows_its_real_status_and_its_outcome() -> None:
    text = _part(
        index=1,
        status=201,
        outcome="rolled-back",
        content_id="<books-7>",
        fields=[("Location", "/books/7")],
        body=b'{"id": 7}',
    )
    assert text.splitlines() == [
        "part 1  201 Created [rolled-back]  <<books-7>>",
        "  Location: /books/7",
        "",
        '  {"id": 7}',
        "",
    ]


def test_a_skipped_part_has_no_status_and_says_it_was_skipped() -> None:
    head = _part(index=2, status=None, outcome="skipped").splitlines()[0]
    assert head == "part 2  - [skipped]"


def test_a_status_without_a_reason_phrase_is_shown_bare() -> None:
    assert _part(status=299).splitlines()[0] == "part 0  299"


def test_each_body_line_is_indented_and_an_empty_body_says_so() -> None:
    assert "  one\n  two\n" in _part(body=b"one\ntwo")
    assert "  (no content)\n" in _part(body=b"")


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (b"", "(no content)"),
        (b"a\tb\r\nc", "a\tb\r\nc"),
        (b"\xff\xfe\x00", "(3 octets of binary content)"),
        (b"GIF89a\x01\x00", "(8 octets of binary content)"),
        ("caf\u00e9".encode(), "caf\u00e9"),
        (b"x" * 12, "xxxxxxxxxx... (12 octets in all)"),
        (b"x" * 10, "x" * 10),
    ],
)
def test_a_body_is_text_when_printable_else_summarised_by_size(body: bytes, shown: str) -> None:
    assert format_body(body, 10) == shown


# --- faults --------------------------------------------------------------------------------------


def test_a_fault_names_requirement_status_place_summary_and_the_octets_around_it() -> None:
    data = b"--b\r\nContent-Type: application/http\r\n\r\nGARBAGE here"
    offset = data.index(b"GARBAGE")
    error = MixbatchError(
        "not a request line",
        requirement="MB-WIRE-14",
        status_hint=400,
        title="Malformed part",
        part_index=0,
        offset=offset,
    )
    out = io.StringIO()
    print_fault(out, error, data)
    lines = out.getvalue().splitlines()
    assert lines[0] == "FAULT MB-WIRE-14 (400 Bad Request): Malformed part"
    assert lines[1] == "  not a request line"
    assert lines[2] == f"  at part 0, byte offset {offset}"
    assert lines[3] == f"  MB-WIRE-14: {requirement_summary('MB-WIRE-14')}"
    before, after = data[offset - CONTEXT_OCTETS : offset], data[offset : offset + CONTEXT_OCTETS]
    assert lines[4] == f"  bytes: {before!r} >>> {after!r}"


def test_fault_offsets_are_counted_from_the_base_of_the_data_shown() -> None:
    error = MixbatchError("bad", requirement="MB-WIRE-4", offset=1003)
    out = io.StringIO()
    print_fault(out, error, b"0123456789", base=1000)
    assert out.getvalue().splitlines()[-1] == "  bytes: b'012' >>> b'3456789'"


def test_a_fault_without_a_place_shows_no_place_and_no_bytes() -> None:
    out = io.StringIO()
    print_fault(out, MixbatchError("bad", requirement="MB-NOT-AN-ID"), b"data")
    assert out.getvalue().splitlines() == [
        "FAULT MB-NOT-AN-ID (400 Bad Request): Malformed batch",
        "  bad",
    ]


def test_a_requirement_summary_comes_from_the_requirement_index() -> None:
    summary = requirement_summary("MB-WIRE-14")
    assert summary is not None
    assert "close delimiter" in summary
    assert requirement_summary("MB-NOT-AN-ID") is None


# --- the two output forms --------------------------------------------------------------------


def _incomplete() -> IncompleteBatch:
    return IncompleteBatch(
        "the content ended", requirement="MB-WIRE-14", parts_complete=1, offset=42
    )


def test_the_text_form_marks_an_incomplete_response_before_its_fault() -> None:
    out = io.StringIO()
    HumanOutput(out, 100).fault(_incomplete())
    lines = out.getvalue().splitlines()
    assert lines[0] == "INCOMPLETE: the response ended without the close delimiter"
    assert lines[1].startswith("FAULT MB-WIRE-14 (400 Bad Request): Incomplete batch")


def test_the_text_form_shows_another_error_by_its_message() -> None:
    out = io.StringIO()
    HumanOutput(out, 100).fault(ValueError("unknown content coding 'br'"))
    assert out.getvalue() == "FAULT: unknown content coding 'br'\n"


def test_the_text_form_shows_head_part_and_trailers() -> None:
    out = io.StringIO()
    output = HumanOutput(out, 100)
    output.head(200, "OK", [("Content-Type", "multipart/mixed; boundary=b")])
    output.part(PartView(0, None, "skipped", None, [], b""))
    output.end([("Batch-Summary", "ok=0, failed=0, skipped=1")], 1)
    assert out.getvalue().splitlines() == [
        "HTTP/1.1 200 OK",
        "Content-Type: multipart/mixed; boundary=b",
        "",
        "part 0  - [skipped]",
        "",
        "  (no content)",
        "",
        "(trailer) Batch-Summary: ok=0, failed=0, skipped=1",
    ]


def _json_lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_json_form_writes_one_object_per_line_in_order() -> None:
    out = io.StringIO()
    output = JsonOutput(out)
    output.head(200, "OK", [("Vary", "Accept")])
    output.part(PartView(0, 500, "rolled-back", "<a>", [("X", "1")], b"caf\xc3\xa9"))
    output.part(PartView(1, None, "skipped", None, [], b"\xff\x00"))
    output.content(b"plain")
    output.end([("Batch-Summary", "ok=0")], 1)
    assert _json_lines(out) == [
        {"kind": "response", "status": 200, "reason": "OK", "headers": [["Vary", "Accept"]]},
        {
            "kind": "part",
            "index": 0,
            "status": 500,
            "outcome": "rolled-back",
            "content_id": "<a>",
            "headers": [["X", "1"]],
            "body": "caf\u00e9",
        },
        {
            "kind": "part",
            "index": 1,
            "status": None,
            "outcome": "skipped",
            "content_id": None,
            "headers": [],
            "body_base64": "/wA=",
        },
        {"kind": "content", "body": "plain"},
        {"kind": "end", "trailers": [["Batch-Summary", "ok=0"]], "exit_status": 1},
    ]


def test_a_json_fault_carries_the_error_s_members_and_whether_the_batch_is_incomplete() -> None:
    out = io.StringIO()
    JsonOutput(out).fault(_incomplete())
    JsonOutput(out).fault(ValueError("truncated gzip"))
    incomplete, other = _json_lines(out)
    assert incomplete == {
        "kind": "fault",
        "requirement": "MB-WIRE-14",
        "incomplete": True,
        "title": "Incomplete batch",
        "detail": "the content ended",
        "status_hint": 400,
        "part_index": 1,  # the first part that did not arrive whole
        "offset": 42,
    }
    assert other == {
        "kind": "fault",
        "requirement": None,
        "incomplete": False,
        "detail": "truncated gzip",
    }


# --- the exit status table -------------------------------------------------------------------


def test_the_exit_status_table_is_sorted_and_wrapped_under_its_meaning() -> None:
    text = exit_status_epilog({3: "refused", 0: "answered " + "and more " * 20})
    lines = text.splitlines()
    assert lines[0] == "exit status:"
    assert lines[1].startswith("  0    answered and more")
    assert all(len(line) <= 79 for line in lines)
    continued = [line for line in lines[2:] if not line.startswith("  3")]
    assert continued
    assert all(line.startswith(" " * 7) and line[7] != " " for line in continued)
    assert lines[-1] == "  3    refused"
