"""The independent Java server under examples/java-server passes the suite's standard tier.

A fourth server written from the specification alone, by another hand, in Java 17 on the JDK's
standard library only, with its own HTTP/1.1 codec over `ServerSocket` and the profiles core,
pipelining, limits, error-policy, json, conditional and collection-get: a FAIL here is either a
bug in it or a check stricter than the spec (examples/java-server/FINDINGS.md keeps the record).
The test compiles it with javac into a scratch directory, starts it on a free loopback port,
points a copy of its target description at that port and runs the suite against it as a
subprocess; its own `VectorCheck` first parses every request vector of the spec.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.examples._served import (
    BATCH_TIMEOUT_MS,
    REPO,
    assert_standard_tier_passes,
    assert_vector_check_passes,
    deep_only,
    served,
)

SERVER_DIR = REPO / "examples" / "java-server"
#: This server's tests run in the deep tier only (make deep): see DEEP_ONLY_SERVERS_REASON.
pytestmark = pytest.mark.deep


@pytest.fixture(scope="module", autouse=True)
def _deep_tier_only(mixbatch_tier: str) -> None:
    deep_only(mixbatch_tier)


#: javac compiles the two dozen classes in a few seconds on 2 cores.
BUILD_TIMEOUT_S = 120
#: The standard tier against this server takes about two and a half minutes on 2 cores.
SUITE_TIMEOUT_S = 300


def compiled(into: Path) -> Path:
    """The server's classes compiled into `into` (skips the test without a JDK)."""
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        pytest.skip("no JDK (javac and java) on PATH")
    sources = sorted(str(p) for p in (SERVER_DIR / "src").rglob("*.java"))
    subprocess.run(
        [javac, "--release", "17", "-d", str(into), *sources],
        check=True,
        timeout=BUILD_TIMEOUT_S,
        capture_output=True,
    )
    return into


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled(tmp_path_factory.mktemp("java-classes"))


@pytest.fixture(scope="module")
def server_url(classes: Path) -> Iterator[str]:
    argv = ["java", "-cp", str(classes), "mbserver.Main", "--port", "0"]
    with served([*argv, "--batch-timeout-ms", str(BATCH_TIMEOUT_MS)]) as url:
        yield url


@pytest.mark.slow
@pytest.mark.timeout(BUILD_TIMEOUT_S + SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    assert_standard_tier_passes(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S, whole=True
    )


@pytest.mark.timeout(BUILD_TIMEOUT_S + 60)
def test_own_vector_check_passes(classes: Path) -> None:
    """The server's own check of the spec's request vectors passes."""
    assert_vector_check_passes(["java", "-cp", str(classes), "mbserver.VectorCheck"])
