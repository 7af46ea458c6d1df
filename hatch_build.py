"""Build the codec's optional C fast path, ``mixbatch/codec/_accel.c`` and its part checks.

Two entry points share one compile step:
- hatchling runs ``AccelBuildHook`` when it builds a wheel (``uv sync`` builds the editable one),
- ``python hatch_build.py`` (``make env``) builds the extension in place for a checkout.

Only the C compiler and the interpreter's own headers are needed (``sysconfig``). When either is
missing, or the compile fails, the build goes on without the extension and ``mixbatch`` runs
the pure-Python parser, which is the reference anyway; set ``MIXBATCH_REQUIRE_ACCEL=1`` to make
that a hard error instead.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
CODEC = ROOT / "reference-impl" / "mixbatch" / "codec"
#: The module (state, configure, scan, events), the part checks (find, classify) and the
#: response-part writer.
SOURCES = (CODEC / "_accel.c", CODEC / "_accel_check.c", CODEC / "_accel_write.c")
#: What a rebuild depends on: the sources and the declarations they share.
INPUTS = (*SOURCES, CODEC / "_accel.h")
#: Only PyInit__accel is exported (PyMODINIT_FUNC marks it); the functions the two sources
#: share stay inside the extension.
CFLAGS = (
    "-O2",
    "-fPIC",
    "-shared",
    "-fvisibility=hidden",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
)


def target(directory: Path = CODEC) -> Path:
    return directory / ("_accel" + str(sysconfig.get_config_var("EXT_SUFFIX") or ".so"))


def build(out: Path) -> bool:
    """Compile SOURCES into ``out`` unless it is already newer than every input; False when it
    cannot be built."""
    if out.exists() and out.stat().st_mtime >= max(p.stat().st_mtime for p in INPUTS):
        return True
    compiler = shlex.split(str(sysconfig.get_config_var("CC") or "cc"))
    include = sysconfig.get_paths()["include"]
    command = [*compiler, *CFLAGS, "-I", include, *map(str, SOURCES), "-o", str(out)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        return _give_up(f"no C compiler ({exc})")
    if done.returncode != 0:
        out.unlink(missing_ok=True)
        return _give_up(f"{shlex.join(command)} failed:\n{done.stderr}")
    return True


def _give_up(reason: str) -> bool:
    if os.environ.get("MIXBATCH_REQUIRE_ACCEL") == "1":
        raise RuntimeError(f"mixbatch: cannot build the C fast path: {reason}")
    print(f"mixbatch: building without the C fast path: {reason}", file=sys.stderr)
    return False


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script outside a build: no hook needed
    pass
else:

    class AccelBuildHook(BuildHookInterface):  # type: ignore[type-arg]
        PLUGIN_NAME = "custom"

        def initialize(self, version: str, build_data: dict[str, Any]) -> None:
            if self.target_name != "wheel":
                return
            out = target()
            if not build(out):
                return
            if version != "editable":  # an editable install imports it from the checkout
                build_data["force_include"][str(out)] = f"mixbatch/codec/{out.name}"
            build_data["pure_python"] = False
            build_data["infer_tag"] = True


if __name__ == "__main__":
    build(target())
