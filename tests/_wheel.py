"""Build the project's wheel as `make dist` does and install it into a fresh virtual environment,
for the tests that check what a user gets from `pip install` without the repository.

`fresh_install` installs the wheel offline with --no-deps and returns the environment's python,
its site-packages and the environment variables to run it with (no PYTHONPATH, so nothing of the
checkout leaks in); each test then decides which dependencies to put on that path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Seconds for each of the build, the venv and the install (together about 15 here).
BOUND_S = 120


@dataclass(frozen=True)
class Installed:
    venv: Path
    python: Path
    site: Path
    env: dict[str, str]


def uv_command() -> list[str] | None:
    """How to call uv (as the Makefile does: python3 -m uv), or None."""
    for candidate in (["python3", "-m", "uv"], [shutil.which("uv") or "uv"]):
        try:
            done = subprocess.run(
                [*candidate, "--version"], cwd=ROOT, capture_output=True, timeout=30
            )
        except OSError:
            continue
        if done.returncode == 0:
            return candidate
    return None


def fresh_install(uv: list[str], tmp_path: Path) -> Installed:
    """Build the wheel into tmp_path/dist and install it alone into tmp_path/venv."""
    out = tmp_path / "dist"
    subprocess.run(
        [*uv, "build", "--wheel", "--out-dir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=BOUND_S,
    )
    [wheel] = out.glob("mixbatch-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=BOUND_S)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MIXBATCH_SPEC_DIR")}
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        env=env,
        timeout=BOUND_S,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Installed(venv, python, Path(site), env)
