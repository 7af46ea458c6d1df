"""The independent Node server under examples/node-server passes the suite's standard tier.

A second server written from the specification alone, by another hand and in another language
than the Go server, with built-in modules only: a FAIL here is either a bug in it or a check
stricter than the spec (examples/node-server/FINDINGS.md keeps the record). The test starts it
on a free loopback port, points a copy of its target description at that port and runs the
suite against it as a subprocess.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER_DIR = REPO / "examples" / "node-server"
# The first line the server prints, "mbserver listening on http://127.0.0.1:PORT".
READY_PREFIX = "mbserver listening on "
START_TIMEOUT_S = 10
#: The standard tier against this server takes about two and a half minutes on 2 cores, most
#: of it the checks that wait out its 8 s batch time budget.
SUITE_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node binary on PATH")
    proc = subprocess.Popen(
        [node, "server.js", "--port", "0"],
        cwd=SERVER_DIR,
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
            *(sys.executable, "-m", "mixbatch", "conformance", "--config", str(config)),
            *("--tier", "standard", "--seed", "1", "--replays", "0", "--report", str(report)),
            *("--no-progress", "--quiet"),
        ],
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT_S,
        cwd=REPO,
    )
    results = json.loads((report / "report.json").read_text())["results"]
    failed = sorted(r["check_id"] for r in results if r["verdict"] in {"FAIL", "FLAKY"})
    errors = sorted(
        f"{r['check_id']}: {r['verdict']}"
        for r in results
        if r["verdict"] in {"SETUP-ERROR", "HARNESS-ERROR", "TIMEOUT"}
    )
    assert failed == [], f"checks failed: {failed}\n{result.stdout[-2000:]}"
    assert errors == [], f"checks could not judge: {errors}"
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
