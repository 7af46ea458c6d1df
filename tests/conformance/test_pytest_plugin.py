"""The pytest plugin runs checks as items when asked, and is inert otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mixbatch_conformance.run.discover import discover


def _pytest(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_plugin_is_inert_without_its_options(tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    out = _pytest([], tmp_path)
    assert "1 passed" in out.stdout
    assert "mixbatch" not in out.stdout


def test_plugin_runs_checks_and_writes_a_report(tmp_path: Path, reference_url: str) -> None:
    cfg = tmp_path / "target.json"
    cfg.write_text(json.dumps(discover(reference_url)), encoding="utf-8")
    report = tmp_path / "report"
    out = _pytest(
        ["--mixbatch-config", str(cfg), "--mixbatch-report", str(report), "-k", "MB-WIRE-8"],
        tmp_path,
    )
    assert out.returncode == 0, out.stdout[-2000:]
    assert " passed" in out.stdout
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert doc["results"]
    assert all("MB-WIRE-8" in r["requirements"] for r in doc["results"])
