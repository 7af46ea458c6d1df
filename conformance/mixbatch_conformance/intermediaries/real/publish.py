"""Publish a real-intermediary run as the docs site's results page.

``python -m mixbatch_conformance.intermediaries.real.publish REPORT_DIR DOCS_RESULTS_DIR``
reads what ``mixbatch conformance --via real --report REPORT_DIR`` wrote (``matrix.json``, each
row's ``report.json``, ``hop-blame.json`` and ``hop/`` configuration) and writes

- ``DOCS_RESULTS_DIR/intermediaries.md``: one row per program and variant, one column per
  requirement area (the ``MB-AREA`` of the requirement IDs the checks verify), each cell
  linking to that row's run report further down the page; then per row its version, its exact
  configuration, what the probe observed, the checks that fail only through it with what it
  changed, and the command that reproduces the row;
- ``DOCS_RESULTS_DIR/intermediaries/matrix.json``: the same data, for machines.

Nothing on the page is typed in: ``make intermediaries`` regenerates it from a fresh run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["AREAS", "build", "main", "render"]

#: Requirement areas in the spec's order, with what each covers (the matrix's columns).
AREAS: dict[str, str] = {
    "WIRE": "envelope framing",
    "PART": "part header fields",
    "SUB": "sub-request targets and fields",
    "METHOD": "methods",
    "PROC": "processing model",
    "STATUS": "status codes",
    "RESP": "response parts",
    "MULTI": "multi-status representations",
    "LIMIT": "limits",
    "INTER": "intermediaries",
    "PIPE": "pipelining",
    "TEST": "test resources",
}
_AREA = re.compile(r"^MB-([A-Z]+)-\d+$")
#: Configuration files copied next to a row's logs, in the order they are shown.
CONFIG_FILES = (
    "nginx.conf",
    "haproxy.cfg",
    "apache.conf",
    "Caddyfile",
    "default.vcl",
    "squid.conf",
    "records.config",
    "h2o.conf",
    "lighttpd.conf",
)
BAD = {"FAIL", "FLAKY", "TIMEOUT", "SETUP-ERROR", "HARNESS-ERROR"}


def _area(requirement: str) -> str | None:
    m = _AREA.match(requirement)
    return m.group(1) if m and m.group(1) in AREAS else None


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _row(root: Path, entry: dict[str, Any]) -> dict[str, Any]:
    folder = root / str(entry["report"])
    row = dict(entry)
    report = _load(folder / "report.json")
    blame = _load(folder / "hop-blame.json") or {}
    if report is None:
        return row
    row["summary"] = report["summary"]
    blamed = {b["check_id"]: b for b in blame.get("blamed", [])}
    areas: dict[str, dict[str, Any]] = {}
    for result in report["results"]:
        for area in {a for a in map(_area, result["requirements"]) if a}:
            cell = areas.setdefault(area, {"ran": 0, "hop": []})
            if result["verdict"] != "N/A":
                cell["ran"] += 1
            if result["check_id"] in blamed:
                cell["hop"].append(result["check_id"])
    row["areas"] = areas
    row["blame"] = [
        {
            "check_id": b["check_id"],
            "verdict": b["through"],
            "message": b["message"],
            "requirements": b["requirements"],
            "request_changes": b["request_changes"],
            "response_changes": b["response_changes"],
        }
        for b in blamed.values()
    ]
    row["server_failures"] = blame.get("both", [])
    for name in CONFIG_FILES:
        path = folder / "hop" / name
        if path.is_file():
            row["config_name"] = name
            row["config"] = path.read_text(encoding="utf-8", errors="replace")
            break
    return row


def build(root: Path) -> dict[str, Any]:
    """The matrix document from a report folder written by ``--via ... --report root``."""
    matrix = _load(root / "matrix.json")
    if matrix is None:
        raise FileNotFoundError(f"{root / 'matrix.json'} is missing: run the matrix first")
    direct = _load(root / "direct" / "report.json") or {}
    header = direct.get("header", {})
    return {
        "seed": matrix["seed"],
        "tier": header.get("tier"),
        "suite_version": header.get("suite_version"),
        "spec_version": header.get("spec_version"),
        "started": header.get("started"),
        "direct": {
            "summary": direct.get("summary"),
            "failures": [r["check_id"] for r in direct.get("results", []) if r["verdict"] in BAD],
        },
        "rows": [_row(root, e) for e in matrix["rows"]],
    }


def _slug(row: dict[str, Any]) -> str:
    return f"{row['intermediary']}-{row['variant']}"


def _yes(value: Any, good: bool | None = None) -> str:
    """yes or no, with ⚠ when it is not what a batch needs (``good``; None: either is fine)."""
    if value is None:
        return "?"
    return ("yes" if value else "no") + ("" if good is None or bool(value) == good else " ⚠")


def _cell(row: dict[str, Any], area: str) -> str:
    cell = row.get("areas", {}).get(area)
    if not cell or not cell["ran"]:
        return "-"
    hop = cell["hop"]
    mark = f"✗ {len(hop)}" if hop else "✓"
    return f"[{mark}](#{_slug(row)})"


def render(doc: dict[str, Any]) -> str:
    """The results page."""
    rows = doc["rows"]
    areas = [a for a in AREAS if any(r.get("areas", {}).get(a, {}).get("ran") for r in rows)]
    out = [
        "# Through real intermediaries",
        "",
        "What the proxies people deploy do to a batch: the conformance suite run against the",
        "reference server through each program and variant, and once direct with the same seed.",
        "A cell is ✓ when no check of that requirement area fails through the hop, ✗ *n* when",
        "*n* checks fail through it that pass direct (the hop's doing, whichever requirement",
        "their message names), - when no check of the area runs through it. Every cell links",
        "to the row's run report below. How to configure each program so that a batch passes:",
        "[Deploy behind a proxy](../guides/deploy-behind-a-proxy.md).",
        "",
        f"Tier {doc['tier']}, seed {doc['seed']}, suite {doc['suite_version']}, spec "
        f"{doc['spec_version']}, run {doc['started']}. Regenerate with `make intermediaries`;",
        "the data is in [intermediaries/matrix.json](intermediaries/matrix.json).",
        "",
    ]
    direct = doc["direct"]
    if direct["failures"]:
        out += [
            f"The direct run itself fails {len(direct['failures'])} check(s) "
            f"({', '.join(f'`{c}`' for c in direct['failures'])}); those are the server's, "
            "not any hop's, and are left out of the cells.",
            "",
        ]
    head = ["Program", "Variant", *areas, "Host kept", "gzip despite no-transform", "Trailer kept"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        name = f"{row['intermediary']}"
        if row.get("status") != "ran":
            why = (
                f"not installed: `{row.get('install')}`"
                if row.get("status") == "not-installed"
                else "did not start"
            )
            out.append(f"| {name} | {row['variant']} | {why} |" + " |" * (len(head) - 3))
            continue
        seen = row.get("observed") or {}
        out.append(
            "| "
            + " | ".join(
                [
                    name,
                    f"[{row['variant']}](#{_slug(row)})",
                    *(_cell(row, a) for a in areas),
                    _yes(seen.get("host_kept"), True),
                    _yes(seen.get("compressed"), False),
                    _yes(seen.get("trailer_kept")),
                ]
            )
            + " |"
        )
    out += [
        "",
        "Areas: " + "; ".join(f"{a}: {AREAS[a]}" for a in areas) + ". The last three columns are",
        "what one probe batch (with `Cache-Control: no-transform`, `Accept-Encoding: gzip` and",
        "`TE: trailers`) saw: whether the origin received the client's Host, whether the hop",
        "added a content coding (MB-INTER-4 asks it not to), and whether the Batch-Summary",
        "trailer reached the client (a hop may drop trailers). ⚠ marks what breaks batches or",
        "goes against the spec.",
        "",
    ]
    out += ["## Run reports", ""]
    for row in rows:
        if row.get("status") != "ran":
            continue
        out += _row_report(row, doc)
    return "\n".join(out).rstrip() + "\n"


def _row_report(row: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    summary = row.get("summary") or {}
    counts = ", ".join(f"{summary[k]} {k}" for k in ("PASS", "FAIL", "WARN", "N/A") if k in summary)
    seen = row.get("observed") or {}
    out = [
        f"### {row['intermediary']} {row['variant']} {{#{_slug(row)}}}",
        "",
        f"{row.get('version', '')} (Debian package `{row['package']}`). {counts}; exit "
        f"{row.get('exit')}. Probe: Host kept {_yes(seen.get('host_kept'), True)}, compressed "
        f"despite no-transform {_yes(seen.get('compressed'), False)}, Batch-Summary trailer "
        f"kept {_yes(seen.get('trailer_kept'))}, Via or X-Forwarded-For added "
        f"{_yes(seen.get('via'))}.",
        "",
        "Reproduce: `mixbatch conformance --via "
        f"{row['intermediary']}:{row['variant']} --tier {doc['tier']} --seed {doc['seed']} "
        f"--report reports/{_slug(row)}`",
        "",
    ]
    blame = row.get("blame") or []
    if blame:
        out += [f"Fail only through the hop ({len(blame)}):", ""]
        for b in blame:
            out.append(f"- `{b['check_id']}` ({b['verdict']}): {_escape(b['message'])}")
            changes = [("request", c) for c in b["request_changes"]]
            changes += [("response", c) for c in b["response_changes"]]
            for side, c in changes[:6]:
                out.append(
                    f"    - {side}: `{c['name']}` {_escape(str(c['before'] or '(absent)'))} → "
                    f"{_escape(str(c['after'] or '(absent)'))}"
                )
        out.append("")
    else:
        out += ["No check fails only through this hop.", ""]
    if row.get("config"):
        out += [
            f'??? note "{row["config_name"]}"',
            "",
            "    ```text",
            *("    " + line if line else "" for line in row["config"].rstrip().split("\n")),
            "    ```",
            "",
        ]
    return out


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")[:400]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mixbatch_conformance.intermediaries.real.publish")
    p.add_argument("report_dir", type=Path, help="the --report folder of the matrix run")
    p.add_argument("docs_results", type=Path, help="the docs site's results folder")
    args = p.parse_args(argv)
    try:
        doc = build(args.report_dir)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = args.docs_results / "intermediaries"
    data.mkdir(parents=True, exist_ok=True)
    (data / "matrix.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    page = args.docs_results / "intermediaries.md"
    page.write_text(render(doc), encoding="utf-8")
    print(f"wrote {page} and {data / 'matrix.json'} ({len(doc['rows'])} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
