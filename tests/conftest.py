"""Settings every test shares.

Hypothesis's per-example deadline is a timed assertion: on a loaded machine (three pytest
workers a core, most of them waiting on servers) an example that takes 23 ms alone can take
600 ms, and the test would fail for the machine, not the code. Time is measured in bench/, so
no test carries a deadline.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

settings.register_profile("mixbatch", deadline=None)
settings.load_profile("mixbatch")


#: Test files that run for minutes, heaviest first (seconds on 2 cores, measured with
#: `--durations=0`): under `--dist loadfile` a file stays on one worker, so a long file that
#: starts last sets the end of the whole run. They are collected first, and the Makefile turns
#: off xdist's own reordering (by count of tests), so they start first.
LONG_FILES = (
    "tests/conformance/test_plant_groups.py",  # 335
    "tests/conformance/test_plant_groups_second.py",  # 274
    "tests/conformance/test_plant_groups_third.py",  # 230
    "tests/conformance/test_plant_groups_fourth.py",  # 200
    "tests/conformance/test_plant_groups_fifth.py",  # 170
    "tests/examples/test_go_server.py",  # 162
    "tests/examples/test_rust_server.py",  # 160
    "tests/examples/test_node_server.py",  # 140
    "tests/examples/test_java_server.py",  # 142
    "tests/conformance/test_reference_server.py",  # 138
    "tests/conformance/test_sandbox_cleanup.py",  # 60
    "tests/proxy/test_conformance.py",  # 112
    "tests/conformance/test_plant_rotation.py",  # 96
    "tests/conformance/test_mutations.py",  # 87
    "tests/conformance/test_allowed_variants.py",  # 57
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Collect the long files first, every file's own order kept."""
    rank = {path: i for i, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
