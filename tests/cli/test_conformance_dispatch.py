"""``mixbatch conformance`` forwards to the suite, or says plainly that it is missing."""

from __future__ import annotations

import importlib.machinery
import sys
import types

import pytest

from mixbatch.cli import _conformance, main


def test_missing_suite_exits_2_with_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_conformance, "_MODULE", "mixbatch_no_such_suite.cli")
    assert main(["conformance", "--tier", "smoke"]) == 2
    assert "not installed" in capsys.readouterr().err


def test_arguments_are_forwarded_to_suite_main(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = types.ModuleType("fake_suite_cli")

    def fake_main(argv: list[str]) -> int:
        seen.append(argv)
        return 7

    fake.main = fake_main  # type: ignore[attr-defined]
    fake.__spec__ = importlib.machinery.ModuleSpec("fake_suite_cli", None)
    monkeypatch.setitem(sys.modules, "fake_suite_cli", fake)
    monkeypatch.setattr(_conformance, "_MODULE", "fake_suite_cli")
    assert main(["conformance", "--tier", "smoke", "--help"]) == 7
    assert seen == [["--tier", "smoke", "--help"]]
