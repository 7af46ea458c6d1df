"""The independent Rust server under examples/rust-server passes the suite's standard tier.

A third server written from the specification alone, by another hand and in another language
than the Go and Node servers, on the Rust standard library only, with its own HTTP/1.1 parser
and the profiles the Node server leaves out (xml, atomic, references): a FAIL here is either a
bug in it or a check stricter than the spec (examples/rust-server/FINDINGS.md keeps the record).
The test builds it with cargo into a scratch directory, starts it on a free loopback port,
points a copy of its target description at that port and runs the suite against it as a
subprocess.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.examples._served import BATCH_TIMEOUT_MS, REPO, assert_standard_tier_passes, served
from tests.independent_plants.run_plants import find_cargo

SERVER_DIR = REPO / "examples" / "rust-server"
#: A release build of the server from nothing takes a few seconds on 2 cores.
BUILD_TIMEOUT_S = 300
#: The standard tier against this server takes about two and a half minutes on 2 cores, most of
#: it waiting out its time budget.
SUITE_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    cargo = find_cargo()
    if cargo is None:
        pytest.skip("no cargo on PATH or in ~/.cargo/bin")
    target = tmp_path_factory.mktemp("rust-target")
    subprocess.run(
        [cargo, "build", "--release", "--offline", "--quiet"],
        cwd=SERVER_DIR,
        env=dict(os.environ, CARGO_TARGET_DIR=str(target)),
        check=True,
        timeout=BUILD_TIMEOUT_S,
    )
    binary = str(target / "release" / "mbserver")
    with served([binary, "--port", "0", "--batch-timeout-ms", str(BATCH_TIMEOUT_MS)]) as url:
        yield url


@pytest.mark.slow
@pytest.mark.timeout(BUILD_TIMEOUT_S + SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    assert_standard_tier_passes(SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S)


@pytest.mark.deep
@pytest.mark.timeout(BUILD_TIMEOUT_S + SUITE_TIMEOUT_S + 30)
def test_size_limit_checks_pass(server_url: str, tmp_path: Path, mixbatch_tier: str) -> None:
    """The checks make test leaves out of the run above (SIZE_LIMIT_CHECKS) pass too."""
    if mixbatch_tier != "deep":
        pytest.skip("the size-limit checks run here with --mixbatch-tier deep (make deep)")
    assert_standard_tier_passes(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S, sizes=True
    )


@pytest.mark.timeout(BUILD_TIMEOUT_S + 30)
def test_own_unit_tests_pass(tmp_path: Path) -> None:
    """The server's own tests (the spec's vectors parsed and written, end to end over TCP) pass,
    so a plant or an edit that breaks them is seen before the suite runs."""
    cargo = find_cargo()
    if cargo is None:
        pytest.skip("no cargo on PATH or in ~/.cargo/bin")
    done = subprocess.run(
        [cargo, "test", "--offline", "--quiet"],
        cwd=SERVER_DIR,
        env=dict(os.environ, CARGO_TARGET_DIR=str(tmp_path / "target")),
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "test result: ok" in done.stdout, done.stdout[-3000:]
