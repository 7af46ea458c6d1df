"""Part results and their summary: the counts the Batch-Summary trailer and the JSON ``summary``
carry (MB-STATUS-8), and the default multipart renderer, read back by the codec's parser."""

from __future__ import annotations

import pytest

from mixbatch.codec import (
    BatchParser,
    PartData,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)
from mixbatch.server._results import MultipartRenderer, PartResult, Summary


def _result(status: int | None, outcome: str | None = None, index: int = 0) -> PartResult:
    return PartResult(index, "/r", "r", status, outcome)


@pytest.mark.parametrize(
    ("status", "outcome", "member"),
    [
        (200, None, "ok"),
        (304, None, "ok"),
        (399, None, "ok"),
        (400, None, "failed"),
        (500, None, "failed"),
        (None, "skipped", "skipped"),
        (201, "rolled-back", "rolled_back"),
        (409, "rolled-back", "rolled_back"),
    ],
)
def test_summary_counts_each_result_under_its_kind(
    status: int | None, outcome: str | None, member: str
) -> None:
    summary = Summary()
    summary.add(_result(status, outcome))
    counts = summary.as_document()
    assert counts[member] == 1
    assert sum(counts.values()) == 1
    assert summary.aborted is False


def test_summary_marks_an_abort_without_counting_it_as_a_part() -> None:
    summary = Summary()
    summary.add(_result(200))
    summary.add(PartResult(1, None, None, None, "aborted"))
    assert summary.aborted is True
    assert summary.as_document() == {"ok": 1, "failed": 0, "skipped": 0, "rolled_back": 0}


def test_summary_field_lists_ok_failed_and_skipped_always() -> None:
    summary = Summary()
    for result in (_result(200), _result(200), _result(404), _result(None, "skipped")):
        summary.add(result)
    # MB-STATUS-8: "for example `ok=3, failed=1, skipped=0`".
    assert summary.as_field() == "ok=2, failed=1, skipped=1"


def test_summary_field_adds_rolled_back_and_aborted_only_when_present() -> None:
    summary = Summary()
    summary.add(_result(201, "rolled-back"))
    summary.add(_result(409))
    summary.add(PartResult(2, None, None, None, "aborted"))
    assert summary.as_field() == "ok=0, failed=1, skipped=0, rolled-back=1, aborted=1"


def test_empty_summary_counts_nothing() -> None:
    assert Summary().as_field() == "ok=0, failed=0, skipped=0"


def _parse(content_type: str, content: bytes) -> list[tuple[ResponsePartStart, bytes]]:
    parser = BatchParser(parse_batch_content_type(content_type), Role.RESPONSE)
    parts: list[tuple[ResponsePartStart, bytes]] = []
    for event in parser.feed(content) + parser.feed_eof():
        if isinstance(event, ResponsePartStart):
            parts.append((event, b""))
        elif isinstance(event, PartData):
            start, body = parts[-1]
            parts[-1] = (start, body + bytes(event.data))
    return parts


def test_multipart_renderer_writes_each_result_as_a_response_part_in_order() -> None:
    renderer = MultipartRenderer()
    results = [
        PartResult(0, "/a", "a", 201, None, [("Location", "/a/1")], b""),
        PartResult(1, "/b", "b", 404, None, [("Content-Type", "text/plain")], b"gone"),
        PartResult(2, "/c", "c", None, "skipped"),
    ]
    summary = Summary()
    content = renderer.start()
    for result in results:
        summary.add(result)
        content += renderer.part(result)
    content += renderer.end(summary)

    assert renderer.status == 200
    assert renderer.content_type.startswith("multipart/mixed; boundary=")
    parts = _parse(renderer.content_type, content)
    assert [(p.status, p.outcome, p.content_id) for p, _ in parts] == [
        (201, None, "a"),
        (404, None, "b"),
        (None, "skipped", "c"),
    ]
    assert [body for _, body in parts] == [b"", b"gone", b""]
    assert ("Location", "/a/1") in list(parts[0][0].fields)
