"""The independent Go server under examples/go-server passes the suite's standard tier.

The server is written from the specification alone and chooses differently from the reference
server wherever the spec allows, so a FAIL here is either a bug in it or a check stricter than
the spec (examples/go-server/FINDINGS.md keeps the record). The test builds the server with the
Go toolchain into a temporary directory, starts it on a free loopback port, points a copy of its
target description at that port and runs the suite against it as a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER_DIR = REPO / "examples" / "go-server"
FALLBACK_GO = Path("/usr/local/go/bin/go")
# The first line the server prints, "mbserver listening on http://127.0.0.1:PORT".
READY_PREFIX = "mbserver listening on "
BUILD_TIMEOUT_S = 120
START_TIMEOUT_S = 10
#: The standard tier against this server takes about two minutes on 2 cores, most of it waiting
#: out time budgets and delays.
SUITE_TIMEOUT_S = 300


def find_go() -> str | None:
    """The go binary on PATH, or the toolchain's usual install path."""
    found = shutil.which("go")
    if found is not None:
        return found
    return str(FALLBACK_GO) if FALLBACK_GO.is_file() else None


def go_env(go: str, tmp: Path) -> dict[str, str]:
    """The environment for go: modules from go.mod only, no toolchain download, and a build
    cache under tmp when the default one is not writable."""
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    probe = subprocess.run([go, "env", "GOCACHE"], env=env, capture_output=True, text=True)
    cache = probe.stdout.strip()
    try:
        Path(cache).mkdir(parents=True, exist_ok=True)
        writable = bool(cache) and os.access(cache, os.W_OK)
    except OSError:
        writable = False
    if not writable:
        env["GOCACHE"] = str(tmp / "gocache")
    return env


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    go = find_go()
    if go is None:
        pytest.skip("no go binary on PATH or at /usr/local/go/bin/go")
    tmp = tmp_path_factory.mktemp("mbserver")
    binary = tmp / "mbserver"
    subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=SERVER_DIR,
        env=go_env(go, tmp),
        check=True,
        timeout=BUILD_TIMEOUT_S,
    )
    proc = subprocess.Popen(
        [str(binary), "-addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(READY_PREFIX), f"unexpected first line {line!r}"
        yield line.removeprefix(READY_PREFIX).strip()
    finally:
        proc.terminate()
        proc.wait(timeout=START_TIMEOUT_S)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.slow
@pytest.mark.timeout(SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    target = json.loads((SERVER_DIR / "target.json").read_text())
    target["base_url"] = server_url
    config = tmp_path / "target.json"
    config.write_text(json.dumps(target))
    report = tmp_path / "report"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mixbatch",
            "conformance",
            "--config",
            str(config),
            "--tier",
            "standard",
            "--seed",
            "1",
            "--replays",
            "0",
            "--report",
            str(report),
            "--no-progress",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT_S,
        cwd=REPO,
    )
    results = json.loads((report / "report.json").read_text())["results"]
    failed = sorted(r["check_id"] for r in results if r["verdict"] in {"FAIL", "FLAKY"})
    assert failed == [], f"checks failed: {failed}\n{result.stdout[-2000:]}"
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
