"""``mixbatch serve`` as a process: announces its URL, serves, stops on SIGINT."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import urllib.request

import pytest

LISTENING = re.compile(r"^mixbatch listening on (http://127\.0\.0\.1:\d+)$")
TIMEOUT = 20


def test_serve_announces_url_serves_and_stops_on_sigint() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mixbatch", "serve", "--port", "0", "--log-level", "WARNING"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        match = LISTENING.match(line)
        assert match, line
        with urllib.request.urlopen(match.group(1) + "/books/1", timeout=TIMEOUT) as reply:
            assert reply.status == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_serve_refuses_invalid_limits() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mixbatch", "serve", "--port", "0", "--max-parts", "0"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 2
    assert "max_parts" in result.stderr


def test_help_lists_every_subcommand() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mixbatch", "--help"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    for command in ("serve", "send", "inspect", "conformance"):
        assert command in result.stdout


@pytest.mark.parametrize("argv", [[], ["nonsense"]])
def test_bad_usage_exits_2(argv: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mixbatch", *argv],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 2
