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
from bench.targets import TARGETS, evaluate

from bench import __main__ as cli
from bench import (
    batching_proxy,
    http2_vs_batch,
    methods_vs_floor,
    parsers,
    scale,
    uvicorn_pipelining,
)


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = methods_vs_floor.Grid(1.0, (5,), (1024, 2048))
    monkeypatch.setattr(methods_vs_floor, "QUICK", (grid,))
    monkeypatch.setattr(methods_vs_floor, "THROUGHPUT_N", {"quick": 20, "full": 20})
    monkeypatch.setattr(http2_vs_batch, "QUICK", http2_vs_batch.Plan((1.0,), (10,), (10,)))
    monkeypatch.setattr(uvicorn_pipelining, "N", {"quick": 10, "full": 10})
    monkeypatch.setattr(parsers, "QUICK_SHAPES", {"50x1KiB": (50, 1024), "2x64KiB": (2, 64 * 1024)})
    monkeypatch.setattr(scale, "SIZES", {"quick": (2, (10, 100)), "full": (2, (10,))})
    # Two items over the 3G link: about 0.6 s serial, the rest under a second.
    monkeypatch.setattr(batching_proxy, "N", {"quick": 2, "full": 2})


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
    assert len(document["targets"]) == len(TARGETS)
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("# Benchmark results")
    if document["scenarios"][scenario].get("available", True):
        assert {p.stem.split("_")[0] for p in tmp_path.glob("*.png")} == {scenario.split("_")[0]}
    if scenario == "methods_vs_floor":
        under = next(r for r in document["targets"] if r["id"] == "no-method-under-floor")
        assert under["passed"] is True, under


def test_unknown_scenario_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--scenario", "Z", "--out", str(tmp_path)])


@pytest.mark.parametrize(
    ("given", "chosen"),
    [
        ("A", ["methods_vs_floor"]),
        ("b,F", ["http2_vs_batch", "batching_proxy"]),
        ("parsers,D", ["parsers"]),
        ("scale", ["scale"]),
    ],
)
def test_scenario_accepts_letters_and_names(given: str, chosen: list[str]) -> None:
    assert cli._parse(["--scenario", given]).chosen == chosen


def test_floor_is_not_beaten_by_the_method_that_set_the_rate() -> None:
    # Two methods, one repetition; the faster one defines the path's fastest rate.
    raw = methods_vs_floor._Raw(
        n=10,
        size=1000,
        times={"serial": [0.5], "pipelined": [0.02], "batch": [0.012]},
        cpu={"serial": [0.004], "pipelined": [0.003], "batch": [0.002]},
        bytes_in={"serial": 11_000, "pipelined": 11_000, "batch": 10_500},
        first_part=[],
    )
    path = {"configured_one_way_ms": 1.0, "rtt_measured_ms": 2.0, "bandwidth_mbyte_s": 0.5}
    rate = methods_vs_floor.fastest_rate(path, [raw])  # type: ignore[arg-type]
    floor, cpu = methods_vs_floor.floors(path, raw, rate)  # type: ignore[arg-type]
    assert cpu == [0.002]
    assert rate == pytest.approx(10_500 / 0.010)
    assert floor[0] == pytest.approx(0.012)  # RTT + the batch's own transfer time
    # The RTT term is the relay's configured delay, not the probe's larger measured figure,
    # which a warm path can undercut.
    slower_probe = {**path, "rtt_measured_ms": 2.5}
    floor, _ = methods_vs_floor.floors(slower_probe, raw, rate)  # type: ignore[arg-type]
    assert floor[0] == pytest.approx(0.012)
    assert all(floor[0] <= times[0] for times in raw.times.values())


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


def test_a_method_under_the_floor_fails_its_target() -> None:
    def cell(lowest: float) -> dict[str, object]:
        ratio = summarize([lowest, 1.2])
        return {
            "n": 10,
            "payload_bytes": 1024,
            "percent_of_serial": {"batch": ratio, "pipelined": ratio},
            "ratio_to_floor": {"serial": summarize([3.0]), "batch": ratio},
        }

    for lowest, passed in ((0.97, False), (1.0, True)):
        grid = {"path": {"rtt_measured_ms": 2.0}, "cells": [cell(lowest)]}
        throughput = {"n": 10, "batch_over_serial": summarize([11.0])}
        records = evaluate({"methods_vs_floor": {"grids": [grid], "throughput": throughput}})
        record = next(r for r in records if r["id"] == "no-method-under-floor")
        assert record["passed"] is passed
        assert record["measured"] == lowest
        assert "batch, N=10" in record["where"]


@pytest.mark.parametrize(("per_part_us", "passed"), [(9.5, True), (10.5, False)])
def test_server_cpu_per_part_is_a_target(per_part_us: float, passed: bool) -> None:
    throughput = {
        "n": 10_000,
        "batch_over_serial": summarize([11.0]),
        "server_cpu_per_request_us": {"batch": summarize([per_part_us])},
    }
    ratio = summarize([1.2])
    cell = {
        "n": 10,
        "payload_bytes": 1024,
        "percent_of_serial": {"batch": ratio, "pipelined": ratio},
        "ratio_to_floor": {"batch": ratio},
    }
    grid = {"path": {"rtt_measured_ms": 2.0}, "cells": [cell]}
    records = evaluate({"methods_vs_floor": {"grids": [grid], "throughput": throughput}})
    record = next(r for r in records if r["id"] == "server-cpu-per-part")
    assert record["passed"] is passed


def test_an_http2_row_whose_client_reports_failures_is_published_not_fatal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A peer that refuses some of h2load's streams is a result: the row says why, the best
    rows come from the rows that completed, and the report and targets still render."""
    from bench import external, report

    def refused() -> float:
        raise external.ExternalError("h2load http://x/random/1024: 1061 done, 981 succeeded")

    def rows(*_args: object) -> list[http2_vs_batch.Row]:
        return [
            http2_vs_batch.Row("h2", "hypercorn", "h2load", 1000, refused),
            http2_vs_batch.Row("h2", "hypercorn", "h2load", 100, lambda: 0.30),
            http2_vs_batch.Row("h2", "nginx", "h2load", 100, refused),
            http2_vs_batch.Row("batch", "reference", "curl", None, lambda: 0.10),
        ]

    monkeypatch.setattr(http2_vs_batch, "_rows", rows)
    plan = http2_vs_batch.Plan((1.0,), (3,), (100, 1000))
    path = {"configured_one_way_ms": 1.0, "bandwidth_mbyte_s": 1.024}
    cell = http2_vs_batch._cell({}, 3, plan, 3, tmp_path, path)  # type: ignore[arg-type]
    assert [r["failed"] is not None for r in cell["rows"]] == [True, False, True, False]
    # 2 ms of configured RTT plus 3 KiB at 1.024 MB/s: no batch can beat hypercorn by more.
    assert cell["batch_bound_seconds"] == pytest.approx(0.005)
    assert cell["ceiling_over_batch"]["hypercorn"]["median"] == pytest.approx(60.0)
    assert cell["rows"][0]["seconds"] is None
    assert cell["best_h2"] == {"hypercorn": 1}
    assert cell["best_batch"] == 3
    assert cell["over_batch"]["hypercorn"]["median"] == pytest.approx(3.0)
    results = {
        "http2_vs_batch": {
            "available": True,
            "payload_bytes": 1024,
            "streams": [100, 1000],
            "grids": [{"path": {"rtt_measured_ms": 2.0}, "cells": [cell]}],
        }
    }
    text = "\n".join(report._http2_vs_batch(results["http2_vs_batch"]))
    assert "failed: h2load http://x/random/1024: 1061 done" in text
    assert "against nginx: no HTTP/2 row completed" in text
    assert "ceiling 60.00x" in text
    nginx = [t for t in evaluate(results) if "nginx" in t["id"]]
    assert nginx
    assert all(t["passed"] is None for t in nginx)
