"""``mixbatch --version``: the package version and the spec version, each from its one source."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

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


def _docs_cli() -> Any:
    tools = str(ROOT / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    return importlib.import_module("docs_cli")


def _help_text(argv: tuple[str, ...]) -> Any:
    """What docs_cli would read from ``python -m mixbatch ARGV``, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as caught:
        main(list(argv))
    return _docs_cli().HelpText(argv, int(caught.value.code or 0), out.getvalue(), "")


def test_cli_reference_page_shows_the_version_and_every_exit_status_table() -> None:
    docs_cli = _docs_cli()
    commands = ("serve", "send", "inspect", "proxy")
    runs = [("--help",), ("--version",), *((c, "--help") for c in commands)]
    texts = [_help_text(argv) for argv in runs]
    page = docs_cli.cli_page(texts)
    assert (
        f"`mixbatch --version` prints:\n\n```text\nmixbatch {mixbatch.__version__} (spec " in page
    )
    assert "--version" in page.split("## `mixbatch serve`")[0]
    for command in commands:
        section = page.split(f"## `mixbatch {command}` ")[1].split("\n## ")[0]
        assert "exit status:\n  0    " in section, command
