"""``mixbatch send``: the command-line grammar, the output forms, content codings, exit statuses."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mixbatch.cli import EXIT_BROKEN_PIPE, main
from mixbatch.cli._send import EXIT_STATUSES
from mixbatch.codec import BatchWriter
from tests.server._client import RunningServer

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
ROOT = Path(__file__).resolve().parents[2]


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def _parts(out: str) -> list[dict[str, Any]]:
    return [d for d in _lines(out) if d["kind"] == "part"]


# --- the batch the command line describes ------------------------------------------------------


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


def test_part_header_and_data_give_a_post_its_content_type_and_body(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "send",
        cli_server.url + "/batch",
        "GET",
        "/books/1",
        "POST",
        "/books",
        "-H",
        "Content-Type: application/json",
        "--data",
        '{"title": "Dune", "author": "Herbert"}',
        "--json",
    ]
    assert main(argv) == 0
    parts = _parts(capsys.readouterr().out)
    assert [p["status"] for p in parts] == [200, 201]
    assert json.loads(parts[1]["body"])["title"] == "Dune"


def test_part_options_apply_to_the_sub_request_before_them(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    payload = tmp_path / "payload.bin"
    payload.write_bytes(b"line one\r\nline two\n")
    argv = [
        "send",
        cli_server.url + "/batch",
        "PUT",
        "/echo",
        "-HX-First: 1",
        "--data-binary",
        f"@{payload}",
        "PUT",
        "/echo",
        "--header=X-Second: 2",
        "--data-raw",
        "@not-a-file",
        "--json",
    ]
    assert main(argv) == 0
    first, second = (json.loads(p["body"]) for p in _parts(capsys.readouterr().out))
    assert first["headers"] == [["X-First", "1"]]
    assert first["body"] == "line one\r\nline two\n"  # unchanged, unlike curl -d
    assert second["headers"] == [["X-Second", "2"]]
    assert second["body"] == "@not-a-file"


def test_global_options_are_accepted_in_any_position(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = cli_server.url + "/batch"
    argv = ["send", url, "GET", "books/99", "--on-error", "stop", "GET", "books/1", "--json"]
    assert main(argv) == 1
    lines = _lines(capsys.readouterr().out)
    assert ["Preference-Applied", "batch-on-error=stop"] in lines[0]["headers"]
    assert _parts_of(lines)[1]["outcome"] == "skipped"
    assert main(["send", "--json", url, "GET", "/books/2"]) == 0
    assert _parts(capsys.readouterr().out)[0]["status"] == 200


def test_atomic_and_references_send_the_batch_modes(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = cli_server.url + "/batch"
    book = '{"title": "Dune", "author": "Frank Herbert"}'
    argv = ["send", "--json", "--atomic", "--references", url, "POST", "books"]
    argv += ["-H", "Content-Type: application/json", "--data", book, "GET", "$(0)"]
    argv += ["GET", "books/999999"]
    assert main(argv) == 1  # a part failed
    parts = _parts_of(_lines(capsys.readouterr().out))
    # MB-PROC-8: the failing part ends the batch; the parts before it are rolled back.
    assert [(p["status"], p["outcome"]) for p in parts] == [
        (201, "rolled-back"),
        (200, "rolled-back"),
        (404, None),
    ]


def _parts_of(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in lines if d["kind"] == "part"]


def test_a_body_without_content_type_is_sent_with_a_note(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["send", cli_server.url + "/batch", "POST", "/echo", "-d", "x"]
    assert main(argv) == 0
    assert "has content but no Content-Type" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["GET"], "METHOD TARGET pairs"),
        ([], "METHOD TARGET pairs"),
        (["G ET", "/x"], "is not a method"),
        (["-H", "X-A: 1", "GET", "/x"], "before any METHOD TARGET"),
        (["GET", "-H", "X-A: 1", "/x"], "between a METHOD and its TARGET"),
        (["POST", "/x", "-d", "a", "--data", "b"], "more than one --data"),
        (["POST", "/x", "-d", "@/nonexistent/payload"], "cannot read"),
        (["GET", "/x", "-H", "no colon"], "use 'Name: value'"),
        (["GET", "/x", "-H", "Content-Length: 3"], "cannot send GET /x"),
        (["--boundary", "b", "GET", "/x"], "--boundary goes with --file"),
        (["--file", __file__, "GET", "/x"], "not both"),
    ],
)
def test_send_usage_errors_exit_2(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["send", cli_server.url + "/batch", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mixbatch send:")
    assert message in err


@pytest.mark.parametrize(
    "argv", [["GET", "/x", "-H"], ["GET", "/x", "--json", "--raw"], ["GET", "/x", "--bogus"]]
)
def test_send_argument_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["send", "http://127.0.0.1:9/batch", *argv])
    assert caught.value.code == 2
    assert "usage: mixbatch send" in capsys.readouterr().err


def test_send_file_infers_the_boundary_from_the_first_delimiter(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = EXAMPLES / "single-get.request.http"
    assert main(["send", cli_server.url + "/batch", "--file", str(vector)]) == 0
    assert "part 0  200 OK" in capsys.readouterr().out


def test_send_file_replays_bytes_and_reports_refusal(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = EXAMPLES / "bare-lf-in-part-header.request.http"
    boundary = vector.read_bytes().split(b"\r\n", 1)[0][2:].decode()
    argv = ["send", cli_server.url + "/batch", "--file", str(vector), "--boundary", boundary]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert out.startswith("HTTP/1.1 400 Bad Request")
    assert '"requirement":"MB-WIRE-8"' in out


# --- output forms -------------------------------------------------------------------------------


def test_json_output_is_one_object_per_line_with_text_or_base64_bodies(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["send", cli_server.url + "/batch", "GET", "/books/1", "GET", "random/16?seed=1"]
    assert main([*argv, "--json"]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [d["kind"] for d in lines] == ["response", "part", "part", "end"]
    assert lines[0]["status"] == 200
    text, binary = lines[1], lines[2]
    assert (text["index"], text["status"], text["content_id"]) == (0, 200, "/books/1")
    assert "Mythical Man-Month" in text["body"]
    assert "body_base64" not in text
    assert ["Content-Type", "application/octet-stream"] in binary["headers"]
    assert len(binary["body_base64"]) == 24
    assert "body" not in binary
    assert lines[-1] == {
        "kind": "end",
        "trailers": [["Batch-Summary", "ok=2, failed=0, skipped=0"]],
        "exit_status": 0,
    }


def test_send_summarises_binary_bodies(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["send", cli_server.url + "/batch", "GET", "random/64?seed=1"]) == 0
    assert "(64 octets of binary content)" in capsys.readouterr().out


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


# --- canned responses: content codings, truncation, part counts -------------------------------


@contextmanager
def canned_server(response: bytes) -> Iterator[tuple[str, list[bytes]]]:
    """A loopback server that reads one request and answers it with ``response``."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)
    received: list[bytes] = []

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            while len(body) < length:
                body += conn.recv(65536)
            received.append(head)
            conn.sendall(response)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/batch", received
    finally:
        listener.close()
        thread.join(5)


def _multipart(parts: int, *, close: bool = True) -> tuple[str, bytes]:
    writer = BatchWriter("canned-boundary-0123456789")
    chunks = [
        writer.response_part(200, f"/p/{i}", [("Content-Type", "text/plain")], f"body {i}".encode())
        for i in range(parts)
    ]
    if close:
        chunks.append(writer.close())
    return writer.content_type, b"".join(chunks)


def _http(content_type: str, content: bytes, *extra: str) -> bytes:
    head = [
        "HTTP/1.1 200 OK",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(content)}",
        *extra,
        "Connection: close",
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + content


def test_gzip_coded_response_is_decoded_before_parsing(capsys: pytest.CaptureFixture[str]) -> None:
    content_type, content = _multipart(2)
    response = _http(content_type, gzip.compress(content), "Content-Encoding: gzip")
    with canned_server(response) as (url, received):
        assert main(["send", url, "GET", "/p/0", "GET", "/p/1", "--json"]) == 0
    assert [p["body"] for p in _parts(capsys.readouterr().out)] == ["body 0", "body 1"]
    assert b"Accept-Encoding: gzip, deflate" in received[0]


def test_unknown_content_coding_is_a_protocol_fault(capsys: pytest.CaptureFixture[str]) -> None:
    content_type, content = _multipart(1)
    with canned_server(_http(content_type, content, "Content-Encoding: br")) as (url, _):
        assert main(["send", url, "GET", "/p/0"]) == 4
    assert "MB-INTER-2" in capsys.readouterr().out


def test_response_without_close_delimiter_exits_4_keeping_whole_parts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    content_type, content = _multipart(2, close=False)
    with canned_server(_http(content_type, content[:-3])) as (url, _):  # part 1 cut short
        assert main(["send", url, "GET", "/p/0", "GET", "/p/1", "--json"]) == 4
    lines = _lines(capsys.readouterr().out)
    assert [p["body"] for p in _parts_of(lines)] == ["body 0"]
    fault = next(d for d in lines if d["kind"] == "fault")
    assert fault["incomplete"] is True
    assert fault["requirement"] == "MB-WIRE-14"
    assert lines[-1]["exit_status"] == 4


@pytest.mark.parametrize(
    ("cut", "parts", "requirement"),
    [(20, ["body 0"], "MB-WIRE-14"), (0, ["body 0", "body 1"], None)],
    ids=["inside-the-multipart", "after-the-close-delimiter"],
)
def test_a_connection_closed_before_content_length_exits_4_keeping_whole_parts(
    capsys: pytest.CaptureFixture[str], cut: int, parts: list[str], requirement: str | None
) -> None:
    content_type, content = _multipart(2)
    promised = f"Content-Length: {len(content) + 50}".encode()
    response = _http(content_type, content[: len(content) - cut])
    response = re.sub(rb"Content-Length: \d+", promised, response, count=1)
    with canned_server(response) as (url, _):
        assert main(["send", url, "GET", "/p/0", "GET", "/p/1", "--json"]) == 4
    lines = _lines(capsys.readouterr().out)
    assert [p["body"] for p in _parts_of(lines)] == parts
    fault = next(d for d in lines if d["kind"] == "fault")
    assert fault["requirement"] == requirement
    if requirement is None:
        assert "cut short" in fault["detail"]


def test_data_from_stdin(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"from\r\nstdin")))
    argv = ["send", cli_server.url + "/batch", "PUT", "/echo", "-d", "@-", "--json"]
    assert main(argv) == 0
    assert json.loads(_parts(capsys.readouterr().out)[0]["body"])["body"] == "from\r\nstdin"


def test_a_part_count_that_does_not_match_exits_4(capsys: pytest.CaptureFixture[str]) -> None:
    content_type, content = _multipart(1)
    with canned_server(_http(content_type, content)) as (url, _):
        assert main(["send", url, "GET", "/p/0", "GET", "/p/1"]) == 4


# --- exit statuses -------------------------------------------------------------------------------


def test_fail_turns_an_error_status_part_into_exit_1(
    cli_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["send", cli_server.url + "/batch", "GET", "/books/99"]
    assert main(argv) == 0
    assert main([*argv, "--fail"]) == 1


def test_send_to_unreachable_server_exits_5(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["send", "--timeout", "5", f"http://127.0.0.1:{port}/batch", "GET", "/"]) == 5
    assert "mixbatch send: http://127.0.0.1" in capsys.readouterr().err


def test_every_exit_status_is_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["send", "--help"])
    out = capsys.readouterr().out
    for status in EXIT_STATUSES:
        assert f"\n  {status:<4} " in out


def test_closed_stdout_exits_quietly_with_the_sigpipe_status(cli_server: RunningServer) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read: the first write fails with EPIPE
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "mixbatch",
                "send",
                cli_server.url + "/batch",
                "GET",
                "/books/1",
            ],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=30,
            env=env,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == EXIT_BROKEN_PIPE
    assert proc.stderr == b""
