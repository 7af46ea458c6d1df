"""The suite stays independent of the reference implementation, and its plugin stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mixbatch_conformance

PACKAGE = Path(mixbatch_conformance.__file__).parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _offenders(paths: list[Path]) -> dict[str, list[str]]:
    found = {
        str(p.relative_to(PACKAGE)): sorted(
            n for n in _imports(p) if n == "mixbatch" or n.startswith("mixbatch.")
        )
        for p in paths
    }
    return {k: v for k, v in found.items() if v}


#: Owned by the intermediaries work, not by the suite's judging core; scanned separately below.
INTERMEDIARIES = PACKAGE / "intermediaries"


def test_no_judging_module_imports_the_reference_implementation() -> None:
    core = [p for p in PACKAGE.rglob("*.py") if INTERMEDIARIES not in p.parents]
    assert _offenders(core) == {}


def test_no_intermediaries_module_imports_the_reference_implementation() -> None:
    assert _offenders(list(INTERMEDIARIES.rglob("*.py"))) == {}


def test_import_scan_sees_a_planted_codec_import(tmp_path: Path) -> None:
    planted = tmp_path / "bad.py"
    planted.write_text("from mixbatch.codec import BatchParser\nimport mixbatch.server\n")
    assert _imports(planted) == {"mixbatch.codec", "mixbatch.server"}


def test_plugin_import_pulls_in_nothing_heavy() -> None:
    code = (
        "import sys, mixbatch_conformance.pytest_plugin as p; "
        "heavy = [m for m in ('hypothesis', 'mixbatch', 'mixbatch.codec', 'rich', 'jsonschema', "
        "'mixbatch_conformance.core.registry') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_plugin_declares_its_options_as_constants() -> None:
    from mixbatch_conformance import pytest_plugin

    assert pytest_plugin.OPTION_TARGET == "--mixbatch-target"
    assert pytest_plugin.OPTION_CONFIG == "--mixbatch-config"
    assert pytest_plugin.OPTION_TIER == "--mixbatch-tier"
    assert pytest_plugin.OPTION_REPORT == "--mixbatch-report"
