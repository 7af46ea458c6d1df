"""``mixbatch inspect``: validating captured batches and explaining faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mixbatch.cli import main
from mixbatch.cli._inspect import read_capture

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
INVALID = sorted(
    p
    for p in EXAMPLES.glob("*.request.json")
    if not json.loads(p.read_text())["valid"]
    and json.loads(p.read_text())["error"]["part_index"] is not None
    and not json.loads(p.read_text()).get("limits")
)


def _boundary(vector: Path) -> str:
    content_type: str = json.loads(vector.read_text())["content_type"]
    return content_type.split("boundary=", 1)[1].strip('"')


def test_valid_request_batch_lists_parts(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "target-resolution.request.http"
    argv = ["inspect", str(path), "--base", "/api/batch", "--authority", "example.test"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "part 1 at byte" in out
    assert "GET <../books/1> -> /books/1" in out
    assert "valid request batch" in out


def test_valid_response_batch_lists_outcomes(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "stop-policy-skipped.response.http"
    assert main(["inspect", str(path), "--role", "response"]) == 0
    assert "[skipped]" in capsys.readouterr().out


@pytest.mark.parametrize("vector", INVALID, ids=lambda p: p.name.removesuffix(".request.json"))
def test_invalid_vector_is_explained_with_requirement_and_offset(
    vector: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(vector.read_text())
    context = document["context"]
    argv = [
        "inspect",
        str(vector.with_suffix(".http")),
        "--boundary",
        _boundary(vector),
        "--base",
        context["target"],
        "--authority",
        context["authority"],
    ]
    assert main(argv) == 1
    out = capsys.readouterr().out
    error = document["error"]
    assert out.startswith(f"FAULT {error['requirement']} ({error['status']} ")
    assert f"part {error['part_index']}" in out
    if error["byte_offset"] is not None:
        assert f"byte offset {error['byte_offset']}" in out


def test_whole_http_message_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = (EXAMPLES / "single-get.request.http").read_bytes()
    boundary = json.loads((EXAMPLES / "single-get.request.json").read_text())["content_type"]
    message = (
        b"POST /batch HTTP/1.1\r\nHost: x\r\nContent-Type: "
        + boundary.encode()
        + b"\r\n\r\n"
        + content
    )
    capture = tmp_path / "capture.http"
    capture.write_bytes(message)
    assert main(["inspect", str(capture)]) == 0
    assert "valid request batch: 1 parts" in capsys.readouterr().out


#: Vectors whose boundary is itself the fault: no parameter, or a delimiter line that is not one.
_BROKEN_BOUNDARY = {"boundary-missing", "boundary-too-long", "boundary-ends-in-space"}
_BROKEN_BOUNDARY |= {"text-after-boundary"}


@pytest.mark.parametrize(
    "vector",
    [
        p
        for p in sorted(EXAMPLES.glob("*.json"))
        if p.name.endswith((".request.json", ".response.json"))
        and p.name.split(".")[0] not in _BROKEN_BOUNDARY
    ],
    ids=lambda p: p.name.removesuffix(".json"),
)
def test_boundary_is_inferred_from_the_first_delimiter_line(vector: Path) -> None:
    content = vector.with_suffix(".http").read_bytes()
    assert read_capture(content) == (content, _boundary(vector))


def test_boundary_override_wins_over_the_inferred_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = EXAMPLES / "single-get.request.json"
    capture = tmp_path / "with-preamble.http"
    capture.write_bytes(b"--not-the-boundary\r\n" + vector.with_suffix(".http").read_bytes())
    assert main(["inspect", str(capture), "--boundary", "not-the-boundary"]) == 1
    capsys.readouterr()
    assert main(["inspect", str(capture), "--boundary", _boundary(vector)]) == 0
    assert "valid request batch: 1 parts" in capsys.readouterr().out


def test_boundary_is_inferred_from_a_leading_content_type_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = EXAMPLES / "single-get.request.json"
    content_type = json.loads(vector.read_text())["content_type"]
    capture = tmp_path / "fields-then-content.http"
    capture.write_bytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + vector.with_suffix(".http").read_bytes()
    )
    assert main(["inspect", str(capture)]) == 0
    assert "valid request batch: 1 parts" in capsys.readouterr().out


def test_a_file_with_no_delimiter_line_asks_for_a_boundary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "plain.txt"
    capture.write_bytes(b"just some text\r\n")
    assert main(["inspect", str(capture)]) == 2
    assert "no boundary given and none found" in capsys.readouterr().err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(tmp_path / "absent")]) == 2
    assert "cannot read" in capsys.readouterr().err
