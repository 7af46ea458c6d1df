"""Which statements of the independent Go server the suite's standard tier never executes.

A planted violation can only be caught where the suite's requests reach it: a branch of the Go
server that no check executes is an input the suite never sends, and any mistake planted there
passes. This tool builds the server with Go's coverage instrumentation (`go build -cover`),
runs the standard tier against it once, and lists every block that never ran, grouped by the
function that holds it.

Each block left unexecuted must be either an input a check should send, or listed in
`go_coverage_allowed.json` with the reason no request over HTTP/1.1 can reach it (a defensive
branch, a start-up error, a configuration the server's target description does not declare).
An entry names the file, the function and the first line of the block's source text, so it
survives edits that move lines. `--check` exits 1 when a block is neither executed nor allowed,
or an allowed entry names a block that no longer exists or now runs.

Usage: python tests/independent_plants/go_coverage.py [--out FILE] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.independent_plants import run_plants

HERE = Path(__file__).resolve().parent
ALLOWED = HERE / "go_coverage_allowed.json"
OUT = HERE / "go_coverage.json"

#: Added to the server's copy: flushes the counters when the runner stops the server with
#: SIGTERM (a server killed by a signal otherwise writes none).
FLUSH_ON_TERM = """package main

import (
\t"os"
\t"os/signal"
\t"runtime/coverage"
\t"syscall"
)

func init() {
\tch := make(chan os.Signal, 1)
\tsignal.Notify(ch, syscall.SIGTERM)
\tgo func() {
\t\t<-ch
\t\tdir := os.Getenv("GOCOVERDIR")
\t\t_ = coverage.WriteMetaDir(dir)
\t\t_ = coverage.WriteCountersDir(dir)
\t\tos.Exit(0)
\t}()
}
"""
FLUSH_FILE = "zz_coverage_flush.go"
#: One line of `go tool covdata textfmt`: file:startline.col,endline.col statements count.
BLOCK = re.compile(r"^.*/([\w.]+\.go):(\d+)\.\d+,(\d+)\.\d+ (\d+) (\d+)$")
FUNC_START = re.compile(r"^func (?:\([^)]*\) )?(\w+)")


@dataclass(frozen=True)
class Block:
    """A block of statements that never ran: where it is and its first line of source."""

    file: str
    function: str
    first: int
    last: int
    statements: int
    text: str
    #: How many earlier lines of the same function read the same (0 for the first).
    nth: int = 0

    def key(self) -> tuple[str, str, str, int]:
        return (self.file, self.function, self.text, self.nth)


def allowance_key(entry: dict[str, Any]) -> tuple[str, str, str, int]:
    """The block an allowance names: its file, function, first line of text and occurrence."""
    return (entry["file"], entry["function"], entry["text"], int(entry.get("nth", 0)))


def enclosing_function(lines: list[str], line: int) -> str:
    """The name of the top-level func declared at or above `line` (1-based)."""
    return _function_at(lines, line)[0]


def _function_at(lines: list[str], line: int) -> tuple[str, int]:
    """The top-level func declared at or above `line` (1-based), and the line it starts on."""
    for i in range(line - 1, -1, -1):
        found = FUNC_START.match(lines[i])
        if found:
            return found.group(1), i + 1
    return "(package)", 1


def occurrence(lines: list[str], line: int) -> int:
    """How many lines of the function holding `line`, above it, read as it does (stripped)."""
    _, start = _function_at(lines, line)
    text = lines[line - 1].strip()
    return sum(1 for i in range(start, line) if lines[i - 1].strip() == text)


def read_blocks(profile: Path, src: Path) -> tuple[int, int, list[Block]]:
    """Total and executed statements, and the blocks never executed, from a text profile."""
    total = covered = 0
    blocks: list[Block] = []
    sources: dict[str, list[str]] = {}
    for row in profile.read_text().splitlines()[1:]:
        found = BLOCK.match(row)
        if found is None or found.group(1) == FLUSH_FILE:
            continue
        name, first, last, stmts, count = found.groups()
        total += int(stmts)
        if int(count) > 0:
            covered += int(stmts)
            continue
        lines = sources.setdefault(name, (src / name).read_text().splitlines())
        text = lines[int(first) - 1].strip()
        function = enclosing_function(lines, int(first))
        nth = occurrence(lines, int(first))
        blocks.append(Block(name, function, int(first), int(last), int(stmts), text, nth))
    blocks.sort(key=lambda b: (b.file, b.first))
    return total, covered, blocks


def measure(go: str, work: Path) -> tuple[int, int, list[Block], int]:
    """Build the covered server, run the standard tier once, read the profile."""
    src = work / "src"
    data = work / "covdata"
    data.mkdir()
    cache = work / "gocache"
    shutil.copytree(run_plants.SERVER_DIR, src)
    (src / FLUSH_FILE).write_text(FLUSH_ON_TERM)
    binary = work / "mbserver"
    env = run_plants.go_env(cache)
    subprocess.run(
        [go, "build", "-cover", "-covermode=set", "-o", str(binary), "."],
        cwd=src, env=env, check=True, timeout=run_plants.BUILD_TIMEOUT_S, capture_output=True,
    )  # fmt: skip
    with run_plants.serving(binary, dict(env, GOCOVERDIR=str(data))) as url:
        results, _, said = run_plants.run_suite(url, work)
    if not results:
        raise RuntimeError(f"the suite could not test the covered server: {said}")
    failed = sum(1 for r in results if r["verdict"] in run_plants.FAILING)
    profile = work / "profile.txt"
    subprocess.run(
        [go, "tool", "covdata", "textfmt", "-i", str(data), "-o", str(profile)],
        cwd=src, env=env, check=True, timeout=60, capture_output=True,
    )  # fmt: skip
    total, covered, blocks = read_blocks(profile, src)
    return total, covered, blocks, failed


def compare(
    blocks: list[Block], allowed: list[dict[str, str]]
) -> tuple[list[Block], list[dict[str, str]]]:
    """Unexecuted blocks no entry allows, and entries that allow no unexecuted block."""
    keys = {allowance_key(a) for a in allowed}
    unexplained = [b for b in blocks if b.key() not in keys]
    present = {b.key() for b in blocks}
    stale = [a for a in allowed if allowance_key(a) not in present]
    return unexplained, stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the measurement")
    parser.add_argument("--check", action="store_true", help="exit 1 on an unexplained block")
    args = parser.parse_args(argv)
    go = run_plants.find_go()
    if go is None:
        print("no go binary on PATH or at /usr/local/go/bin/go", file=sys.stderr)
        return 3
    with tempfile.TemporaryDirectory(prefix="mbcover-") as tmp:
        total, covered, blocks, failed = measure(go, Path(tmp))
    allowed: list[dict[str, str]] = json.loads(ALLOWED.read_text())["allowed"]
    unexplained, stale = compare(blocks, allowed)
    reasons = {allowance_key(a): a["reason"] for a in allowed}
    out: dict[str, Any] = {
        "statements": total,
        "executed": covered,
        "percent": round(100 * covered / total, 1),
        "suite_failures_on_clean_server": failed,
        "unexecuted": [
            {
                "file": b.file, "function": b.function, "lines": [b.first, b.last],
                "statements": b.statements, "text": b.text,
                "allowed": reasons.get(b.key()),
            }
            for b in blocks
        ],
        "unexplained": len(unexplained),
        "stale_allowances": stale,
    }  # fmt: skip
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(
        f"{covered} of {total} statements executed ({out['percent']} %); "
        f"{len(blocks)} blocks never ran, {len(unexplained)} unexplained, "
        f"{len(stale)} stale allowances"
    )
    for b in unexplained:
        print(f"  {b.file}:{b.first} {b.function}: {b.text}")
    for a in stale:
        print(f"  stale: {a['file']} {a['function']}: {a['text']}")
    if args.check and (unexplained or stale or failed):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
