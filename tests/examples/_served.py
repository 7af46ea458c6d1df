"""An outside server started for a test, and the suite's standard tier run against it.

Both example servers print "mbserver listening on http://127.0.0.1:PORT" as their first line
when started on port 0; the suite runs as a subprocess with a copy of the server's target
description pointed at that URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mixbatch_conformance.transport.embedded import EMBEDDED_BATCH_TIMEOUT_MS

REPO = Path(__file__).resolve().parents[2]
#: The whole-batch time limit each outside server is started with here, and declared in the copy
#: of its target description: the embedded reference server's own. A dozen checks wait a budget
#: out (two of them several times), so the servers' defaults (4 s, 5 s, 8 s) would spend a minute
#: or more of each run waiting; every check that a longer budget lets run also runs under this one.
BATCH_TIMEOUT_MS = EMBEDDED_BATCH_TIMEOUT_MS
# The first line the server prints, "mbserver listening on http://127.0.0.1:PORT".
READY_PREFIX = "mbserver listening on "
START_TIMEOUT_S = 10


@contextmanager
def served(argv: list[str], cwd: Path | None = None) -> Iterator[str]:
    """Start the server `argv` on a free loopback port; yields its URL."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(READY_PREFIX), f"unexpected first line {line!r}"
        yield line.removeprefix(READY_PREFIX).strip()
    finally:
        proc.terminate()
        proc.wait(timeout=START_TIMEOUT_S)
        if proc.stdout is not None:
            proc.stdout.close()


#: The outside servers make test leaves to `make deep`, whole: the standard tier against six
#: servers was over a third of make test's CPU on 2 cores. make test keeps the three that differ
#: most (Python on its own HTTP codec with every profile, Go on net/http, Rust with its own
#: smaller limits); make deep runs all six, and these three with every check.
DEEP_ONLY_SERVERS_REASON = (
    "make test runs the standard tier against the Python, Go and Rust servers; this one runs "
    "with --mixbatch-tier deep (make deep)"
)


def deep_only(mixbatch_tier: str) -> None:
    """Skip, unless the run is the deep tier's."""
    if mixbatch_tier != "deep":
        pytest.skip(DEEP_ONLY_SERVERS_REASON)


#: The checks whose cost grows with the published size limits: batches and parts at and one
#: octet past `max_batch_bytes` and `max_part_bytes` (64 MiB and 16 MiB for most of these
#: servers), answers over 16 MiB, bodies of the largest declared size. They are a fifth of a
#: standard run's wall time and two fifths of its CPU (client and server) against the Python
#: server, and make test runs six such servers on 2 cores beside everything else; there the
#: standard tier runs without them (the reference server's and the proxy's runs keep them),
#: and `make deep` runs them against every server (`test_size_limit_checks_pass`).
SIZE_LIMIT_CHECKS = (
    "limit-batch-bytes",
    "limit-part-bytes",
    "part-bytes-counted-per-part",
    "answers-over-16-mib-every-form",
    "random-sizes-at-declared-largest",
)


def standard_tier(
    target_file: Path,
    url: str,
    tmp_path: Path,
    timeout_s: float,
    *,
    skip: tuple[str, ...] = SIZE_LIMIT_CHECKS,
    only: tuple[str, ...] = (),
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    """Run the standard tier (without `skip`, or only `only`) against `url` with
    `target_file`'s description (its `batch_timeout_ms` set to BATCH_TIMEOUT_MS); the report's
    results and the finished process."""
    target = json.loads(target_file.read_text())
    target["base_url"] = url
    target["batch_timeout_ms"] = BATCH_TIMEOUT_MS
    config = tmp_path / "target.json"
    config.write_text(json.dumps(target))
    report = tmp_path / "report"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "mixbatch", "conformance", "--config", str(config)),
            *("--tier", "standard", "--seed", "1", "--replays", "0", "--report", str(report)),
            *("--no-progress", "--quiet"),
            *(("--skip", *skip) if skip and not only else ()),
            *(("--only", *only) if only else ()),
        ],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=REPO,
    )
    return json.loads((report / "report.json").read_text())["results"], result


def assert_standard_tier_passes(
    target_file: Path,
    url: str,
    tmp_path: Path,
    timeout_s: float,
    *,
    sizes: bool = False,
    whole: bool = False,
) -> None:
    """The standard tier against `url` ends with no FAIL or FLAKY, no check it could not judge
    (SETUP-ERROR, HARNESS-ERROR, TIMEOUT), and exit status 0: without SIZE_LIMIT_CHECKS, with
    `sizes` those checks alone, with `whole` every check."""
    only = SIZE_LIMIT_CHECKS if sizes else ()
    skip = () if whole else SIZE_LIMIT_CHECKS
    results, result = standard_tier(target_file, url, tmp_path, timeout_s, only=only, skip=skip)
    assert len(results) > (len(SIZE_LIMIT_CHECKS) if sizes else 900), len(results)
    failed = sorted(r["check_id"] for r in results if r["verdict"] in {"FAIL", "FLAKY"})
    errors = sorted(
        f"{r['check_id']}: {r['verdict']}"
        for r in results
        if r["verdict"] in {"SETUP-ERROR", "HARNESS-ERROR", "TIMEOUT"}
    )
    told = _told(results, tmp_path / "report")
    assert failed == [], f"checks failed: {failed}\n{told}\n{result.stdout[-2000:]}"
    assert errors == [], f"checks could not judge: {errors}\n{told}"
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


#: Octets of each unjudged or failed check's message kept in an assertion's text.
TOLD_OCTETS = 3000


def _told(results: list[dict[str, Any]], report: Path) -> str:
    """What the report says of each check that did not pass or judge: its message, its failed
    expectations and its case's notes (a traceback for a HARNESS-ERROR), so that a failure in
    CI, where the report is gone with the run, can be read from the log alone."""
    bad = {"FAIL", "FLAKY", "SETUP-ERROR", "HARNESS-ERROR", "TIMEOUT"}
    out = []
    for r in results:
        if r["verdict"] not in bad:
            continue
        case = report / "cases" / r["check_id"] / "case.json"
        notes = json.loads(case.read_text()).get("notes", []) if case.is_file() else []
        told = "\n".join([str(r.get("message")), r.get("actual_outcome", ""), *map(str, notes)])
        out.append(f"--- {r['check_id']} ({r['verdict']})\n{told[-TOLD_OCTETS:]}")
    return "\n".join(out)


#: Seconds a server's own vector check may take over the spec's request vectors.
VECTOR_CHECK_TIMEOUT_S = 60


def assert_vector_check_passes(argv: list[str], cwd: Path | None = None) -> None:
    """A server's own check of the spec's request vectors (`argv`, given the examples folder)
    passes, so a plant or an edit that breaks its envelope parser is seen before the suite
    runs."""
    done = subprocess.run(
        [*argv, str(REPO / "spec" / "examples")],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=VECTOR_CHECK_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
