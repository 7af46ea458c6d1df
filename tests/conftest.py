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


#: Test files that run for minutes, in the order they start (seconds on 2 cores, measured with
#: `--junitxml`). Under `--dist loadfile` a file stays on one worker, and xdist sends a worker its
#: next file once two or fewer of its tests are left: a file of one long test (a tier run against
#: a server) takes its next file at once, and the two run back to back. Which files start first
#: and which pair up decides where the run ends, so the order is the one
#: `tools/order_long_files.py` finds by replaying that scheduler over a run's durations (445 s
#: against 499 s for the order before it, in its simulation). They are collected first, and the
#: Makefile turns off xdist's own reordering (by count of tests), so they start in this order.
LONG_FILES = (
    "tests/conformance/test_plant_groups_fourth.py",  # 204
    "tests/conformance/test_plant_groups.py",  # 221
    "tests/examples/test_go_server.py",  # 165
    "tests/proxy/test_conformance.py",  # 149
    "tests/conformance/test_allowed_variants.py",  # 81
    "tests/examples/test_python_server.py",  # 142
    "tests/conformance/test_plant_groups_third.py",  # 239
    "tests/examples/test_rust_server.py",  # 169
    "tests/conformance/test_plant_groups_second.py",  # 176
    "tests/conformance/test_plant_groups_fifth.py",  # 253
    "tests/conformance/test_sandbox_cleanup.py",  # 44
    "tests/conformance/test_reference_server.py",  # 165
    "tests/conformance/test_declared_sizes.py",  # 41
    "tests/docs/test_browser.py",  # 74
    "tests/conformance/test_plant_rotation.py",  # 47
    "tests/conformance/test_mutations.py",  # 101
    "tests/independent_plants/test_independent_plants.py",  # 34
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Collect the long files first, every file's own order kept."""
    rank = {path: i for i, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
