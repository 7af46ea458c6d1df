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


@pytest.mark.parametrize("missing", ["jsonschema", "rich.console", "hypothesis", "h2.config"])
def test_a_suite_without_its_extra_exits_2_with_a_one_line_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], missing: str
) -> None:
    fake = types.ModuleType("fake_suite_without_extra")

    def fake_main(argv: list[str]) -> int:
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)

    fake.main = fake_main  # type: ignore[attr-defined]
    fake.__spec__ = importlib.machinery.ModuleSpec("fake_suite_without_extra", None)
    monkeypatch.setitem(sys.modules, "fake_suite_without_extra", fake)
    monkeypatch.setattr(_conformance, "_MODULE", "fake_suite_without_extra")
    assert main(["conformance", "--tier", "smoke"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "install mixbatch[conformance]" in err


def test_a_missing_module_outside_the_extra_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("fake_suite_broken")

    def fake_main(argv: list[str]) -> int:
        raise ModuleNotFoundError("No module named 'mixbatch_conformance.gone'", name="gone")

    fake.main = fake_main  # type: ignore[attr-defined]
    fake.__spec__ = importlib.machinery.ModuleSpec("fake_suite_broken", None)
    monkeypatch.setitem(sys.modules, "fake_suite_broken", fake)
    monkeypatch.setattr(_conformance, "_MODULE", "fake_suite_broken")
    with pytest.raises(ModuleNotFoundError):
        main(["conformance"])
