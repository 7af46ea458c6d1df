"""Markdown pages for the JSON Schemas in spec/schemas/, one page per schema file.

Theory of operation: each schema already documents itself (every property has a
description; tests/spec enforces that), so a page is the schema's title and description, a
table of its members walked from the schema itself, and the schema file included verbatim by
pymdownx.snippets, never copied. The docs hook adds one generated page per file it finds, so a
new schema gets a page without anyone editing the site.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SchemaPage", "index_page", "schema_page", "schema_pages"]

_MAX_DEPTH = 4


@dataclass(frozen=True)
class SchemaPage:
    """One schema and where its page goes."""

    file_name: str
    slug: str
    title: str
    description: str
    schema: dict[str, Any]

    @property
    def src_uri(self) -> str:
        return f"reference/schemas/{self.slug}.md"


def schema_pages(root: Path) -> list[SchemaPage]:
    """Every spec/schemas/*.schema.json, by file name."""
    pages = []
    for path in sorted((root / "spec" / "schemas").glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        pages.append(
            SchemaPage(
                file_name=path.name,
                slug=path.name.removesuffix(".schema.json"),
                title=str(schema.get("title", path.name)),
                description=str(schema.get("description", "")),
                schema=schema,
            )
        )
    return pages


def _type_of(node: dict[str, Any]) -> str:
    if "$ref" in node:
        return f"`{node['$ref']}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind) if kind else "any"


def _rows(node: dict[str, Any], prefix: str, depth: int) -> list[str]:
    rows: list[str] = []
    required = set(node.get("required", ()))
    for name, sub in node.get("properties", {}).items():
        if not isinstance(sub, dict):
            continue
        path = f"{prefix}{name}"
        desc = str(sub.get("description", "")).replace("|", "\\|").replace("\n", " ")
        rows.append(
            f"| `{path}` | {_type_of(sub)} | {'yes' if name in required else 'no'} | {desc} |"
        )
        if depth < _MAX_DEPTH:
            rows += _rows(sub, f"{path}.", depth + 1)
            items = sub.get("items")
            if isinstance(items, dict):
                rows += _rows(items, f"{path}[].", depth + 1)
    return rows


def schema_page(page: SchemaPage) -> str:
    """The Markdown of one schema's page."""
    lines = [
        f"# {page.title}",
        "",
        page.description,
        "",
        f"File: `spec/schemas/{page.file_name}` (JSON Schema 2020-12), `$id` "
        f"`{page.schema.get('$id', '(none)')}`.",
        "",
    ]
    rows = _rows(page.schema, "", 0)
    if rows:
        lines += [
            "## Members",
            "",
            "| Member | Type | Required | Description |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    defs = page.schema.get("$defs", {})
    if defs:
        lines += ["## Definitions", "", "| Definition | Type | Description |", "|---|---|---|"]
        for name, sub in defs.items():
            desc = str(sub.get("description", "")).replace("|", "\\|")
            lines.append(f"| `#/$defs/{name}` | {_type_of(sub)} | {desc} |")
        lines.append("")
    lines += [
        "## The schema",
        "",
        "```json",
        f'--8<-- "spec/schemas/{page.file_name}"',
        "```",
        "",
    ]
    return "\n".join(lines)


def index_page(pages: list[SchemaPage]) -> str:
    """The table that lists every schema page (for reference/schemas/index.md)."""
    lines = ["| Schema | File | What it describes |", "|---|---|---|"]
    for page in pages:
        lines.append(
            f"| [{page.title}]({page.slug}.md) | `spec/schemas/{page.file_name}` | "
            f"{page.description.replace('|', chr(92) + '|')} |"
        )
    return "\n".join(lines) + "\n"
