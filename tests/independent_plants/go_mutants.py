"""Mutation testing of the suite: small mechanical mistakes in the independent Go server.

The blind sets are mistakes people imagined; this tool draws mistakes no one chose. Each mutant
changes one token on one line of `examples/go-server` that the standard tier executes (a
comparison, a boolean operator, an integer, a boolean result, or a header the server sets), is
built, served and measured with the standard tier like a planted patch. A mutant is *killed*
when a check FAILs that passed on the clean server; *untestable* when the preflight finds no
batch endpoint answering a one-part batch (the run exits 3, so no user would take the server
for a working one); and *survives* otherwise. A surviving mutant
is either equivalent (the change cannot be seen from outside: a constant nobody can reach, an
`<` where the values are never equal) or a gap in the suite; each is read and recorded as one
or the other in the results.

The draw is seeded and repeatable: the same seed, source and count give the same mutants.
Lines the standard tier never executes (go_coverage.json's blocks) are not mutated, since
go_coverage.py already lists them.

Usage: python tests/independent_plants/go_mutants.py [--count N] [--seed S] [--jobs 2]
       [--out FILE] [--only ID ...]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tests.independent_plants import go_coverage, run_plants

HERE = Path(__file__).resolve().parent
OUT = HERE / "mutants.json"
#: Files whose code serves requests; main.go only parses flags and tap.go only records heads.
SKIP_FILES = {"main.go", "tap.go"}

#: (name, pattern, replacement) applied to code outside string literals and comments.
OPERATORS: list[tuple[str, str, str]] = [
    ("eq-to-ne", r"==", "!="),
    ("ne-to-eq", r"!=", "=="),
    ("le-to-lt", r"<=", "<"),
    ("ge-to-gt", r">=", ">"),
    ("lt-to-le", r"(?<![<-])<(?![=<-])", "<="),
    ("gt-to-ge", r"(?<![>-])>(?![=>])", ">="),
    ("and-to-or", r"&&", "||"),
    ("or-to-and", r"\|\|", "&&"),
    ("int-plus-one", r"(?<![\w.])([1-9]\d*)(?![\w.])", "INC"),
    ("true-to-false", r"\breturn true\b", "return false"),
    ("false-to-true", r"\breturn false\b", "return true"),
]
#: A statement that sets a response field: dropping it is a mutant of its own.
SETS_FIELD = re.compile(r"^\s*(?:\w+\.)*(?:Header\(\)\.)?(?:Set|Add)\(\"[A-Za-z-]+\",")
STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\'(?:[^\'\\]|\\.)*\'|//.*$')


@dataclass(frozen=True)
class Mutant:
    """One change to one line of one file."""

    id: str
    file: str
    line: int
    operator: str
    before: str
    after: str


def code_spans(line: str) -> list[tuple[int, int]]:
    """The spans of `line` outside string and rune literals and comments."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for found in STRING_OR_COMMENT.finditer(line):
        spans.append((pos, found.start()))
        pos = found.end()
    spans.append((pos, len(line)))
    return spans


def candidates(src: Path, unexecuted: set[tuple[str, int]]) -> list[Mutant]:
    """Every mutant of every executed line of the server's request-serving files."""
    out: list[Mutant] = []
    for path in sorted(src.glob("*.go")):
        if path.name.endswith("_test.go") or path.name in SKIP_FILES:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.strip()
            if (path.name, number) in unexecuted or not stripped or stripped.startswith("//"):
                continue
            if stripped.startswith(("import", "package", "const", "var", "type", "func")):
                continue
            if SETS_FIELD.match(line):
                out.append(mutant(path.name, number, "drop-field", line, "// " + stripped))
            for start, end in code_spans(line):
                for name, pattern, repl in OPERATORS:
                    for found in re.finditer(pattern, line[start:end]):
                        a, b = start + found.start(), start + found.end()
                        new = str(int(found.group(0)) + 1) if repl == "INC" else repl
                        out.append(mutant(path.name, number, name, line, line[:a] + new + line[b:]))
    return out


def mutant(file: str, line: int, operator: str, before: str, after: str) -> Mutant:
    col = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), 0)
    return Mutant(f"{file[:-3]}-{line}-{col}-{operator}", file, line, operator, before, after)


def unexecuted_lines(coverage: Path) -> set[tuple[str, int]]:
    """Lines inside blocks the standard tier never executed, from go_coverage.json."""
    found = json.loads(coverage.read_text())
    return {
        (u["file"], n) for u in found["unexecuted"] for n in range(u["lines"][0], u["lines"][1] + 1)
    }


def build_mutant(go: str, m: Mutant, work: Path, cache: Path) -> Path | None:
    """Copy the server, apply `m` and build; None when the mutant does not compile."""
    src = work / "src"
    shutil.copytree(run_plants.SERVER_DIR, src)
    path = src / m.file
    lines = path.read_text().split("\n")
    assert lines[m.line - 1] == m.before, m.id
    lines[m.line - 1] = m.after
    path.write_text("\n".join(lines))
    binary = work / "mbserver"
    done = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=src, env=run_plants.go_env(cache), timeout=run_plants.BUILD_TIMEOUT_S,
        capture_output=True,
    )  # fmt: skip
    return binary if done.returncode == 0 else None


def draw(pool: list[Mutant], count: int, seed: int) -> Iterator[Mutant]:
    """`pool` in a seeded order; the caller takes mutants until `count` of them compile."""
    order = list(pool)
    random.Random(seed).shuffle(order)
    yield from order[: count * 3]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20, help="compiling mutants to measure")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (1 or 2)")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the results")
    parser.add_argument("--only", nargs="*", default=None, help="mutant ids to run")
    parser.add_argument("--coverage", type=Path, default=go_coverage.OUT)
    args = parser.parse_args(argv)
    go = run_plants.find_go()
    if go is None:
        print("no go binary on PATH or at /usr/local/go/bin/go", file=sys.stderr)
        return 3
    pool = candidates(run_plants.SERVER_DIR, unexecuted_lines(args.coverage))
    if args.only:
        chosen: list[Mutant] = [m for m in pool if m.id in args.only]
    else:
        chosen = list(draw(pool, args.count, args.seed))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mbmutant-cache-") as cache_dir:
        cache = Path(cache_dir)
        clean = run_plants.measure(go, None, cache)
        noisy = {r["check_id"] for r in clean[0] if r["verdict"] not in {"PASS", "N/A", "INFO"}}
        compiled: list[Mutant] = []
        with tempfile.TemporaryDirectory(prefix="mbmutant-build-") as tmp:
            for m in chosen:
                if len(compiled) >= (len(chosen) if args.only else args.count):
                    break
                if build_mutant(go, m, Path(tmp) / m.id, cache) is not None:
                    compiled.append(m)

        def one(m: Mutant) -> dict[str, Any]:
            t0 = time.monotonic()
            with tempfile.TemporaryDirectory(prefix="mbmutant-") as tmp:
                binary = build_mutant(go, m, Path(tmp), cache)
                assert binary is not None
                with run_plants.serving(binary) as url:
                    results, code, said = run_plants.run_suite(url, Path(tmp))
            failing = sorted(
                r["check_id"]
                for r in results
                if r["verdict"] in run_plants.FAILING and r["check_id"] not in noisy
            )
            verdict = {
                **asdict(m),
                "killed_by": failing,
                "killed": bool(failing),
                "untestable": not results or code == run_plants.CANNOT_TEST,
                "exit_code": code,
                "seconds": round(time.monotonic() - t0, 1),
                **({"could_not_test": said} if not results else {}),
            }
            untestable = not results or code == run_plants.CANNOT_TEST
            mark = "killed" if failing else "untestable" if untestable else "SURVIVED"
            print(f"{m.id}: {mark} {failing[:3]}", flush=True)
            return verdict

        with ThreadPoolExecutor(max_workers=max(1, min(args.jobs, 2))) as pool_x:
            verdicts = list(pool_x.map(one, compiled))
    killed = sum(1 for v in verdicts if v["killed"])
    summary = {
        "seed": args.seed,
        "candidates": len(pool),
        "measured": len(verdicts),
        "killed": killed,
        "untestable": [v["id"] for v in verdicts if v["untestable"]],
        "survived": [v["id"] for v in verdicts if not v["killed"] and not v["untestable"]],
        "clean_not_pass": sorted(noisy),
        "seconds": round(time.monotonic() - started, 1),
    }
    args.out.write_text(json.dumps({"summary": summary, "mutants": verdicts}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
