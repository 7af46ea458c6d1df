"""The wheel without extras is the core: codec, server, proxy, client, ASGI and the CLI run on
h11 alone, and no test tooling (mitmproxy, hypothesis, pytest, rich) comes with it.

The wheel is built as `make dist` builds it (uv build) and installed offline into a fresh
virtual environment with --no-deps; its one core dependency, h11, is copied from the project's
environment into a directory of its own on the new environment's path, so nothing else of the
project's environment can be imported by accident.
"""

from __future__ import annotations

import shutil
import subprocess
from importlib.metadata import distribution
from pathlib import Path

import h11
import pytest

from tests._wheel import BOUND_S, fresh_install, uv_command

ROOT = Path(__file__).resolve().parents[2]
CORE_IMPORTS = (
    "import mixbatch.server, mixbatch.client, mixbatch.codec, mixbatch.asgi, mixbatch.cli"
)
EXTRAS_ONLY = ("mitmproxy", "hypothesis", "pytest", "rich", "jsonschema")


def test_the_core_requires_h11_alone_and_the_tooling_sits_in_extras() -> None:
    requires = distribution("mixbatch").requires or []
    core = [r for r in requires if "extra ==" not in r]
    assert [r.split(">")[0].split("<")[0].split("=")[0].strip() for r in core] == ["h11"]
    for name in EXTRAS_ONLY:
        assert any(r.startswith(name) and "extra ==" in r for r in requires), name


@pytest.mark.slow
def test_the_wheel_without_extras_imports_the_core_and_hints_at_the_suite_extra(
    tmp_path: Path,
) -> None:
    uv = uv_command()
    if uv is None:
        pytest.skip("uv is not installed (make env installs it)")
    installed = fresh_install(uv, tmp_path)
    venv, python, env = installed.venv, str(installed.python), installed.env
    deps = tmp_path / "core-deps"
    shutil.copytree(Path(h11.__file__).parent, deps / "h11")
    site = installed.site
    Path(site, "zz_core_deps.pth").write_text(f"{deps}\n", encoding="utf-8")

    probe = (
        f"{CORE_IMPORTS}\n"
        "import importlib.util, mixbatch\n"
        "print(mixbatch.__file__)\n"
        f"print([m for m in {EXTRAS_ONLY!r} if importlib.util.find_spec(m) is not None])\n"
    )
    done = subprocess.run(
        [python, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    where, present = done.stdout.splitlines()
    assert where.startswith(str(venv)), where
    assert present == "[]", present

    run = subprocess.run(
        [str(venv / "bin" / "mixbatch"), "conformance", "--tier", "smoke"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert run.returncode == 2, run.stdout[-2000:] + run.stderr[-2000:]
    assert "install mixbatch[conformance]" in run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
