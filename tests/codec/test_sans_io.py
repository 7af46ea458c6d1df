"""The codec is sans-IO, and its public names are exactly its ``__all__``."""

from __future__ import annotations

import ast
from pathlib import Path

import mixbatch.codec as codec

CODEC_DIR = Path(codec.__file__).parent
IO_MODULES = {"asyncio", "socket", "h11", "selectors", "ssl", "http", "urllib.request", "threading"}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_codec_imports_no_io_module() -> None:
    for path in CODEC_DIR.glob("*.py"):
        bad = {
            m for m in imported_modules(path) if m.split(".")[0] in IO_MODULES or m in IO_MODULES
        }
        assert not bad, f"{path.name} imports {bad}"


def test_public_names_equal_all() -> None:
    public = {name for name in vars(codec) if not name.startswith("_") and name != "annotations"}
    modules = {
        name
        for name in public
        if name.startswith("_") or type(getattr(codec, name)).__name__ == "module"
    }
    assert public - modules == set(codec.__all__)
