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
#: `tools/order_long_files.py` finds by replaying that scheduler over a run's durations (466 s
#: against 488 s for the order before it, in its simulation). They are collected first, and the
#: Makefile turns off xdist's own reordering (by count of tests), so they start in this order.
LONG_FILES = (
    "tests/conformance/test_plant_groups_fourth.py",  # 253
    "tests/proxy/test_conformance.py",  # 152
    "tests/examples/test_node_server.py",  # 176
    "tests/conformance/test_plant_groups.py",  # 296
    "tests/examples/test_rust_server.py",  # 191
    "tests/docs/test_browser.py",  # 85
    "tests/conformance/test_reference_server.py",  # 199
    "tests/conformance/test_mutations.py",  # 98
    "tests/conformance/test_plant_groups_third.py",  # 266
    "tests/examples/test_go_server.py",  # 189
    "tests/conformance/test_plant_groups_fifth.py",  # 209
    "tests/examples/test_java_server.py",  # 163
    "tests/conformance/test_plant_groups_second.py",  # 246
    "tests/examples/test_python_server.py",  # 180
    "tests/examples/test_cpp_server.py",  # 140
    "tests/conformance/test_allowed_variants.py",  # 77
    "tests/asgi/test_conformance.py",  # 62
    "tests/conformance/test_sandbox_cleanup.py",  # 53
    "tests/conformance/test_plant_rotation.py",  # 50
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Collect the long files first, every file's own order kept."""
    rank = {path: i for i, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
