"""Fixtures for the docs tests: the repository's tools on sys.path, and one strict site build.

The site is built once per run into a temporary folder (never into site/, which a
developer's `mkdocs serve` may be using) and shared by the build test and the browser test.
Under pytest-xdist those two files run on different workers; the first worker to need the
site builds it beside every worker's own temporary folder, holding a lock, and the others
wait for it and read the same build, so make test pays for one build, not one per worker.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))
HOOKS = ROOT / "docs" / "hooks"
if str(HOOKS) not in sys.path:
    sys.path.insert(0, str(HOOKS))

#: mkdocs-material prints a banner about its future unless told not to; it is not a warning
#: about the site, and it would only be noise in the build log the tests read.
BUILD_ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1")


@dataclass(frozen=True)
class BuiltSite:
    """A finished `mkdocs build --strict` run."""

    directory: Path
    returncode: int
    log: str

    def page(self, path: str) -> str:
        return (self.directory / path).read_text(encoding="utf-8")


def build_site(destination: Path) -> BuiltSite:
    # Never -q: it hides the warnings that --strict counts (STYLE.md, point 9).
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(destination)],
        cwd=ROOT,
        env=BUILD_ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return BuiltSite(destination, proc.returncode, proc.stdout + proc.stderr)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> BuiltSite:
    if worker_id == "master":
        return build_site(tmp_path_factory.mktemp("site") / "site")
    # Every worker's basetemp shares this run's parent folder (pytest-xdist's own advice).
    shared = tmp_path_factory.getbasetemp().parent
    record = shared / "site-build.json"
    with open(shared / "site-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if record.is_file():
            done = json.loads(record.read_text(encoding="utf-8"))
            return BuiltSite(Path(done["directory"]), done["returncode"], done["log"])
        site = build_site(shared / "site")
        record.write_text(
            json.dumps(
                {"directory": str(site.directory), "returncode": site.returncode, "log": site.log}
            ),
            encoding="utf-8",
        )
        return site
