"""mixbatch: batching HTTP requests in one multipart/mixed message.

Two versions describe this package, and each is read from its one source: ``__version__`` is
the distribution's version (declared once, in pyproject.toml, and read back from the installed
metadata), and ``spec_version()`` is the version of the spec it implements (``spec_version`` in
the requirement index, spec/requirements.json, which the wheel ships as ``mixbatch/_spec``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

__all__ = ["__version__", "requirement_index", "spec_document", "spec_version"]

try:
    __version__ = version("mixbatch")
except PackageNotFoundError:  # pragma: no cover - running from a checkout that is not installed
    __version__ = "0+unknown"


def _spec_candidates(name: str) -> list[Path]:
    here = Path(__file__).resolve().parent
    # The wheel's copy first, then a checkout's spec/ above the package.
    return [here / "_spec" / name] + [parent / "spec" / name for parent in here.parents]


@cache
def spec_document(name: str) -> dict[str, Any]:
    """The parsed JSON file ``name`` under spec/ (``"schemas/capabilities.schema.json"``), or
    ``{}`` when no copy can be found or read."""
    for path in _spec_candidates(name):
        if path.is_file():
            try:
                document = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                return {}
            return document if isinstance(document, dict) else {}
    return {}


def requirement_index() -> dict[str, Any]:
    """The parsed spec/requirements.json, or ``{}`` when no copy can be found or read."""
    return spec_document("requirements.json")


def spec_version() -> str:
    """The version of the mixbatch spec this package implements (``"unknown"`` if not found)."""
    return str(requirement_index().get("spec_version", "unknown"))
