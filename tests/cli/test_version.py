"""``mixbatch --version``: the package version and the spec version, each from its one source."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import mixbatch
from mixbatch.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _spec_version() -> str:
    document = json.loads((ROOT / "spec" / "requirements.json").read_text("utf-8"))
    return str(document["spec_version"])


def test_version_names_the_package_and_the_spec_it_implements(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    expected = f"mixbatch {version('mixbatch')} (spec {_spec_version()})"
    assert capsys.readouterr().out.strip() == expected


def test_package_exposes_the_versions_it_prints() -> None:
    assert mixbatch.__version__ == version("mixbatch")
    assert mixbatch.spec_version() == _spec_version()


def test_python_dash_m_prints_the_same_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mixbatch", "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert proc.stdout.startswith(f"mixbatch {mixbatch.__version__} (spec ")
