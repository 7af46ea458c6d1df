"""The harness end to end: each scenario runs in a tiny configuration and writes valid results.

Sizes are shrunk by patching the scenario modules' size tables, so each run takes seconds. No
timing is asserted: only that the run finishes, its JSON parses, its figures are summaries of
the right number of repetitions, and the Markdown and plots are written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.stats import paired_ratio, summarize
from bench.targets import evaluate

from bench import __main__ as cli
from bench import scenario_a, scenario_b, scenario_c, scenario_d, scenario_e, scenario_f


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario_a, "QUICK", (scenario_a.Grid(1.0, (5,), (1024, 2048)),))
    monkeypatch.setattr(scenario_a, "THROUGHPUT_N", {"quick": 20, "full": 20})
    monkeypatch.setattr(scenario_b, "N_ITEMS", 10)
    monkeypatch.setattr(scenario_c, "N", {"quick": 10, "full": 10})
    monkeypatch.setattr(
        scenario_d, "QUICK_SHAPES", {"50x1KiB": (50, 1024), "2x64KiB": (2, 64 * 1024)}
    )
    monkeypatch.setattr(scenario_e, "SIZES", {"quick": (2, (10, 100)), "full": (2, (10,))})
    monkeypatch.setattr(scenario_f, "N", {"quick": 5, "full": 5})


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("tiny")
@pytest.mark.parametrize("scenario", list(cli.SCENARIOS))
def test_scenario_writes_valid_results(scenario: str, tmp_path: Path) -> None:
    argv = ["--quick", "--repeats", "1", "--no-profile", "--scenario", scenario]
    assert cli.main([*argv, "--out", str(tmp_path)]) == 0
    document = json.loads((tmp_path / "results.json").read_text())
    assert list(document["scenarios"]) == [scenario]
    assert document["meta"]["repeats"] == 1
    assert len(document["targets"]) == 8
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("# Benchmark results")
    if scenario != "F" or document["scenarios"]["F"].get("available"):
        assert list(tmp_path.glob("*.png"))


def test_unknown_scenario_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--scenario", "Z", "--out", str(tmp_path)])


def test_paired_ratio_divides_repetition_by_repetition() -> None:
    ratio = paired_ratio([2.0, 9.0, 4.0], [1.0, 3.0, 4.0])
    assert ratio["values"] == [2.0, 3.0, 1.0]
    assert ratio["median"] == 2.0
    assert (ratio["min"], ratio["max"]) == (1.0, 3.0)


def test_summarize_refuses_no_values() -> None:
    with pytest.raises(ValueError, match="at least one"):
        summarize([])


def test_targets_without_their_scenario_are_not_run() -> None:
    records = evaluate({})
    assert {r["passed"] for r in records} == {None}
    assert all(r["where"] == "scenario not run" for r in records)
