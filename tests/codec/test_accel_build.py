"""hatch_build.py: the C fast path compiles with the interpreter's own settings, and a machine
without a compiler still installs mixbatch (pure Python) unless the build demands it."""

from __future__ import annotations

import os
import runpy
import sysconfig
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _hook() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "hatch_build.py"))


def _no_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sysconfig.get_config_var

    def fake(name: str) -> Any:
        return "/nonexistent/mixbatch-cc" if name == "CC" else real(name)

    monkeypatch.setattr(sysconfig, "get_config_var", fake)


def test_it_compiles_into_the_given_path(tmp_path: Path) -> None:
    out = tmp_path / "_accel.so"
    assert _hook()["build"](out) is True
    assert out.stat().st_size > 0


def test_without_a_compiler_the_build_goes_on_pure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MIXBATCH_REQUIRE_ACCEL", raising=False)
    _no_compiler(monkeypatch)
    out = tmp_path / "_accel.so"
    assert _hook()["build"](out) is False
    assert not out.exists()
    assert "without the C fast path" in capsys.readouterr().err


def test_a_build_that_requires_it_fails_without_a_compiler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MIXBATCH_REQUIRE_ACCEL", "1")
    _no_compiler(monkeypatch)
    with pytest.raises(RuntimeError, match="cannot build the C fast path"):
        _hook()["build"](tmp_path / "_accel.so")


def test_it_rebuilds_when_any_input_is_newer(tmp_path: Path) -> None:
    hook = _hook()
    out = tmp_path / "_accel.so"
    assert hook["build"](out) is True
    newest = max(p.stat().st_mtime for p in hook["INPUTS"])
    os.utime(out, (newest + 10, newest + 10))
    assert hook["build"](out) is True
    assert out.stat().st_mtime == newest + 10  # up to date: left alone
    header = tmp_path / "_accel.h"
    header.write_text("/* a declaration changed */\n")
    os.utime(header, (newest + 20, newest + 20))
    inputs = hook["build"].__globals__  # run_path returns a copy of the module's globals
    inputs["INPUTS"] = (*inputs["INPUTS"], header)
    assert hook["build"](out) is True
    assert out.stat().st_mtime != newest + 10  # compiled again
