"""Meta-tests: a check that asserts nothing cannot pass; verdicts follow the keywords."""

from __future__ import annotations

import socket
import threading

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge, Verdict
from mixbatch_conformance.core.registry import BOTH_ROLES, Check, State
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import RunOutcome, run_check, run_checks
from mixbatch_conformance.transport.http import Exchange


def _check(
    fn: object, requirements: tuple[str, ...] = ("MB-WIRE-8",), profile: str = "core"
) -> Check:
    return Check(
        "meta-probe",
        requirements,
        profile,
        "smoke",
        "A probe for the runner.",
        fn,  # type: ignore[arg-type]
        state=State.READ_ONLY,
        roles=BOTH_ROLES,
    )


@pytest.fixture
def offline() -> Context:
    return Context(Target(base_url="http://127.0.0.1:9", profiles=frozenset({"core"})))


def test_a_check_without_expectations_is_a_harness_error(offline: Context) -> None:
    result = run_check(_check(lambda ctx, judge: None), offline)
    assert result.verdict is Verdict.HARNESS_ERROR


def test_a_broken_must_is_a_fail(offline: Context) -> None:
    result = run_check(_check(lambda ctx, judge: judge.expect("x", 1, {2})), offline)
    assert result.verdict is Verdict.FAIL


def test_a_broken_should_is_a_warn(offline: Context) -> None:
    result = run_check(
        _check(lambda ctx, judge: judge.expect("x", 1, {2}, "MB-WIRE-15"), ("MB-WIRE-15",)), offline
    )
    assert result.verdict is Verdict.WARN


def test_a_broken_may_is_info(offline: Context) -> None:
    result = run_check(
        _check(lambda ctx, judge: judge.expect("x", 1, {2}, "MB-STATUS-8"), ("MB-STATUS-8",)),
        offline,
    )
    assert result.verdict is Verdict.INFO


def test_an_unclaimed_profile_is_not_applicable_and_never_runs(offline: Context) -> None:
    ran: list[bool] = []
    result = run_check(_check(lambda ctx, judge: ran.append(True), profile="atomic"), offline)
    assert (result.verdict, ran) == (Verdict.NA, [])


def test_a_raising_check_is_a_harness_error(offline: Context) -> None:
    def boom(ctx: Context, judge: Judge) -> None:
        raise KeyError("oops")

    assert run_check(_check(boom), offline).verdict is Verdict.HARNESS_ERROR


def test_an_unreachable_target_is_a_setup_error_not_a_pass(offline: Context) -> None:
    def probe(ctx: Context, judge: Judge) -> None:
        ctx.send(judge, ctx.raw_request("GET", "/"))
        judge.expect("x", 1, {1})

    assert run_check(_check(probe), offline).verdict in (Verdict.SETUP_ERROR, Verdict.HARNESS_ERROR)


def test_failures_that_do_not_repeat_are_flaky(offline: Context) -> None:
    calls = iter([1, 2, 2, 2])
    result = run_checks(
        [_check(lambda ctx, judge: judge.expect("x", next(calls), {2}))], offline, replays=3
    )[0]
    assert result.verdict is Verdict.FLAKY
    assert result.replays is not None
    assert (result.replays.runs, result.replays.failures) == (4, 1)


def test_failures_that_repeat_are_deterministic(offline: Context) -> None:
    result = run_checks([_check(lambda ctx, judge: judge.expect("x", 1, {2}))], offline, replays=2)[
        0
    ]
    assert result.verdict is Verdict.FAIL
    assert result.replays is not None
    assert result.replays.classification == "DETERMINISTIC"


def test_only_a_result_that_did_not_pass_keeps_its_wire(offline: Context) -> None:
    """The report writes the exchanges of a check that did not pass; a passing one's, which
    may be a limit's size, are not held to the end of the run."""

    def sends(outcome: int) -> object:
        def probe(ctx: Context, judge: Judge) -> None:
            judge.record(Exchange(b"GET / HTTP/1.1\r\n\r\n" + bytes(1 << 20), None))
            judge.expect("x", outcome, {1})

        return probe

    passed, failed = run_checks([_check(sends(1)), _check(sends(2))], offline, replays=0)
    assert (passed.verdict, failed.verdict) == (Verdict.PASS, Verdict.FAIL)
    assert (len(passed.judge.exchanges), len(failed.judge.exchanges)) == (0, 1)


def test_a_silent_target_is_a_timeout() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        target = Target(
            base_url=f"http://127.0.0.1:{port}",
            resources={"ok": "/x", "not_found": "/y"},
            timeout=0.3,
        )
        check = next(c for c in all_checks() if c.id == "reject-empty-batch")
        assert run_check(check, Context(target)).verdict is Verdict.TIMEOUT


def _server_that(answer: bytes | None) -> tuple[socket.socket, threading.Thread]:
    """A one-connection server that reads a request head, then writes `answer` and closes
    (None: closes without writing anything)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            if answer is not None:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        (None, Verdict.FAIL),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", Verdict.PASS),
    ],
)
def test_a_request_answered_by_a_closed_connection_is_a_fail(
    answer: bytes | None, verdict: Verdict
) -> None:
    listener, thread = _server_that(answer)
    port = listener.getsockname()[1]
    ctx = Context(Target(base_url=f"http://127.0.0.1:{port}", profiles=frozenset({"core"})))

    def probe(ctx: Context, judge: Judge) -> None:
        ctx.send(judge, ctx.raw_request("GET", "/", [("Connection", "close")]))
        judge.expect("x", 1, {1})

    try:
        result = run_check(_check(probe, ("MB-WIRE-21",)), ctx)
    finally:
        thread.join(timeout=5)
        listener.close()
    assert result.verdict is verdict, result.message
    if verdict is Verdict.FAIL:
        assert {e.requirement for e in result.judge.failed} == {"MB-WIRE-21"}


def _stalls(ctx: Context, judge: Judge) -> None:
    judge.record(
        Exchange(
            b"POST /batch HTTP/1.1\r\n\r\n",
            None,
            "TimeoutError: timed out",
            raw=b"HTTP/1.1 200 OK\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n",
        )
    )


def test_a_stalled_answer_says_how_far_it_came(offline: Context) -> None:
    result = run_check(_check(_stalls), offline)
    assert result.verdict is Verdict.TIMEOUT
    assert "stalled after its head ('HTTP/1.1 200 OK') and 5 octets" in result.message


def _row_then_a_failure(rows: int) -> list[Check]:
    return [_check(_stalls)] * (3 * rows) + [_check(lambda ctx, judge: judge.expect("x", 1, {2}))]


def test_a_row_of_timeouts_from_a_target_that_still_answers_does_not_stop_the_run(
    offline: Context,
) -> None:
    outcome = RunOutcome()
    asked: list[bool] = []
    results = run_checks(
        _row_then_a_failure(2),
        offline,
        replays=0,
        outcome=outcome,
        answering=lambda: asked.append(True) or True,
    )
    assert [r.verdict for r in results] == [Verdict.TIMEOUT] * 6 + [Verdict.FAIL]
    assert (outcome.aborted, outcome.rows_outlived, len(asked)) == (None, 2, 2)


def test_a_row_of_timeouts_from_a_target_that_no_longer_answers_stops_the_run(
    offline: Context,
) -> None:
    outcome = RunOutcome()
    results = run_checks(
        _row_then_a_failure(1), offline, replays=0, outcome=outcome, answering=lambda: False
    )
    assert results[-1].verdict is Verdict.NA
    assert outcome.aborted is not None
    assert "a one-part batch got no answer either" in outcome.aborted


def test_timeouts_past_the_allowance_stop_the_run_even_from_a_target_that_answers() -> None:
    settings = RunSettings(max_timeouts_while_answering=6)
    ctx = Context(Target(base_url="http://127.0.0.1:9", profiles=frozenset({"core"})), settings)
    outcome = RunOutcome()
    results = run_checks(
        _row_then_a_failure(2), ctx, replays=0, outcome=outcome, answering=lambda: True
    )
    assert results[-1].verdict is Verdict.NA
    assert (outcome.rows_outlived, outcome.aborted is not None) == (1, True)
    assert "6 checks timed out though the target still answers" in (outcome.aborted or "")
