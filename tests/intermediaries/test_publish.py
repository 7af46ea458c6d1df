"""The matrix page: one row per program and variant, one cell per requirement area, each
linking to the row's run report; a program that is not installed shows its install command."""

from __future__ import annotations

import json
from pathlib import Path

from mixbatch_conformance.intermediaries.real.publish import build, main, render


def _result(check: str, verdict: str, *requirements: str) -> dict[str, object]:
    return {"check_id": check, "verdict": verdict, "requirements": list(requirements)}


def _run(tmp_path: Path) -> Path:
    root = tmp_path / "run"
    header = {"tier": "standard", "suite_version": "0.1.0", "spec_version": "draft-02"}
    for folder, verdict in (("direct", "PASS"), ("nginx-default", "FAIL")):
        (root / folder).mkdir(parents=True)
        doc = {
            "header": {**header, "started": "2026-01-01T00:00:00+00:00"},
            "summary": {"PASS": 1, "FAIL": int(verdict == "FAIL")},
            "results": [
                _result("absolute-target", verdict, "MB-SUB-2", "MB-STATUS-1"),
                _result("envelope", "PASS", "MB-WIRE-1"),
                _result("pipelined", "N/A", "MB-PIPE-1"),
            ],
        }
        (root / folder / "report.json").write_text(json.dumps(doc))
    blame = {
        "blamed": [
            {
                "check_id": "absolute-target",
                "through": "FAIL",
                "message": "top-level status: expected one of {200}, got 400",
                "requirements": ["MB-SUB-2"],
                "request_changes": [{"name": "host", "before": ["a:1"], "after": ["b:2"]}],
                "response_changes": [],
            }
        ],
        "both": [],
    }
    (root / "nginx-default" / "hop-blame.json").write_text(json.dumps(blame))
    (root / "nginx-default" / "hop").mkdir()
    (root / "nginx-default" / "hop" / "nginx.conf").write_text("daemon off;\n")
    matrix = {
        "seed": 5,
        "direct": {"report": "direct", "exit": 0},
        "rows": [
            {
                "intermediary": "nginx",
                "variant": "default",
                "package": "nginx",
                "version": "nginx/1.22.1",
                "report": "nginx-default",
                "status": "ran",
                "exit": 1,
                "observed": {"host_kept": False, "compressed": False, "trailer_kept": False},
            },
            {
                "intermediary": "squid",
                "variant": "default",
                "package": "squid",
                "version": "",
                "report": "squid-default",
                "status": "not-installed",
                "install": "apt-get install -y squid",
            },
        ],
    }
    (root / "matrix.json").write_text(json.dumps(matrix))
    return root


def test_a_cell_counts_the_checks_of_its_area_that_fail_only_through_the_hop(
    tmp_path: Path,
) -> None:
    page = render(build(_run(tmp_path)))
    [row] = [line for line in page.splitlines() if line.startswith("| nginx |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    # Columns: program, variant, then the areas that ran (WIRE, SUB, STATUS), then the probe.
    assert cells[:5] == [
        "nginx",
        "[default](#nginx-default)",
        "[✓](#nginx-default)",
        "[✗ 1](#nginx-default)",
        "[✗ 1](#nginx-default)",
    ]
    assert cells[5] == "no ⚠"  # Host not kept
    assert "### nginx default {#nginx-default}" in page
    assert "`host` ['a:1'] → ['b:2']" in page
    assert "--via nginx:default --tier standard --seed 5" in page


def test_a_missing_program_is_a_row_with_its_install_command(tmp_path: Path) -> None:
    page = render(build(_run(tmp_path)))
    assert "| squid | default | not installed: `apt-get install -y squid` |" in page


def test_publishing_writes_the_page_and_its_data(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    assert main([str(_run(tmp_path)), str(out)]) == 0
    assert (out / "intermediaries.md").read_text().startswith("# Through real intermediaries")
    data = json.loads((out / "intermediaries" / "matrix.json").read_text())
    assert data["rows"][0]["config"] == "daemon off;\n"
    assert main([str(tmp_path / "nowhere"), str(out)]) == 2
