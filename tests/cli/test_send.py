"""``mixbatch send``: building the batch, printing parts, exit statuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from mixbatch.cli import main
from tests.server._client import RunningServer

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"


def test_send_pairs_prints_each_part(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["send", cli_server.url + "/batch", "GET", "/books/1", "GET", "/books/99"])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("HTTP/1.1 200 OK")
    assert "part 0  200 OK  </books/1>" in out
    assert "part 1  404 Not Found  </books/99>" in out
    assert "Mythical Man-Month" in out
    assert "(trailer) Batch-Summary: ok=1, failed=1, skipped=0" in out


def test_send_summarises_binary_bodies(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["send", cli_server.url + "/batch", "GET", "random/64?seed=1"]) == 0
    assert "(64 octets of binary content)" in capsys.readouterr().out


def test_send_stop_policy_shows_skipped_parts(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["send", "--on-error", "stop", cli_server.url + "/batch"]
    assert main([*argv, "GET", "books/99", "GET", "books/1"]) == 0
    out = capsys.readouterr().out
    assert "Preference-Applied: batch-on-error=stop" in out
    assert "part 1  - [skipped]  <books/1>" in out


def test_send_file_replays_bytes_and_reports_refusal(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = EXAMPLES / "bare-lf-in-part-header.request.http"
    boundary = vector.read_bytes().split(b"\r\n", 1)[0][2:].decode()
    argv = ["send", cli_server.url + "/batch", "--file", str(vector), "--boundary", boundary]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert out.startswith("HTTP/1.1 400 Bad Request")
    assert '"requirement":"MB-WIRE-8"' in out


def test_send_raw_writes_response_octets(
    cli_server: RunningServer, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["send", "--raw", cli_server.url + "/batch", "GET", "/books/2"]) == 0
    out = capsysbinary.readouterr().out
    assert out.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"Transfer-Encoding: chunked\r\n" in out
    assert b"Content-Id: </books/2>\r\n" in out


def test_send_xml_accept_prints_document(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["send", "--accept", "application/xml", cli_server.url + "/batch", "GET", "books/1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "HTTP/1.1 207 Multi-Status" in out
    assert "<D:multistatus" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["GET"],
        [],
        ["G ET", "/x"],
        ["--file", __file__],
    ],
)
def test_send_usage_errors_exit_2(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(["send", cli_server.url + "/batch", *argv]) == 2
    assert "mixbatch send:" in capsys.readouterr().err


def test_send_to_unreachable_server_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["send", "--timeout", "5", f"http://127.0.0.1:{port}/batch", "GET", "/"]) == 1
