"""Markdown for the test-vector catalogue: every spec/examples/NAME.json in one table.

Theory of operation: a vector is a pair of files, NAME.http (the exact octets) and NAME.json
(the context and expected result, vector.schema.json). The table states, per vector, whether a
receiver must accept it, what it must find or which status and requirement its rejection
cites, and links the requirements to the index. The docs hook also publishes every file under
spec/examples/ unchanged at reference/vectors/, so each row links to the octets themselves:
a reader can `curl --data-binary @NAME.http` exactly what the suite sends. Each row's anchor is
the vector's id with its dot made a hyphen (`single-get-request`), which is also the anchor
the spec's links to individual example files are pointed at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["VECTORS_URI", "load_vectors", "vector_anchor", "vectors_table"]

#: Where the vector files are published on the site, relative to the docs root.
VECTORS_URI = "reference/vectors"


def vector_anchor(stem: str) -> str:
    """The row anchor of vector `stem` (e.g. `single-get.request` -> `single-get-request`)."""
    return stem.replace(".", "-")


def load_vectors(root: Path) -> list[dict[str, Any]]:
    """Every vector description, by id."""
    docs = [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((root / "spec" / "examples").glob("*.json"))
    ]
    return sorted(docs, key=lambda d: str(d["id"]))


def _expected(vector: dict[str, Any]) -> str:
    if vector["valid"]:
        n = len(vector["expect"]["parts"])
        return f"accept, {n} part{'s' if n != 1 else ''}"
    err = vector["error"]
    status = err.get("status", "error")
    return f"reject: {status} citing {err['requirement']}"


def vectors_table(vectors: list[dict[str, Any]], base: str = "") -> str:
    """One row per vector; `base` is the path from the page's folder to the docs root."""
    lines = [
        f"{len(vectors)} vectors: "
        f"{sum(1 for v in vectors if v['valid'])} valid, "
        f"{sum(1 for v in vectors if not v['valid'])} invalid.",
        "",
        "| Vector | Files | Direction | Expected | Requirements | What it shows |",
        "|---|---|---|---|---|---|",
    ]
    for v in vectors:
        stem = str(v["id"])
        anchor = vector_anchor(stem)
        files = f"[.http]({base}{VECTORS_URI}/{stem}.http) [.json]({base}{VECTORS_URI}/{stem}.json)"
        reqs = ", ".join(f"[{r}]({base}requirements.md#{r})" for r in v["requirements"])
        desc = str(v["description"]).replace("|", "\\|")
        lines.append(
            f'| <a id="{anchor}"></a>`{stem}` | {files} | {v["direction"]} | '
            f"{_expected(v)} | {reqs} | {desc} |"
        )
    return "\n".join(lines) + "\n"
