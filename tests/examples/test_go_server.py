"""The independent Go server under examples/go-server passes the suite's standard tier.

The server is written from the specification alone and chooses differently from the reference
server wherever the spec allows, so a FAIL here is either a bug in it or a check stricter than
the spec (examples/go-server/FINDINGS.md keeps the record). The test builds the server with the
Go toolchain into a temporary directory, starts it on a free loopback port, points a copy of its
target description at that port and runs the suite against it as a subprocess.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.examples._served import (
    BATCH_TIMEOUT_MS,
    REPO,
    SIZE_LIMIT_CHECKS,
    served,
    standard_tier,
)

SERVER_DIR = REPO / "examples" / "go-server"
FALLBACK_GO = Path("/usr/local/go/bin/go")
BUILD_TIMEOUT_S = 120
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
    with served(
        [str(binary), "-addr", "127.0.0.1:0", "-batch-timeout", f"{BATCH_TIMEOUT_MS}ms"]
    ) as url:
        yield url


@pytest.mark.slow
@pytest.mark.timeout(SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    results, result = standard_tier(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S
    )
    failed = sorted(r["check_id"] for r in results if r["verdict"] in {"FAIL", "FLAKY"})
    assert failed == [], f"checks failed: {failed}\n{result.stdout[-2000:]}"
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.mark.deep
@pytest.mark.timeout(SUITE_TIMEOUT_S + 30)
def test_size_limit_checks_pass(server_url: str, tmp_path: Path, mixbatch_tier: str) -> None:
    """The checks make test leaves out of the run above (SIZE_LIMIT_CHECKS) pass too."""
    if mixbatch_tier != "deep":
        pytest.skip("the size-limit checks run here with --mixbatch-tier deep (make deep)")
    results, result = standard_tier(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S, only=SIZE_LIMIT_CHECKS
    )
    failed = sorted(r["check_id"] for r in results if r["verdict"] in {"FAIL", "FLAKY"})
    assert failed == [], f"checks failed: {failed}\n{result.stdout[-2000:]}"
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
