"""The independent Node server under examples/node-server passes the suite's standard tier.

A second server written from the specification alone, by another hand and in another language
than the Go server, with built-in modules only: a FAIL here is either a bug in it or a check
stricter than the spec (examples/node-server/FINDINGS.md keeps the record). The test starts it
on a free loopback port, points a copy of its target description at that port and runs the
suite against it as a subprocess.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.examples._served import (
    BATCH_TIMEOUT_MS,
    REPO,
    assert_standard_tier_passes,
    deep_only,
    served,
)

SERVER_DIR = REPO / "examples" / "node-server"
#: This server's tests run in the deep tier only (make deep): see DEEP_ONLY_SERVERS_REASON.
pytestmark = pytest.mark.deep


@pytest.fixture(scope="module", autouse=True)
def _deep_tier_only(mixbatch_tier: str) -> None:
    deep_only(mixbatch_tier)


#: The standard tier against this server takes about two and a half minutes on 2 cores, most of
#: it waiting out its time budget.
SUITE_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node binary on PATH")
    with served(
        [node, "server.js", "--port", "0", "--batch-timeout-ms", str(BATCH_TIMEOUT_MS)],
        cwd=SERVER_DIR,
    ) as url:
        yield url


@pytest.mark.slow
@pytest.mark.timeout(SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    assert_standard_tier_passes(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S, whole=True
    )
