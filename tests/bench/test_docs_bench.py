"""The Benchmarks page warns about figures that an earlier, lettered harness produced.

``tools/docs_bench.py`` is loaded from its file: the tools folder is not a package.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _docs_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_bench", ROOT / "tools" / "docs_bench.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _publish(root: Path, scenarios: dict[str, object]) -> None:
    folder = root / "bench" / "results"
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text("# Benchmark results\n", encoding="utf-8")
    (folder / "results.json").write_text(json.dumps({"scenarios": scenarios}), encoding="utf-8")


def test_lettered_results_get_a_warning_naming_each_superseded_figure(tmp_path: Path) -> None:
    docs_bench = _docs_bench()
    _publish(tmp_path, {"A": {}, "B": {}, "D": {}})
    text = docs_bench.bench_section(tmp_path)
    assert text.startswith('!!! warning "Measured by an earlier harness"')
    assert "httpx" in text
    assert "methods_vs_floor" in text
    assert "batching_proxy" not in text  # F was not in that run
    assert text.index("!!! warning") < text.index("## Benchmark results")


def test_results_keyed_by_name_get_no_warning(tmp_path: Path) -> None:
    docs_bench = _docs_bench()
    _publish(tmp_path, {"methods_vs_floor": {}, "http2_vs_batch": {}})
    assert docs_bench.earlier_caveats(tmp_path) == []
    assert "!!! warning" not in docs_bench.bench_section(tmp_path)
