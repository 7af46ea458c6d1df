"""The suite pointed at servers that are not the reference: one diagnosis, the documented exit
status, the octets saved, and well within 30 s, whatever the server does."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mixbatch_conformance.cli import EXIT_CONFORMANT, EXIT_HARNESS, EXIT_NONCONFORMANT, main
from tests.conformance import _outside

#: Every run against a misbehaving server ends well inside this.
BOUND_S = 30.0


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], float]:
    start = time.monotonic()
    code = main([*argv, "--no-progress", "--quiet", "--replays", "0"])
    took = time.monotonic() - start
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    return code, err, took


def _diagnosis(err: list[str]) -> str:
    """The one line that says why the run stopped."""
    lines = [ln for ln in err if ln.startswith("mixbatch conformance: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text("<p>hello</p>", encoding="utf-8")
    return root


@pytest.mark.slow
def test_python_http_server_is_no_batch_endpoint(
    tmp_path: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    with _outside.http_server(site) as url:
        code, err, took = _run(["--target", url, "--report", str(report)], capsys)
    assert code == EXIT_HARNESS
    line = _diagnosis(err)
    assert all(word in line for word in ("could not test", "501", "batch_endpoint"))
    case = report / "cases" / "preflight"
    assert (case / "request-0.http").read_bytes().startswith(b"POST /batch HTTP/1.1\r\n")
    assert (case / "response-0.http").read_bytes().startswith(b"HTTP/1.0 501")
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert [r["check_id"] for r in doc["results"]] == ["preflight"]
    assert took < BOUND_S


@pytest.mark.slow
def test_starlette_app_without_batching_is_no_batch_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    with _outside.starlette_without_batching() as url:
        code, err, took = _run(["--target", url, "--report", str(report)], capsys)
    assert code == EXIT_HARNESS
    line = _diagnosis(err)
    assert all(word in line for word in ("answered 404", "is batch_endpoint ('/batch') right"))
    assert (
        (report / "cases" / "preflight" / "response-0.http")
        .read_bytes()
        .startswith(b"HTTP/1.1 404")
    )
    assert took < BOUND_S


def test_a_server_that_never_answers_ends_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    with _outside.silent_server() as url:
        code, err, took = _run(["--target", url, "--report", str(report), "--timeout", "1"], capsys)
    assert code == EXIT_HARNESS
    assert "no response within 1 s" in _diagnosis(err)
    assert (report / "cases" / "preflight" / "request-0.http").is_file()
    assert took < 10


def test_garbage_is_a_fail_with_the_octets_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    with _outside.garbage_server() as url:
        code, err, took = _run(["--target", url, "--report", str(report)], capsys)
    assert code == EXIT_NONCONFORMANT
    assert "non-conformant" in _diagnosis(err)
    assert (report / "cases" / "preflight" / "response-0.http").read_bytes() == _outside.GARBAGE
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    [result] = doc["results"]
    assert result["verdict"] == "FAIL"
    assert result["requirements"] == ["MB-STATUS-1"]
    assert result["artifacts"]["response"] == "cases/preflight/response-0.http"
    html = (report / "report.html").read_text(encoding="utf-8")
    assert "garbage that is not HTTP" in html
    assert took < BOUND_S


@pytest.fixture
def tls_reference(tmp_path: Path, reference_url: str) -> Iterator[tuple[str, Path]]:
    cert, key = _outside.self_signed(tmp_path)
    with _outside.tls_front(reference_url, cert, key) as url:
        yield url, cert


def test_self_signed_https_is_refused_with_advice(
    tmp_path: Path, tls_reference: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = tls_reference
    report = tmp_path / "report"
    code, err, took = _run(["--target", url, "--report", str(report)], capsys)
    assert code == EXIT_HARNESS
    line = _diagnosis(err)
    assert all(word in line for word in ("certificate", "--ca-file", "--insecure"))
    assert (report / "cases" / "preflight" / "request-0.http").is_file()
    assert took < BOUND_S


@pytest.mark.slow
@pytest.mark.parametrize("trust", ["--ca-file", "--insecure"])
def test_https_target_is_tested_when_trusted(
    trust: str, tls_reference: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, cert = tls_reference
    extra = [trust, str(cert)] if trust == "--ca-file" else [trust]
    # The front ends TLS for an http server, so checks that name the https origin in an
    # absolute URI would be refused as off-origin (MB-SUB-2): framing checks only.
    code, err, took = _run(
        ["--target", url + "/batch", *extra, "--only", "MB-WIRE-3", "MB-WIRE-8", "MB-WIRE-13"],
        capsys,
    )
    assert code == EXIT_CONFORMANT, err
    assert took < BOUND_S


def _problem(status: int, reason: str, doc: dict[str, object]) -> bytes:
    body = json.dumps(doc).encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


def test_a_batch_endpoint_refusing_a_valid_batch_fails_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A problem document naming one of the spec's requirements says the endpoint is a batch
    endpoint: its 400 to the well-formed one-part batch is a FAIL of MB-STATUS-1, and the
    checks still run, since they send other batches."""
    report = tmp_path / "report"
    octets = _problem(400, "Bad Request", {"title": "Bad boundary", "requirement": "MB-WIRE-4"})
    with _outside.answering(octets) as url:
        argv = ["--target", url, "--report", str(report), "--only", "reject-missing-close"]
        code, _, took = _run(argv, capsys)
    assert code == EXIT_NONCONFORMANT
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    first, *rest = doc["results"]
    assert first["check_id"] == "preflight"
    assert first["verdict"] == "FAIL"
    assert first["requirements"] == ["MB-STATUS-1"]
    assert "MB-WIRE-4" in first["message"]
    assert rest, "the checks did not run after the preflight's FAIL"
    assert took < BOUND_S


@pytest.mark.parametrize(
    ("status", "reason", "doc"),
    [
        (503, "Service Unavailable", {"title": "Busy", "requirement": "MB-LIMIT-6"}),
        (400, "Bad Request", {"title": "Bad request"}),
        (400, "Bad Request", {"title": "Bad request", "requirement": "RFC 9112"}),
    ],
)
def test_other_refusals_of_the_preflight_stop_the_run(
    status: int, reason: str, doc: dict[str, object], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A busy batch endpoint, or a refusal that names none of the spec's requirements, says
    nothing about conformance: the run stops, and cannot test."""
    report = tmp_path / "report"
    with _outside.answering(_problem(status, reason, doc)) as url:
        code, err, _ = _run(["--target", url, "--report", str(report)], capsys)
    assert code == EXIT_HARNESS
    assert "could not test" in _diagnosis(err)
