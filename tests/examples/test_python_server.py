"""The independent Python server under examples/python-server passes the suite's standard tier.

A fifth server written from the specification alone, by another hand, in Python 3.12 on the
standard library only, with its own HTTP/1.1 codec over asyncio streams (no h11, no
`http.server`) and the profiles core, pipelining, limits, error-policy, json, conditional,
collection-get and xml: a FAIL here is either a bug in it or a check stricter than the spec
(examples/python-server/FINDINGS.md keeps the record). The test starts it with the suite's own
interpreter on a free loopback port, points a copy of its target description at that port and
runs the suite against it as a subprocess; its own vector check first parses every request
vector of the spec.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.examples._served import (
    BATCH_TIMEOUT_MS,
    REPO,
    assert_standard_tier_passes,
    assert_vector_check_passes,
    served,
)

SERVER_DIR = REPO / "examples" / "python-server"
#: The standard tier against this server takes about two minutes on 2 cores.
SUITE_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    argv = [sys.executable, "-m", "mbserver", "--port", "0"]
    with served([*argv, "--batch-timeout-ms", str(BATCH_TIMEOUT_MS)], cwd=SERVER_DIR) as url:
        yield url


@pytest.mark.slow
@pytest.mark.timeout(SUITE_TIMEOUT_S + 30)
def test_standard_tier_has_no_failure(server_url: str, tmp_path: Path) -> None:
    assert_standard_tier_passes(SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S)


@pytest.mark.deep
@pytest.mark.timeout(SUITE_TIMEOUT_S + 30)
def test_size_limit_checks_pass(server_url: str, tmp_path: Path, mixbatch_tier: str) -> None:
    """The checks make test leaves out of the run above (SIZE_LIMIT_CHECKS) pass too."""
    if mixbatch_tier != "deep":
        pytest.skip("the size-limit checks run here with --mixbatch-tier deep (make deep)")
    assert_standard_tier_passes(
        SERVER_DIR / "target.json", server_url, tmp_path, SUITE_TIMEOUT_S, sizes=True
    )


@pytest.mark.timeout(60)
def test_own_vector_check_passes() -> None:
    """The server's own check of the spec's request vectors passes."""
    assert_vector_check_passes([sys.executable, "-m", "mbserver.vectorcheck"], cwd=SERVER_DIR)
