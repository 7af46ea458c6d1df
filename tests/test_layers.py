"""The import contracts in pyproject.toml hold, and they can fail.

`lint-imports` reads `[tool.importlinter]`: each package's folders are its layers, there are no
cycles between siblings, the codec stays sans-IO, and the two packages never import each
other. Running it here makes `make test` fail on a broken contract, not only `make lint`. The
planted tests copy a package to a temporary directory, add one forbidden import (deferred
inside a function, which the graph still sees), and put the copy first on the path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
SUITE = ROOT / "conformance" / "mixbatch_conformance"
MIXBATCH = ROOT / "reference-impl" / "mixbatch"

pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.is_file(), reason="lint-imports is not installed (make env)"
)


def _lint(*args: str, path_first: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path_first is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path_first), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _plant(tmp_path: Path, package: Path, module: str, code: str) -> Path:
    """A copy of `package` under tmp_path whose `module` (a relative path) ends with `code`."""
    copy = tmp_path / package.name
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")
    return tmp_path


def test_every_import_contract_is_kept() -> None:
    result = _lint()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_a_core_module_importing_the_cli_breaks_the_suite_layers(tmp_path: Path) -> None:
    planted = _plant(
        tmp_path,
        SUITE,
        "core/registry.py",
        "def _planted() -> None:\n    from mixbatch_conformance import cli  # noqa: F401\n",
    )
    result = _lint("--contract", "suite-layers", path_first=planted)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "mixbatch_conformance.core.registry -> mixbatch_conformance.cli" in result.stdout


def test_a_check_module_importing_another_breaks_their_independence(tmp_path: Path) -> None:
    planted = _plant(
        tmp_path,
        SUITE,
        "checks/pipelining.py",
        "from mixbatch_conformance.checks.properties import hold  # noqa: F401,E402\n",
    )
    result = _lint("--contract", "suite-check-modules-independent", path_first=planted)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "mixbatch_conformance.checks.pipelining" in result.stdout


def test_a_cycle_between_suite_siblings_is_reported(tmp_path: Path) -> None:
    planted = _plant(
        tmp_path,
        SUITE,
        "intermediaries/_via.py",
        "def _planted() -> None:\n    from mixbatch_conformance.cli import main  # noqa: F401\n",
    )
    result = _lint("--contract", "no-cycles", path_first=planted)
    assert result.returncode == 1, result.stdout[-3000:]
    assert ".intermediaries -> .cli" in result.stdout


def test_an_event_loop_in_the_codec_breaks_sans_io(tmp_path: Path) -> None:
    planted = _plant(
        tmp_path,
        MIXBATCH,
        "codec/_limits.py",
        "def _planted() -> None:\n    import asyncio  # noqa: F401\n",
    )
    result = _lint("--contract", "mixbatch-codec-sans-io", path_first=planted)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "mixbatch.codec._limits -> asyncio" in result.stdout


def test_the_proxy_importing_the_server_breaks_the_mixbatch_layers(tmp_path: Path) -> None:
    planted = _plant(
        tmp_path,
        MIXBATCH,
        "proxy/_runner.py",
        "def _planted() -> None:\n    from mixbatch.server import _runner  # noqa: F401\n",
    )
    result = _lint("--contract", "mixbatch-layers", path_first=planted)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "mixbatch.proxy._runner -> mixbatch.server" in result.stdout


def test_the_http_layer_importing_the_server_breaks_the_mixbatch_layers(tmp_path: Path) -> None:
    planted = _plant(
        tmp_path,
        MIXBATCH,
        "_http/listener.py",
        "def _planted() -> None:\n    from mixbatch.server import _app  # noqa: F401\n",
    )
    result = _lint("--contract", "mixbatch-layers", path_first=planted)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "mixbatch._http.listener -> mixbatch.server" in result.stdout
