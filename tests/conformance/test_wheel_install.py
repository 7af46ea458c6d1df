"""The built wheel, installed into a fresh virtual environment, runs the suite without the
repository: `mixbatch conformance --tier smoke` against a running reference server.

The wheel is built as `make dist` builds it (uv build). It is installed offline with pip and
--no-deps; its dependencies come from the project's own environment, whose site-packages is
appended to the fresh environment's path without processing its .pth files, so that the
editable install of the checkout there stays out: mixbatch, mixbatch_conformance and the spec
files must all come from the wheel.
"""

from __future__ import annotations

import subprocess
import sysconfig
from pathlib import Path

import pytest

from tests._wheel import BOUND_S, fresh_install, uv_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_wheel_installs_and_runs_the_suite_without_the_repository(
    tmp_path: Path, reference_url: str
) -> None:
    uv = uv_command()
    if uv is None:
        pytest.skip("uv is not installed (make env installs it)")
    installed = fresh_install(uv, tmp_path)
    venv, python, env, site = installed.venv, installed.python, installed.env, installed.site
    # The dependencies, without the checkout: a plain path line, not a site directory.
    (site / "zz_mixbatch_deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import mixbatch, mixbatch_conformance; "
            "from mixbatch_conformance.core.requirements import spec_dir; "
            "print(mixbatch.__file__); print(mixbatch_conformance.__file__); print(spec_dir())",
        ],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert all(path.startswith(str(venv)) for path in where), where
    assert not any(path.startswith(str(ROOT)) for path in where), where
    run = subprocess.run(
        [
            *(str(venv / "bin" / "mixbatch"), "conformance", "--tier", "smoke"),
            *("--target", reference_url, "--no-progress", "--quiet", "--replays", "0"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert run.returncode in (0, 1), run.stderr[-2000:]
    assert "checks," in run.stdout
