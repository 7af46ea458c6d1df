"""The curl walk-through (docs/guides/curl.md) works as written against the reference server.

The test reads the guide's own fenced blocks, so the commands it runs are the ones a reader
copies. Every `sh` block except the one that starts the server is run, in page order, by bash
against one fresh reference server (the guide's `http://127.0.0.1:8080` replaced by the
server's real URL), from a folder where `spec/` is the repository's. The blocks the guide
shows after a command are its claims about the output: each `http` block's status, its
`Http-Status-Code` values in order and any `"requirement"` must equal the real response's, and
each line of a `text` block must appear in the real output. The server's boundary, validators
and dates vary and are not compared.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT

GUIDE = ROOT / "docs" / "guides" / "curl.md"
DOCUMENTED_URL = "http://127.0.0.1:8080"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
STATUS_LINE = re.compile(r"^HTTP/1\.1 (\d{3}) ", re.MULTILINE)
PART_STATUS = re.compile(r"^Http-Status-Code: (\d{3})\s*$", re.MULTILINE)
REQUIREMENT = re.compile(r'"requirement":"(MB-[A-Z]+-\d+)"')


def _steps(markdown: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each runnable sh block with the blocks that follow it up to the next sh block."""
    steps: list[tuple[str, list[tuple[str, str]]]] = []
    for match in FENCE.finditer(markdown):
        lang, body = match.group(1), match.group(2)
        if lang == "sh":
            steps.append((body, []))
        elif steps:
            steps[-1][1].append((lang, body))
    return [(cmd, shown) for cmd, shown in steps if cmd.strip() != "mixbatch serve"]


@pytest.fixture
def server_url() -> Iterator[str]:
    from mixbatch_conformance.transport.embedded import embedded_server

    with embedded_server() as url:
        yield url


def _run(command: str, url: str, cwd: Path) -> str:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command.replace(DOCUMENTED_URL, url)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, f"{command}\n--- stderr:\n{proc.stderr}"
    return proc.stdout.replace("\r\n", "\n")


def _compare_http(shown: str, actual: str) -> None:
    response = actual[actual.index("HTTP/1.1 ") :]
    assert STATUS_LINE.findall(response)[:1] == STATUS_LINE.findall(shown)[:1]
    assert PART_STATUS.findall(response) == PART_STATUS.findall(shown)
    assert REQUIREMENT.findall(response) == REQUIREMENT.findall(shown)


def test_guide_has_the_three_steps_it_describes() -> None:
    steps = _steps(GUIDE.read_text(encoding="utf-8"))
    assert len(steps) == 3
    assert all("curl" in cmd and "--data-binary @" in cmd for cmd, _ in steps)
    assert all(any(lang == "http" for lang, _ in shown) for _, shown in steps)


@pytest.mark.slow
def test_every_command_of_the_guide_answers_as_the_guide_shows(
    server_url: str, tmp_path: Path
) -> None:
    (tmp_path / "spec").symlink_to(ROOT / "spec")
    for command, shown in _steps(GUIDE.read_text(encoding="utf-8")):
        actual = _run(command, server_url, tmp_path)
        for lang, body in shown:
            if lang == "http":
                _compare_http(body, actual)
            elif lang == "text":
                for line in body.splitlines():
                    assert line in actual, f"{line!r} not in the output of:\n{command}"
