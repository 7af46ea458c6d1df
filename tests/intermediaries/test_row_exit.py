"""The exit status of a run through real intermediaries: what a row's checks say about the hop.

A check that times out or cannot be judged only through a hop is a finding about that hop, as a
failure is; the run still publishes its row, and ``make intermediaries`` publishes the matrix.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from mixbatch_conformance.intermediaries.real import _rows


def _suite(codes: dict[str, int], blamed: dict[str, list[str]]) -> Callable[[list[str]], int]:
    """A stand-in suite: each run's exit status by its --via-scenario (``direct`` without one),
    and the hop blame a real run would leave in the row's report folder."""

    def main(argv: list[str]) -> int:
        label = argv[argv.index("--via-scenario") + 1] if "--via-scenario" in argv else "direct"
        folder = Path(argv[argv.index("--report") + 1])
        folder.mkdir(parents=True, exist_ok=True)
        checks = [{"check_id": c} for c in blamed.get(label, [])]
        (folder / "hop-blame.json").write_text(json.dumps({"blamed": checks}))
        return codes.get(label, 0)

    return main


def _run(tmp_path: Path, items: list[str], suite: Callable[[list[str]], int]) -> int:
    rows = _rows.rows_from(items)
    argv = ["--seed", "1", "--report", str(tmp_path)]
    return _rows.run_rows(rows, None, argv, suite, say=lambda _m: None)


@pytest.mark.usefixtures("recorded")
def test_checks_that_time_out_only_through_a_hop_count_as_failures(tmp_path: Path) -> None:
    suite = _suite({"caddy:h2": 3}, {"caddy:h2": ["limit-part-bytes-one-over"]})
    assert _run(tmp_path, ["caddy:h2", "caddy:default"], suite) == 1
    matrix = json.loads((tmp_path / "matrix.json").read_text())
    # The row keeps the suite's own status; only the run's summary status is the hop's finding.
    assert [r["exit"] for r in matrix["rows"]] == [3, 0]


@pytest.mark.usefixtures("recorded")
def test_a_row_that_could_not_test_with_nothing_on_the_hop_is_a_harness_problem(
    tmp_path: Path,
) -> None:
    assert _run(tmp_path, ["caddy:h2"], _suite({"caddy:h2": 3}, {})) == 3


@pytest.mark.usefixtures("recorded")
def test_a_direct_run_that_could_not_test_stays_so(tmp_path: Path) -> None:
    suite = _suite({"direct": 3, "caddy:h2": 1}, {"caddy:h2": ["x"]})
    assert _run(tmp_path, ["caddy:h2"], suite) == 3


@pytest.mark.usefixtures("recorded")
def test_failures_through_a_hop_make_the_run_nonconformant(tmp_path: Path) -> None:
    suite = _suite({"nginx:default": 1}, {"nginx:default": ["batch-equals-alone"]})
    assert _run(tmp_path, ["nginx:default", "nginx:recommended"], suite) == 1
