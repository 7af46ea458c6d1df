"""The C programs behind the HTTP/2 comparison: their output is checked, their absence named.

h2load's report is parsed from canned text (no program runs); the nginx test starts the real
server and is skipped where nginx or curl is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench import external

REPORT = """\
finished in 12.34ms, 40520.26 req/s, 44.46MB/s
requests: 500 total, 500 started, 500 done, 500 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 500 2xx, 0 3xx, 0 4xx, 0 5xx
"""
ROOT = Path(__file__).resolve().parents[2]


def test_h2load_report_gives_its_time_in_seconds() -> None:
    assert external.parse_h2load(REPORT, "u", 500) == pytest.approx(0.01234)
    assert external.parse_h2load(REPORT.replace("12.34ms", "1.5s"), "u", 500) == 1.5


def test_h2load_report_with_a_failed_request_is_refused() -> None:
    failed = REPORT.replace("500 succeeded, 0 failed", "499 succeeded, 1 failed")
    with pytest.raises(external.ExternalError, match="499 succeeded"):
        external.parse_h2load(failed, "u", 500)
    with pytest.raises(external.ExternalError, match="2xx"):
        external.parse_h2load(REPORT.replace("500 2xx, 0 3xx", "498 2xx, 2 3xx"), "u", 500)


def test_h2load_report_not_understood_is_refused() -> None:
    with pytest.raises(external.ExternalError, match="not understood"):
        external.parse_h2load("connect failed", "u", 500)


def test_missing_programs_are_named_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "h2load" else "/bin/x")
    message = external.missing_message()
    assert message is not None
    assert message.startswith("h2load not installed")
    assert message.endswith(external.INSTALL_COMMAND)


def test_make_bench_deps_runs_the_install_command() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nbench-deps:\n", 1)[1].split("\n", 1)[0]
    assert recipe.strip() == external.INSTALL_COMMAND


@pytest.mark.skipif(
    shutil.which("nginx") is None or shutil.which("curl") is None, reason="nginx or curl missing"
)
def test_nginx_serves_the_given_octets_over_h2c(tmp_path: Path) -> None:
    content = bytes(range(256)) * 4
    with external.nginx_static({"/random/1024": content}) as nginx:
        out = tmp_path / "got"
        subprocess.run(
            [
                "curl",
                "-sS",
                "--http2-prior-knowledge",
                "--max-time",
                "10",
                "-o",
                str(out),
                f"http://{nginx.host}:{nginx.port}/random/1024",
            ],
            check=True,
            timeout=20,
        )
        assert out.read_bytes() == content
    assert nginx.process.poll() is not None
