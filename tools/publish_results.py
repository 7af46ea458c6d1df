"""Run the conformance suite against every implementation the docs list, and publish the
reports under docs/results/ (``make results``).

Each row of the docs' implementation matrix is one JSON report the suite wrote itself:
- ``reference.json``: the embedded reference server, standard tier;
- ``proxy.json``: ``mixbatch proxy`` in front of the reference server used as a plain origin,
  described as a proxy (its origin and its sub-request timeout) so the MB-PROXY checks run;
- ``asgi.json``: the Starlette app of tests/asgi wrapped by ``mixbatch.asgi.BatchMiddleware``;
- ``via-<scenario>.json``: the reference server behind each mitmproxy transform scenario;
- ``mutation.json``: the suite's self-test score, planted bugs caught by the checks meant
  for them;
- ``value-sweep.json``: every slot of the answers the checks read, corrupted in turn, and the
  first check that noticed (``mixbatch_conformance.run.value_sweep``);
- ``input-sweep.json``: every input the checks send, ignored in turn by a planted server, the
  first check that noticed and the first that noticed citing the input's requirement
  (``mixbatch_conformance.run.input_sweep``).
Every server it starts listens on 127.0.0.1 and is stopped when its run ends.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from mixbatch_conformance.core.target import reference_target
from mixbatch_conformance.run.input_sweep import sweep_reference as sweep_inputs
from mixbatch_conformance.run.selftest import mutation_score as judge_planted_bugs
from mixbatch_conformance.run.value_sweep import sweep_reference

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
PYTHON = sys.executable
LISTENING = re.compile(r"listening on (http://\S+)")
#: How long a started server may take to print its address.
START_TIMEOUT_S = 30.0
#: The published proxy's sub-request timeout: short, so that MB-PROXY-2's check (a part the
#: origin answers after this) costs seconds, and far above any other part's time.
PROXY_TIMEOUT_S = 2


def proxy_target(proxy: str, origin: str) -> dict[str, object]:
    """The target description of ``mixbatch proxy`` in front of the reference server."""
    described = reference_target(proxy)
    return {
        "name": "mixbatch proxy in front of the reference server",
        "base_url": proxy,
        "batch_endpoint": described.batch_endpoint,
        "resources": described.resources,
        "volatile_headers": [*described.volatile_headers, "Via"],
        "profiles": ["core", "error-policy", "limits", "conditional"],
        "proxy": {"origin": origin, "subrequest_timeout_ms": PROXY_TIMEOUT_S * 1000},
    }


@contextlib.contextmanager
def process_url(argv: list[str], pattern: re.Pattern[str] = LISTENING) -> Iterator[str]:
    """Start ``argv``, yield the URL it prints, and stop it afterwards."""
    proc = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            found = pattern.search(line)
            if found:
                # Keep draining the log, or the server blocks once the pipe is full.
                threading.Thread(target=proc.stdout.read, daemon=True).start()
                yield found.group(1)
                return
        raise RuntimeError(f"{argv[2:4]} exited before it printed its address")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def suite(name: str, args: list[str]) -> None:
    """Run the suite with ``args`` and copy its report.json to docs/results/NAME.json."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [
            PYTHON,
            "-m",
            "mixbatch",
            "conformance",
            "--report",
            tmp,
            "--no-progress",
            "--quiet",
            *args,
        ]
        code = subprocess.run(argv, cwd=ROOT, check=False).returncode
        report = next(Path(tmp).rglob("report.json"))
        shutil.copyfile(report, RESULTS / f"{name}.json")
        print(f"{name}: exit {code}")


def mutation_score() -> None:
    rows = [
        {
            "mutation": o.mutation.name,
            "breaks": o.mutation.breaks,
            "caught": o.caught,
            "verdicts": o.verdicts,
        }
        for o in judge_planted_bugs()
    ]
    caught = sum(bool(r["caught"]) for r in rows)
    doc = {
        "caught": caught,
        "planted": len(rows),
        "score": f"{caught}/{len(rows)}",
        "mutations": rows,
    }
    (RESULTS / "mutation.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(f"mutation score: {caught}/{len(rows)}")


def main() -> int:
    RESULTS.mkdir(parents=True, exist_ok=True)
    suite("reference", ["--tier", "standard"])
    with process_url(
        [PYTHON, "-m", "mixbatch", "serve", "--host", "127.0.0.1", "--port", "0"]
    ) as origin:
        with (
            process_url(
                [
                    PYTHON,
                    "-m",
                    "mixbatch",
                    "proxy",
                    "--upstream",
                    origin,
                    "--port",
                    "0",
                    "--timeout",
                    str(PROXY_TIMEOUT_S),
                    "--log-level",
                    "INFO",
                ],
                re.compile(r"(http://127\.0\.0\.1:\d+)"),
            ) as proxy,
            tempfile.TemporaryDirectory() as tmp,
        ):
            config = Path(tmp) / "proxy-target.json"
            config.write_text(json.dumps(proxy_target(proxy, origin)))
            suite(
                "proxy",
                ["--target", proxy, "--config", str(config), "--tier", "standard"],
            )
        with tempfile.TemporaryDirectory() as tmp:
            argv = [PYTHON, "-m", "mixbatch", "conformance", "--via", "all", "--target", origin]
            subprocess.run(
                [*argv, "--report", tmp, "--no-progress", "--quiet"], cwd=ROOT, check=False
            )
            for report in sorted(Path(tmp).glob("*/report.json")):
                shutil.copyfile(report, RESULTS / f"via-{report.parent.name}.json")
                print(f"via-{report.parent.name}: published")
    sys.path.insert(0, str(ROOT))
    from tests.asgi.test_conformance import TARGET, make_batched_app
    from tests.client.servers import uvicorn_server

    with uvicorn_server(make_batched_app()) as url, tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "target.json"
        config.write_text(json.dumps({**json.loads(TARGET.read_text()), "base_url": url}))
        suite("asgi", ["--target", url, "--config", str(config), "--tier", "smoke"])
    mutation_score()
    outcomes = sweep_reference(RESULTS / "value-sweep.json")
    print(f"value sweep: {sum(o.noticed_by is not None for o in outcomes)}/{len(outcomes)} noticed")
    inputs = sweep_inputs(RESULTS / "input-sweep.json")
    cited = sum(o.status == "cited" for o in inputs)
    print(f"input sweep: {cited}/{len(inputs)} noticed under their requirement")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
