"""Every requirement ID cited anywhere in the code, tests, tools or docs exists in the index.

spec/requirements.json is the single source of IDs; a citation of an ID it lacks is a stale or
invented reference, whatever file it sits in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: What ships: the tests are left out because they plant made-up IDs on purpose, to show that a
#: check rejects them.
SCANNED = ["reference-impl", "conformance", "tools", "bench", "docs", "README.md"]
CITATION = re.compile(r"\bMB-[A-Z]+-[0-9]+\b")
#: The checker's own help text names a placeholder ID.
PLACEHOLDERS = {"MB-X-1"}


def index_ids() -> set[str]:
    data = json.loads((ROOT / "spec" / "requirements.json").read_text())
    return {r["id"] for r in data["requirements"]}


def unknown_citations(known: set[str], files: list[Path], root: Path = ROOT) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in files:
        text = path.read_text(errors="replace")
        bad = {m for m in CITATION.findall(text) if m not in known | PLACEHOLDERS}
        if bad:
            found[str(path.relative_to(root))] = bad
    return found


def files() -> list[Path]:
    out: list[Path] = []
    for name in SCANNED:
        base = ROOT / name
        if base.is_file():
            out.append(base)
        else:
            out += [
                p
                for p in base.rglob("*")
                if p.suffix in {".py", ".pyi", ".c", ".sh", ".md", ".json", ".html"}
            ]
    return out


def test_every_cited_requirement_id_is_in_the_index() -> None:
    assert unknown_citations(index_ids(), files()) == {}


def test_the_scan_finds_an_invented_id(tmp_path: Path) -> None:
    planted = tmp_path / "x.py"
    planted.write_text("# MB-WIRE-8 is real; MB-WIRE-77 is not\n")
    assert unknown_citations(index_ids(), [planted], tmp_path) == {"x.py": {"MB-WIRE-77"}}
