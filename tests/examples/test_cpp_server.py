"""The independent C++ server under examples/cpp-server passes the suite's standard tier.

A sixth server written from the specification alone, by another hand, in C++20 on the standard
library, POSIX sockets and threads and zlib, with its own HTTP/1.1 codec, multipart parser and
JSON and XML writers and the profiles core, pipelining, limits, error-policy, json,
conditional, collection-get and xml: a FAIL here is either a bug in it or a check stricter than
the spec (examples/cpp-server/FINDINGS.md keeps the record). The test copies it into a scratch
directory and builds it there with its build.sh (g++), starts it on a free loopback port,
points a copy of its target description at that port and runs the suite against it as a
subprocess; its own vector check first parses every request vector of the spec.
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

SERVER_DIR = REPO / "examples" / "cpp-server"
#: This server's tests run in the deep tier only (make deep): see DEEP_ONLY_SERVERS_REASON.
pytestmark = pytest.mark.deep


@pytest.fixture(scope="module", autouse=True)
def _deep_tier_only(mixbatch_tier: str) -> None:
    deep_only(mixbatch_tier)


#: build.sh compiles sixteen translation units one at a time in about 20 s on 2 cores.
BUILD_TIMEOUT_S = 180
#: The standard tier against this server takes about two minutes on 2 cores.
SUITE_TIMEOUT_S = 300


def built(into: Path) -> Path:
    """The server built in a copy under `into` (skips the test without g++); its build/ dir."""
    if shutil.which("g++") is None:
        pytest.skip("no g++ on PATH")
    copy = into / "cpp-server"
    shutil.copytree(SERVER_DIR, copy, ignore=shutil.ignore_patterns("build"))
    subprocess.run(
        ["sh", "build.sh"], cwd=copy, check=True, timeout=BUILD_TIMEOUT_S, capture_output=True
    )
    return copy / "build"


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory.mktemp("cpp-build"))


@pytest.fixture(scope="module")
def server_url(build_dir: Path) -> Iterator[str]:
    argv = [str(build_dir / "mbserver"), "--port", "0"]
    with served([*argv, "--batch-timeout-ms", str(BATCH_TIMEOUT_MS)]) as url:
        yield url


@pytest.mark.slow
@pytest.mark.timeout(BUILD_TIMEOUT_S + SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    assert_standard_tier_passes(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S, whole=True
    )


@pytest.mark.timeout(BUILD_TIMEOUT_S + 60)
def test_own_vector_check_passes(build_dir: Path) -> None:
    """The server's own check of the spec's request vectors passes."""
    assert_vector_check_passes([str(build_dir / "vectorcheck")])
