"""Measure the conformance suite's power on violations planted by someone who had not read its checks.

Each plant is one patch to an independent server that breaks one server requirement the way a
competent implementer might (plants.json: id, requirement, keyword, description, patch, and
`server` where it is not "go"). The server is the Go one (examples/go-server) unless the plants
name the Node one (examples/node-server), the Rust one (examples/rust-server), the Java one
(examples/java-server), the Python one (examples/python-server) or the C++ one
(examples/cpp-server), or --server does; a patch's paths are relative to that server's folder.
For each plant the runner copies the server into a scratch directory, applies the patch, builds
it (Go: `go build`; Node: `node --check` of each .js file; Rust: `cargo build --release
--offline`; Java: `javac --release 17`; Python: byte-compiling each module; C++: its
build.sh), starts
it on a free loopback port (`-addr 127.0.0.1:0`, `--port 0`), reads the URL from its first line (`mbserver listening on URL`) and
runs the suite at standard tier against it with the server's own target description, its
base_url replaced. The unpatched copy runs first: every check that is not PASS there (a WARN for
a SHOULD it already misses) is left out of the judgement, and any FAIL on it is a false failure.

A plant is *caught by requirement* when a check citing the broken requirement (declaring it, or
naming it in a broken expectation) FAILs, or, for a
SHOULD, WARNs (the verdict --strict turns into a failing run); it is *caught at all* when any
check FAILs. The outcome goes to results.json next to this file (or --results). Another set of
plants is run with --index; its patch paths are relative to that index's directory.

Usage: python tests/independent_plants/run_plants.py [--server {cpp,go,java,node,python,rust}] [--only ID ...]
       [--jobs N] [--index FILE] [--results FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
#: The independent servers a plant may patch, by --server name.
SERVERS = {
    "go": REPO / "examples" / "go-server",
    "node": REPO / "examples" / "node-server",
    "rust": REPO / "examples" / "rust-server",
    "java": REPO / "examples" / "java-server",
    "python": REPO / "examples" / "python-server",
    "cpp": REPO / "examples" / "cpp-server",
}
#: The Go server, which go_coverage and go_mutants build.
SERVER_DIR = SERVERS["go"]
INDEX = HERE / "plants.json"
RESULTS = HERE / "results.json"
FALLBACK_GO = Path("/usr/local/go/bin/go")
FALLBACK_CARGO = Path.home() / ".cargo" / "bin" / "cargo"
READY_PREFIX = "mbserver listening on "
BUILD_TIMEOUT_S = 180
START_TIMEOUT_S = 10
# The clean server takes about 70 s at standard tier. A plant that makes batches wait out the
# server's time budget takes longer: round 7's plant 29 (results matched by a repeated Content-Id)
# takes about 470 s, and is caught.
SUITE_TIMEOUT_S = 900
#: The suite's exit status when it could not test the server (the preflight found no batch
#: endpoint answering a one-part batch).
CANNOT_TEST = 3
#: The exit status recorded for a suite run stopped at SUITE_TIMEOUT_S (timeout(1)'s).
SUITE_TIMED_OUT = 124
# Verdicts that say a check judged the target non-conformant.
FAILING = {"FAIL", "FLAKY"}
# Verdicts that say the suite could not judge a check (not counted as caught).
ERRORS = {"SETUP-ERROR", "HARNESS-ERROR", "TIMEOUT"}
WEAK_KEYWORDS = {"SHOULD", "SHOULD NOT"}


def find_go() -> str | None:
    """The go binary on PATH, or the toolchain's usual install path."""
    found = shutil.which("go")
    if found is not None:
        return found
    return str(FALLBACK_GO) if FALLBACK_GO.is_file() else None


def find_cargo() -> str | None:
    """The cargo binary on PATH, or rustup's usual install path."""
    found = shutil.which("cargo")
    if found is not None:
        return found
    return str(FALLBACK_CARGO) if FALLBACK_CARGO.is_file() else None


def find_tool(server: str) -> str | None:
    """What builds `server` (go, cargo, javac, g++) or runs it (node): its binary, or None when
    there is none (for Java, when javac or java is missing)."""
    if server == "go":
        return find_go()
    if server == "java":
        return shutil.which("javac") if shutil.which("java") else None
    if server == "cpp":
        return shutil.which("g++")
    if server == "python":
        # The suite's own interpreter: the server needs Python 3.12 and its standard library.
        return sys.executable
    return find_cargo() if server == "rust" else shutil.which("node")


def go_env(cache: Path) -> dict[str, str]:
    """Modules from go.mod only, no toolchain download, a build cache under `cache`."""
    return dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", GOCACHE=str(cache))


def build(tool: str, patch: Path | None, work: Path, cache: Path, server: str = "go") -> list[str]:
    """Copy `server` to `work`, apply `patch` and build it with `tool` (go, or node, which only
    checks each .js file's syntax); returns the command that starts it on a free port."""
    src = work / "src"
    # Without a build of the original's own (a stale object file would outlive the patch).
    shutil.copytree(SERVERS[server], src, ignore=shutil.ignore_patterns("build", "target"))
    if patch is not None:
        subprocess.run(["git", "apply", str(patch)], cwd=src, check=True, timeout=30)
    if server == "node":
        for script in sorted(src.rglob("*.js")):
            subprocess.run(
                [tool, "--check", str(script)], check=True, timeout=30, capture_output=True
            )
        return [tool, str(src / "server.js"), "--port", "0"]
    if server == "python":
        subprocess.run(
            [tool, "-m", "py_compile", *map(str, sorted(src.rglob("*.py")))],
            check=True,
            timeout=BUILD_TIMEOUT_S,
            capture_output=True,
        )
        # `python -m mbserver` from the copy, whatever the runner's working directory.
        start = f"import runpy, sys; sys.path.insert(0, {str(src)!r}); "
        start += "runpy.run_module('mbserver', run_name='__main__', alter_sys=True)"
        return [tool, "-c", start, "--port", "0"]
    if server == "rust":
        subprocess.run(
            [tool, "build", "--release", "--offline", "--quiet"],
            cwd=src,
            env=dict(os.environ, CARGO_TARGET_DIR=str(work / "target")),
            check=True,
            timeout=BUILD_TIMEOUT_S,
            capture_output=True,
        )
        return [str(work / "target" / "release" / "mbserver"), "--port", "0"]
    if server == "cpp":
        # build.sh compiles with g++ (CXX) into the copy's build/ folder.
        subprocess.run(
            ["sh", "build.sh"],
            cwd=src,
            env=dict(os.environ, CXX=tool),
            check=True,
            timeout=BUILD_TIMEOUT_S,
            capture_output=True,
        )
        return [str(src / "build" / "mbserver"), "--port", "0"]
    if server == "java":
        classes = work / "classes"
        subprocess.run(
            [tool, "--release", "17", "-d", str(classes), *map(str, sorted(src.rglob("*.java")))],
            check=True,
            timeout=BUILD_TIMEOUT_S,
            capture_output=True,
        )
        return ["java", "-cp", str(classes), "mbserver.Main", "--port", "0"]
    binary = work / "mbserver"
    subprocess.run(
        [tool, "build", "-o", str(binary), "."],
        cwd=src,
        env=go_env(cache),
        check=True,
        timeout=BUILD_TIMEOUT_S,
        capture_output=True,
    )
    return [str(binary), "-addr", "127.0.0.1:0"]


@contextmanager
def serving(command: Path | list[str], env: dict[str, str] | None = None) -> Iterator[str]:
    """Start the server on a free loopback port (with `env`, when given); yields its URL.
    `command` is what `build` returned, or a Go binary, started with `-addr 127.0.0.1:0`."""
    argv = [str(command), "-addr", "127.0.0.1:0"] if isinstance(command, Path) else command
    proc = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith(READY_PREFIX):
            raise RuntimeError(f"unexpected first line {line!r}")
        yield line.removeprefix(READY_PREFIX).split()[0]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def run_suite(url: str, work: Path, server: str = "go") -> tuple[list[dict[str, Any]], int, str]:
    """Run the standard tier against `url` with `server`'s target description; returns the
    report's results, the exit status and the last line the suite printed (the reason, when it
    could not test)."""
    target = json.loads((SERVERS[server] / "target.json").read_text())
    target["base_url"] = url
    config = work / "target.json"
    config.write_text(json.dumps(target))
    report = work / "report"
    try:
        done = subprocess.run(
            [
                sys.executable, "-m", "mixbatch", "conformance", "--config", str(config),
                "--tier", "standard", "--seed", "1", "--replays", "0", "--report", str(report),
                "--no-progress", "--quiet",
            ],
            capture_output=True,
            text=True,
            timeout=SUITE_TIMEOUT_S,
            cwd=REPO,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        # A run that never ends tested nothing: the plant counts as not caught, with the reason,
        # and the other plants are still measured.
        return [], SUITE_TIMED_OUT, f"the suite did not finish within {SUITE_TIMEOUT_S} s"
    lines = (done.stdout + done.stderr).strip().splitlines()
    said = lines[-1] if lines else ""
    path = report / "report.json"
    results: list[dict[str, Any]] = json.loads(path.read_text())["results"] if path.exists() else []
    return results, done.returncode, said


def measure(
    tool: str, patch: Path | None, cache: Path, server: str = "go"
) -> tuple[list[dict[str, Any]], int, str]:
    """Build `server` (with `patch`), serve it and run the suite once."""
    with tempfile.TemporaryDirectory(prefix="mbplant-") as tmp:
        work = Path(tmp)
        command = build(tool, patch, work, cache, server)
        with serving(command) as url:
            return run_suite(url, work, server)


def judge(
    plant: dict[str, Any], run: tuple[list[dict[str, Any]], int, str], noisy: set[str]
) -> dict[str, Any]:
    """Whether the suite caught `plant`, leaving out checks that were not PASS on the clean copy.
    A run that could not test (exit 3, no results) catches nothing; its reason is kept."""
    results, code, said = run
    weak = plant["keyword"] in WEAK_KEYWORDS
    by_req: list[str] = []
    any_fail: list[str] = []
    errors: list[str] = []
    for r in results:
        if r["check_id"] in noisy:
            continue
        if r["verdict"] in FAILING:
            any_fail.append(r["check_id"])
        elif r["verdict"] in ERRORS:
            errors.append(f"{r['check_id']}:{r['verdict']}")
        # A check cites a requirement it declares, or one its broken expectations name.
        cites = plant["requirement"] in (*r["requirements"], *r.get("broken_requirements", ()))
        if cites and (r["verdict"] in FAILING or (weak and r["verdict"] == "WARN")):
            by_req.append(r["check_id"])
    return {
        "id": plant["id"],
        "requirement": plant["requirement"],
        "caught_by_requirement": sorted(by_req),
        "any_fail": sorted(any_fail),
        "errors": sorted(errors),
        "caught": bool(by_req) or bool(any_fail),
        "exit_code": code,
        **({"could_not_test": said} if not results else {}),
    }


def server_of(plants: list[dict[str, Any]], given: str | None) -> str:
    """The server a set's plants patch: the one each plant names (`server`, "go" when absent),
    which must be the same for all and agree with `given` (--server) when that is set."""
    named = {p.get("server", "go") for p in plants} or {given or "go"}
    if len(named) != 1:
        raise ValueError(f"the plants patch different servers: {sorted(named)}")
    server = named.pop()
    if given is not None and given != server:
        raise ValueError(f"--server {given}, but the plants patch the {server} server")
    if server not in SERVERS:
        raise ValueError(f"unknown server {server!r}")
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--server",
        choices=sorted(SERVERS),
        default=None,
        help="the server the plants patch (default: the one the index names, else go)",
    )
    parser.add_argument("--only", nargs="*", default=None, help="plant ids to run")
    parser.add_argument("--jobs", type=int, default=1, help="plants run at once (1 or 2)")
    parser.add_argument("--index", type=Path, default=INDEX, help="the plants index to run")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write results")
    args = parser.parse_args(argv)
    plants: list[dict[str, Any]] = json.loads(args.index.read_text())
    try:
        args.server = server_of(plants, args.server)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    tool = find_tool(args.server)
    if tool is None:
        where = {
            "go": f"on PATH or at {FALLBACK_GO}",
            "rust": f"(cargo) on PATH or at {FALLBACK_CARGO}",
        }.get(args.server, "on PATH")
        print(f"no {args.server} binary {where}", file=sys.stderr)
        return 3
    patches = args.index.resolve().parent
    if args.only:
        plants = [p for p in plants if p["id"] in args.only]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mbplant-cache-") as cache_dir:
        cache = Path(cache_dir)
        clean, _, _ = measure(tool, None, cache, args.server)
        false_failures = sorted(r["check_id"] for r in clean if r["verdict"] in FAILING)
        noisy = {r["check_id"] for r in clean if r["verdict"] not in {"PASS", "N/A", "INFO"}}

        def one(plant: dict[str, Any]) -> dict[str, Any]:
            t0 = time.monotonic()
            patch = patches / plant["patch"]
            verdict = judge(plant, measure(tool, patch, cache, args.server), noisy)
            verdict["seconds"] = round(time.monotonic() - t0, 1)
            mark = "caught" if verdict["caught_by_requirement"] else "MISSED"
            print(
                f"{plant['id']}: {mark} {verdict['caught_by_requirement'] or verdict['any_fail']}"
            )
            return verdict

        with ThreadPoolExecutor(max_workers=max(1, min(args.jobs, 2))) as pool:
            verdicts = list(pool.map(one, plants))
    caught_req = sum(1 for v in verdicts if v["caught_by_requirement"])
    caught_any = sum(1 for v in verdicts if v["caught"])
    summary = {
        "plants": len(verdicts),
        "caught_by_requirement": caught_req,
        "caught_at_all": caught_any,
        "missed": [v["id"] for v in verdicts if not v["caught"]],
        "caught_only_by_other_checks": [
            v["id"] for v in verdicts if v["caught"] and not v["caught_by_requirement"]
        ],
        "clean_false_failures": false_failures,
        "clean_not_pass": sorted(noisy),
        "seconds": round(time.monotonic() - started, 1),
    }
    args.results.write_text(json.dumps({"summary": summary, "plants": verdicts}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0 if not false_failures else 1


if __name__ == "__main__":
    sys.exit(main())
