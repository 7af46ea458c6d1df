"""What a new user meets first: URL forms, selection, safe discovery, help, timeouts, reports."""

from __future__ import annotations

import contextlib
import io
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from mixbatch_conformance.cli import (
    EXIT_CONFORMANT,
    EXIT_HARNESS,
    EXIT_NONCONFORMANT,
    EXIT_USAGE,
    main,
)
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge, Verdict
from mixbatch_conformance.core.registry import Check, State
from mixbatch_conformance.core.requirements import load_index
from mixbatch_conformance.core.target import Target, reference_target
from mixbatch_conformance.run.discover import SAFE_METHODS, draft_for
from mixbatch_conformance.run.display import print_summary
from mixbatch_conformance.run.replay import describe
from mixbatch_conformance.run.report import _result_doc
from mixbatch_conformance.run.runner import CheckResult, requirement_verdict
from mixbatch_conformance.run.selection import SelectionError, plan
from mixbatch_conformance.transport.embedded import embedded_server
from mixbatch_conformance.transport.urls import UsageError, parse_target_url
from tests.conformance import _outside


@pytest.mark.parametrize(
    ("given", "base", "endpoint"),
    [
        ("127.0.0.1:8080", "http://127.0.0.1:8080", None),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080", None),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080", None),
        ("https://api.example.test", "https://api.example.test", None),
        ("https://api.example.test:8443/v1/batch", "https://api.example.test:8443", "/v1/batch"),
        ("http://host:80/batch", "http://host", "/batch"),
        ("localhost", "http://localhost", None),
    ],
)
def test_target_url_forms_are_read(given: str, base: str, endpoint: str | None) -> None:
    url = parse_target_url(given)
    assert (url.base_url, url.endpoint) == (base, endpoint)


def test_an_ipv6_target_is_written_in_brackets_in_every_uri_and_host_field() -> None:
    ctx = Context(reference_target("http://[::1]:8080"))
    assert (ctx.host, ctx.authority) == ("[::1]", "[::1]:8080")
    assert ctx.ref("/ok", "absolute-uri") == "http://[::1]:8080/ok"


@pytest.mark.skipif(not socket.has_ipv6, reason="the machine has no IPv6")
def test_an_ipv6_target_is_tested_as_an_ipv4_one(capsys: pytest.CaptureFixture[str]) -> None:
    command = [sys.executable, "-m", "mixbatch", "serve", "--host", "::1", "--port", "0"]
    try:
        server = embedded_server(command)
        url = server.__enter__()
    except Exception as exc:  # an IPv6 loopback the kernel does not offer
        pytest.skip(f"no server on [::1]: {exc}")
    try:
        assert url.startswith("http://[::1]:")
        only = ["--only", "MB-SUB-2", "MB-STATUS-1", "MB-WIRE-2"]
        argv = ["--target", url, "--tier", "smoke", "--no-progress", *only]
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == EXIT_CONFORMANT, (out + err)[-3000:]
        assert " 0 failed" in out
        assert " 0 passed" not in out
    finally:
        server.__exit__(None, None, None)


@pytest.mark.parametrize(
    "given", ["ftp://host", "127.0.0.1", "http://", "http://h:99999", "http://h/b?q=1", ""]
)
def test_bad_target_urls_are_usage_errors(given: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError):
        parse_target_url(given)
    assert main(["--target", given, "--no-progress"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("mixbatch conformance: error: --target")


@pytest.mark.parametrize(
    ("word", "expect"),
    [
        ("MB-WIRE-3", "MB-WIRE-3"),
        ("MB-WIRE", "MB-WIRE-"),
        ("mb-wire-", "MB-WIRE-"),
        ("section:3.1", "MB-WIRE-"),
        ("§3.1", "MB-WIRE-"),
    ],
)
def test_only_selects_by_requirement_prefix_and_section(word: str, expect: str) -> None:
    checks, _ = plan("smoke", [word])
    assert checks
    assert all(any(r.startswith(expect) for r in c.requirements) for c in checks)


def test_only_selecting_nothing_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SelectionError, match="nonexistent-check"):
        plan("smoke", ["nonexistent-check"])
    assert main(["--only", "nonexistent-check", "--list"]) == EXIT_USAGE
    assert "selects no check" in capsys.readouterr().err


def test_skip_leaves_out_what_its_words_select(capsys: pytest.CaptureFixture[str]) -> None:
    every, _ = plan("standard", None)
    kept, _ = plan("standard", None, skip=["limit-batch-bytes", "MB-PIPE-1"])
    left_out = {c.id for c in every} - {c.id for c in kept}
    assert "limit-batch-bytes-at-limit" in left_out
    assert all(
        c.id.startswith("limit-batch-bytes") or "MB-PIPE-1" in c.requirements
        for c in every
        if c.id in left_out
    )
    assert not any(
        c.id.startswith("limit-batch-bytes") or "MB-PIPE-1" in c.requirements for c in kept
    )
    with pytest.raises(SelectionError, match="--skip nonexistent-check"):
        plan("smoke", None, skip=["nonexistent-check"])
    assert main(["--skip", "nonexistent-check", "--list"]) == EXIT_USAGE
    assert "selects no check" in capsys.readouterr().err


def test_read_only_leaves_out_the_checks_that_write() -> None:
    every, _ = plan("standard", None)
    kept, skipped = plan("standard", None, writes=False)
    assert skipped == len(every) - len(kept) > 0
    assert all(c.state is State.READ_ONLY for c in kept)


def test_help_names_every_command_and_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == EXIT_CONFORMANT
    out = capsys.readouterr().out
    for word in ("discover", "replay", "--via", "--measure", "--timeout", "--insecure"):
        assert word in out
    for word in ("--ca-file", "--read-only", "exit status", "could not test"):
        assert word in out
    assert "--via --via" not in out
    for sub in (["discover", "--help"], ["replay", "--help"]):
        assert main(sub) == EXIT_CONFORMANT
        assert "--timeout" in capsys.readouterr().out


@contextlib.contextmanager
def _recording() -> Iterator[tuple[str, list[bytes]]]:
    """A server that answers everything 200 (Allow: POST) and records each request line."""
    lines: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def loop() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                data = conn.recv(65536)
                lines.append(data.split(b"\r\n", 1)[0])
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nAllow: GET, POST, PUT, DELETE\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                )

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}", lines
    finally:
        stop.set()
        thread.join(2)
        server.close()


def test_discover_sends_only_safe_methods_and_declares_no_sandbox(reference_url: str) -> None:
    with _recording() as (url, lines):
        draft_for(url)
    assert lines
    assert {line.split(b" ")[0].decode() for line in lines} <= set(SAFE_METHODS)
    draft = draft_for(reference_url)
    assert "sandbox" not in draft.description
    assert "sandbox_collection" not in draft.description["resources"]
    assert any('"sandbox": {"collection": "/books"' in note for note in draft.notes)
    assert {ex.request.split(b" ")[0].decode() for ex in draft.exchanges} <= set(SAFE_METHODS)


def test_discover_without_a_batch_endpoint_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _outside.http_server(tmp_path) as url:
        assert main(["discover", "--target", url]) == EXIT_HARNESS
    assert "OPTIONS /batch answered 501" in capsys.readouterr().err


def test_a_target_that_falls_silent_stops_the_run(
    tmp_path: Path, reference: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    with _outside.falls_silent(reference.base_url, answered=1) as url:
        doc = describe(reference) | {"base_url": url}
        config = tmp_path / "target.json"
        config.write_text(json.dumps(doc), encoding="utf-8")
        code = main(
            [
                *("--config", str(config), "--timeout", "1", "--no-progress", "--quiet"),
                *("--replays", "0", "--report", str(tmp_path / "report")),
            ]
        )
    assert code == EXIT_HARNESS
    assert "run stopped: the target stopped answering (3 checks" in capsys.readouterr().err
    results = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    verdicts = [r["verdict"] for r in results["results"]]
    assert verdicts.count("TIMEOUT") == 3
    assert sum(r["message"].startswith("not run:") for r in results["results"]) > 100


def _smoke_check(name: str, requirements: tuple[str, ...], text: str, profile: str) -> Check:
    """A smoke-tier server check that sends nothing, for a report to be written about."""
    return Check(
        name,
        requirements,
        profile,
        "smoke",
        text,
        lambda ctx, judge: None,
        state=State.READ_ONLY,
        roles=("server",),
    )


def _result(check: Check, verdict: Verdict, broken: dict[str, bool]) -> CheckResult:
    judge = Judge(check.requirements[0])
    for rid, ok in broken.items():
        judge.expect_true(f"about {rid}", ok, "seen", "wanted", rid)
    return CheckResult(check, verdict, "message", judge, 0.0)


def test_a_should_is_graded_by_its_own_expectations() -> None:
    index = load_index()
    check = _smoke_check("two-keywords", ("MB-WIRE-4", "MB-WIRE-5"), "A MUST and a SHOULD.", "core")
    must_only = _result(check, Verdict.FAIL, {"MB-WIRE-4": False, "MB-WIRE-5": True})
    assert requirement_verdict(must_only, "MB-WIRE-4", index) is Verdict.FAIL
    assert requirement_verdict(must_only, "MB-WIRE-5", index) is Verdict.PASS
    both = _result(check, Verdict.FAIL, {"MB-WIRE-4": False, "MB-WIRE-5": False})
    assert requirement_verdict(both, "MB-WIRE-5", index) is Verdict.WARN
    out = io.StringIO()
    print_summary([must_only], index, Console(file=out, width=60, force_terminal=False))
    row = next(line for line in out.getvalue().splitlines() if "MB-WIRE-5" in line)
    assert "FAIL" not in row


def test_piped_output_does_not_wrap_command_lines() -> None:
    index = load_index()
    check = _smoke_check("long-replay", ("MB-WIRE-4",), "A failing check.", "core")
    result = _result(check, Verdict.FAIL, {"MB-WIRE-4": False})
    replay = "mixbatch conformance replay " + "/very/long/path" * 12 + " --target http://h:1"
    result.artifacts = {"replay": replay, "curl": "curl -sS " + "-H 'X: [y]' " * 12}
    out = io.StringIO()
    print_summary([result], index, Console(file=out, width=80, force_terminal=False))
    text = out.getvalue()
    assert f"    replay: {replay}\n" in text
    assert "curl -sS " + "-H 'X: [y]' " * 11 in text


def _judged_result(check_id: str, requirement: str, verdict: Verdict, judge: Judge) -> CheckResult:
    """A result of a check that did nothing, with `judge`'s expectations."""
    check = _smoke_check(check_id, (requirement,), "A check.", "core")
    return CheckResult(check, verdict, "message", judge, 0.0)


def _warned(check_id: str, what: str, actual: str = "absent") -> CheckResult:
    judge = Judge("MB-WIRE-4")
    judge.expect_true(what, False, actual, "Vary: Accept", "MB-MULTI-10")
    return _judged_result(check_id, "MB-WIRE-4", Verdict.WARN, judge)


def test_a_departure_many_checks_record_is_listed_once() -> None:
    index = load_index()
    many = [_warned(f"check-{i}", "Vary of the batch response", f"v{i % 2}") for i in range(12)]
    few = [_warned(f"other-{i}", "Vary of a lone answer") for i in range(2)]
    out = io.StringIO()
    print_summary([*many, *few], index, Console(file=out, width=100, force_terminal=False))
    text = out.getvalue()
    # The repeated departure's requirement text, accepted and actual outcomes appear once, with
    # the checks that recorded it; a departure only two checks record is listed under each.
    assert text.count("REPEATED in 12 checks: Vary of the batch response") == 1
    assert text.count("as in 12 checks, listed once below") == 12
    assert "2 different actual values" in text
    assert "in: check-0 check-1 check-2 check-3 check-4 check-5 check-6 check-7 and 4 more" in text
    assert text.count("accepted: Vary: Accept") == 1 + 2
    assert "REPEATED in 2" not in text


def _failed_with(check_id: str, actual: str) -> CheckResult:
    judge = Judge("MB-STATUS-1")
    judge.expect(f"{check_id}: top-level status", int(actual), {200}, "MB-STATUS-1")
    return _judged_result(check_id, "MB-STATUS-1", Verdict.FAIL, judge)


def test_many_checks_failing_on_a_503_point_at_the_budget_and_where_it_began() -> None:
    index = load_index()
    out = io.StringIO()
    busy = [_failed_with(f"busy-{i}", "503") for i in range(5)]
    print_summary([_failed_with("first-400", "400"), *busy], index, Console(file=out, width=100))
    text = out.getvalue()
    assert "HINT: 5 checks failed on a 503" in text
    assert "the first check that met it was busy-0" in text
    assert "--only busy-0 busy-1 busy-2" in text
    out = io.StringIO()
    print_summary([_failed_with(f"n-{i}", "400") for i in range(5)], index, Console(file=out))
    print_summary(busy[:4], index, Console(file=out))
    assert "HINT" not in out.getvalue()


def test_a_reused_report_folder_holds_only_this_runs_cases(
    tmp_path: Path, reference_url: str
) -> None:
    report = tmp_path / "report"
    stale = report / "cases" / "from-an-earlier-run"
    stale.mkdir(parents=True)
    (stale / "case.json").write_text("{}", encoding="utf-8")
    code = main(
        [
            *("--target", reference_url, "--only", "MB-WIRE-3", "--report", str(report)),
            *("--no-progress", "--quiet"),
        ]
    )
    assert code in (EXIT_CONFORMANT, EXIT_NONCONFORMANT)
    assert not stale.exists()
    html = (report / "report.html").read_text(encoding="utf-8")
    assert "href='https://mixbatch.dev/spec/#MB-WIRE-3'" in html


def test_garbage_in_a_check_is_a_fail_with_the_octets_saved(
    tmp_path: Path, reference: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    with _outside.falls_silent(reference.base_url, answered=1, then=_outside.GARBAGE) as url:
        config = tmp_path / "target.json"
        config.write_text(json.dumps(describe(reference) | {"base_url": url}), encoding="utf-8")
        report = tmp_path / "report"
        code = main(
            [
                *("--config", str(config), "--only", "reject-bare-lf-after-delimiter"),
                *("--no-progress", "--quiet", "--replays", "0", "--report", str(report)),
            ]
        )
    assert code == EXIT_NONCONFORMANT
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    [result] = doc["results"]
    assert result["verdict"] == "FAIL"
    assert "MB-STATUS-1" in result["message"]
    assert (report / result["artifacts"]["response"]).read_bytes() == _outside.GARBAGE


def test_replay_leaves_out_volatile_fields() -> None:
    from mixbatch_conformance.run.replay import same_but_volatile
    from mixbatch_conformance.transport.http import Response

    recorded = b"HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2026 00:00:00 GMT\r\nX: 1\r\n\r\nbody"
    now = b"HTTP/1.1 200 OK\r\nDate: Sun, 22 Nov 2026 12:00:00 GMT\r\nX: 1\r\n\r\nbody"
    resp = Response(200, "OK", (), b"body", now)
    assert same_but_volatile(recorded, resp, ("Date",))
    assert not same_but_volatile(recorded, resp, ())
    changed = Response(200, "OK", (), b"other", now.replace(b"body", b"other"))
    assert not same_but_volatile(recorded, changed, ("Date",))


def test_the_html_report_puts_failures_first_and_groups_a_shared_cause(tmp_path: Path) -> None:
    import datetime as dt

    from mixbatch_conformance.run.report import RunInfo, write_reports

    index = load_index()

    def check(name: str) -> Check:
        return _smoke_check(name, ("MB-STATUS-1",), "A check.", "core")

    passing = _result(check("a-passes"), Verdict.PASS, {"MB-STATUS-1": True})
    failing = [
        _result(check(f"z-fails-{n}"), Verdict.FAIL, {"MB-STATUS-1": False}) for n in range(3)
    ]
    info = RunInfo("http://h:1", "/batch", "smoke", 1, ("core",), dt.datetime.now(dt.UTC), 0.1)
    write_reports(tmp_path, [passing, *failing], info, index, [])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.index("id='z-fails-0'") < html.index("id='a-passes'")
    assert "Root causes" in html
    assert "<b>3 checks</b> broke" in html


def test_artifacts_of_requests_without_a_request_line_first(tmp_path: Path) -> None:
    """A request a check writes with empty lines before its request line, or with no request
    line at all, is saved as sent; the curl command reads past the empty lines, and octets with
    no request line get none."""
    import datetime as dt

    from mixbatch_conformance.run.report import RunInfo, write_reports
    from mixbatch_conformance.transport.http import Exchange

    check = _smoke_check("odd-requests", ("MB-PIPE-4",), "A check.", "core")
    result = _result(check, Verdict.FAIL, {"MB-PIPE-4": False})
    sent = [b"\r\nGET /ok HTTP/1.1\r\nHost: h\r\n\r\n", b"\x00\x01 not a request"]
    for request in sent:
        result.judge.record(Exchange(request, None, "no answer"))
    info = RunInfo("http://h:1", "/batch", "smoke", 1, ("core",), dt.datetime.now(dt.UTC), 0.1)
    write_reports(tmp_path, [result], info, load_index(), [])
    cases = tmp_path / "cases" / "odd-requests"
    assert [(cases / f"request-{n}.http").read_bytes() for n in range(2)] == sent
    assert "curl -sS -i -X GET http://h:1/ok" in (cases / "curl.sh").read_text()


def test_discover_against_a_silent_server_ends_after_one_timeout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _outside.silent_server() as url:
        start = time.monotonic()
        assert main(["discover", "--target", url, "--timeout", "1"]) == EXIT_HARNESS
        assert time.monotonic() - start < 5
    assert "no response within 1 s" in capsys.readouterr().err


def test_a_shared_judgement_names_its_requirement_in_the_report() -> None:
    """A check declaring MB-PROC-6 that breaks the Content-Id echo (MB-RESP-3) is reported
    under MB-RESP-3 too, and its JSON result names MB-RESP-3 among the broken requirements."""
    index = load_index()
    check = _smoke_check(
        "stop-policy", ("MB-PROC-6",), "Stop after the first failing part.", "error-policy"
    )
    result = _result(check, Verdict.FAIL, {"MB-PROC-6": True, "MB-RESP-3": False})
    assert result.judged_requirements == ("MB-PROC-6", "MB-RESP-3")
    assert result.broken_requirements == ("MB-RESP-3",)
    assert requirement_verdict(result, "MB-RESP-3", index) is Verdict.FAIL
    assert _result_doc(result, index)["broken_requirements"] == ["MB-RESP-3"]
    clean = _result(check, Verdict.PASS, {"MB-PROC-6": True})
    assert "broken_requirements" not in _result_doc(clean, index)
    out = io.StringIO()
    print_summary([result], index, Console(file=out, width=80, force_terminal=False))
    row = next(line for line in out.getvalue().splitlines() if "MB-RESP-3" in line)
    assert "stop-policy" in row
