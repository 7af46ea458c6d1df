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


def test_the_order_tool_replays_a_one_test_file_taking_its_next_file_at_once() -> None:
    """xdist sends a worker its next file once two or fewer of its tests are left: a file of one
    long test takes the file queued after it at once, and the two run back to back."""
    from tools.order_long_files import COLLECTION_S, simulate

    durations = {"long.py": [100.0], "next.py": [50.0], "many.py": [10.0] * 10}
    # long.py and next.py each take a worker and, one test each, a second file at once: the
    # worker of long.py takes many.py, and runs 100 + 100.
    assert simulate(["long.py", "next.py", "many.py"], durations, workers=2) == COLLECTION_S + 200
    # many.py first: long.py's worker takes next.py, 100 + 50, while many.py runs 100.
    assert simulate(["many.py", "long.py", "next.py"], durations, workers=2) == COLLECTION_S + 150
