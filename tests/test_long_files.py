"""The long files `conftest.LONG_FILES` starts first are files that exist and are collected."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import LONG_FILES, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parent.parent


def test_every_long_file_exists() -> None:
    missing = [path for path in LONG_FILES if not (ROOT / path).is_file()]
    assert not missing, f"LONG_FILES names files that are gone: {missing}"


def test_long_files_are_collected_first_each_file_in_its_order() -> None:
    nodeids = [
        "tests/codec/test_a.py::one",
        f"{LONG_FILES[1]}::first",
        "tests/codec/test_a.py::two",
        f"{LONG_FILES[0]}::only",
        f"{LONG_FILES[1]}::second",
    ]
    items = [SimpleNamespace(nodeid=n) for n in nodeids]
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [i.nodeid for i in items] == [
        f"{LONG_FILES[0]}::only",
        f"{LONG_FILES[1]}::first",
        f"{LONG_FILES[1]}::second",
        "tests/codec/test_a.py::one",
        "tests/codec/test_a.py::two",
    ]
