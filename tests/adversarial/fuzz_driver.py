"""The deep socket-fuzz run: ``python -m tests.adversarial.fuzz_driver --cases 1000000``.

Starts the reference server, a second reference server as the proxy's origin, and the proxy, each
as its own process (``python -m mixbatch serve`` / ``proxy``, loopback, ephemeral ports), then
feeds both front ends the same mutants (``_mutator``) through ``_fuzz.Fuzzer``. Cases come in
chunks of CHUNK, chunk ``k`` drawn from ``random.Random(f"{seed}:{k}")``, so a run is a pure
function of its seed and resumes at a chunk boundary from its state file (``--resume``). After
every chunk the driver checks that each peer still answers a normal batch, restarts one that died
(a ``crash`` finding), and records the peers' peak resident memory; a peak over MEMORY_BOUND is a
finding. The result, with every finding's minimal reproducer, goes to ``docs/results/fuzz.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ._case import NORMAL_REQUEST
from ._fuzz import Finding, Fuzzer, Peer, Tally
from ._mutator import load_seeds, mutate
from ._wire import exchange

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "docs" / "results" / "fuzz.json"
DEFAULT_STATE = ROOT / "reports" / "fuzz" / "state.json"
#: Cases per chunk: the unit of seeding, checkpointing and liveness checks.
CHUNK = 1000
#: Connections to each peer used side by side: the peers overlap one lane's waits with another's
#: work (the proxy's upstream round trips above all).
LANES = 6
#: A peer whose peak resident set passes this is a finding (the peers idle at about 40 MiB).
MEMORY_BOUND_KIB = 512 * 1024
#: Seconds a peer may take to start and announce its address.
START_TIMEOUT = 20.0


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[str]
    url: str

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.url.removeprefix("http://").rsplit(":", 1)
        return host, int(port)

    def peak_kib(self) -> int:
        try:
            status = Path(f"/proc/{self.popen.pid}/status").read_text()
        except OSError:
            return 0
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def cpu_s(self) -> float:
        """User plus system CPU seconds the process has used so far."""
        try:
            fields = Path(f"/proc/{self.popen.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)


def spawn(name: str, args: list[str]) -> Process:
    popen = subprocess.Popen(
        [sys.executable, "-m", "mixbatch", *args, "--port", "0", "--log-level", "ERROR"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert popen.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        line = popen.stdout.readline()
        if not line:
            break
        if "listening on " in line:
            url = line.split("listening on ", 1)[1].split()[0]
            return Process(name, popen, url)
    popen.kill()
    raise RuntimeError(f"{name} did not announce its address")


class Peers:
    """The three processes; ``restart`` brings back whichever died."""

    def __init__(self) -> None:
        self.server = spawn("server", ["serve"])
        self.origin = spawn("origin", ["serve"])
        self.proxy = spawn("proxy", ["proxy", "--upstream", self.origin.url])

    def all(self) -> list[Process]:
        return [self.server, self.origin, self.proxy]

    def dead(self) -> list[str]:
        down = [p.name for p in self.all() if p.popen.poll() is not None]
        for process in (self.server, self.proxy):
            if process.name in down:
                continue
            answer = exchange(process.address, NORMAL_REQUEST, timeout=5.0).first
            if answer is None or answer.status != 200:
                down.append(process.name)
        return down

    def restart(self) -> None:
        self.stop()
        self.__init__()  # type: ignore[misc]

    def stop(self) -> None:
        for process in self.all():
            process.stop()


def run(
    cases: int, seed: int, out: Path, state: Path, resume: bool, *, shrink: bool = True
) -> dict[str, object]:
    seeds = load_seeds()
    done, hits, elapsed, findings = 0, 0, 0.0, {}
    peak = {"server": 0, "proxy": 0, "origin": 0}
    cpu = {"server": 0.0, "proxy": 0.0, "origin": 0.0, "driver": 0.0}
    if resume and state.exists():
        saved = json.loads(state.read_text())
        if saved["seed"] == seed:
            done, hits, elapsed = saved["cases"], saved["hits"], saved["duration_s"]
            peak.update(saved["peak_rss_kib"])
            cpu.update(saved["cpu_s"])
            findings = {
                f["signature"]: Finding(
                    f["signature"],
                    f["count"],
                    f["reproducer"].encode("latin-1"),
                    f["framing_broken"],
                    f["seed_vector"],
                    tuple(f["edits"]),
                    f["first_case"],
                    f.get("example_verdicts", ""),
                )
                for f in saved["findings"]
            }
    cpu_base = dict(cpu)
    driver_base = time.process_time() - cpu["driver"]
    peers = Peers()
    tally = Tally(findings, done, hits)
    lanes = _lanes(peers, tally, shrink)
    started = time.monotonic() - elapsed
    try:
        while tally.cases < cases:
            chunk = tally.cases // CHUNK
            rng = random.Random(f"{seed}:{chunk}")
            count = min(CHUNK, cases - tally.cases)
            mutants = [mutate(rng, rng.choice(seeds)) for _ in range(count)]
            with ThreadPoolExecutor(LANES) as pool:
                runs = [
                    pool.submit(lane.run_many, mutants[i::LANES]) for i, lane in enumerate(lanes)
                ]
                for done_run in runs:
                    done_run.result()
            for process in peers.all():
                peak[process.name] = max(peak[process.name], process.peak_kib())
                cpu[process.name] = cpu_base[process.name] + process.cpu_s()
            down = peers.dead()
            if down:
                _record(tally, f"crash or wedge: {', '.join(down)} stopped answering", chunk)
                for lane in lanes:
                    lane.close()
                for process in peers.all():
                    cpu_base[process.name] = cpu[process.name]
                peers.restart()
                lanes = _lanes(peers, tally, shrink)
            cpu["driver"] = time.process_time() - driver_base
            result = _result(tally, seed, time.monotonic() - started, peak, cpu, cases)
            state.parent.mkdir(parents=True, exist_ok=True)
            state.write_text(json.dumps(result, indent=1))
            if chunk % 10 == 0:
                rate = tally.cases / max(1e-9, time.monotonic() - started)
                print(
                    f"{tally.cases} cases, {len(tally.findings)} findings, {rate:.0f}/s",
                    flush=True,
                )
    finally:
        for lane in lanes:
            lane.close()
        peers.stop()
    for name, kib in peak.items():
        if kib > MEMORY_BOUND_KIB:
            _record(tally, f"memory: {name} peaked at {kib} KiB", tally.cases)
    result = _result(tally, seed, time.monotonic() - started, peak, cpu, cases)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def _lanes(peers: Peers, tally: Tally, shrink: bool) -> list[Fuzzer]:
    return [
        Fuzzer(
            Peer("server", peers.server.address), Peer("proxy", peers.proxy.address), tally, shrink
        )
        for _ in range(LANES)
    ]


def _record(tally: Tally, signature: str, where: int) -> None:
    if signature in tally.findings:
        tally.findings[signature].count += 1
    else:
        tally.findings[signature] = Finding(signature, 1, b"", False, "", (), where)


def _result(
    tally: Tally,
    seed: int,
    duration: float,
    peak: dict[str, int],
    cpu: dict[str, float],
    planned: int,
) -> dict[str, object]:
    return {
        "tool": "tests.adversarial.fuzz_driver",
        "seed": seed,
        "chunk": CHUNK,
        "cases_planned": planned,
        "lanes": LANES,
        "cases": tally.cases,
        "complete": tally.cases >= planned,
        "duration_s": round(duration, 1),
        "cases_per_s": round(tally.cases / max(duration, 1e-9), 1),
        "hits": tally.hits,
        "findings_count": len(tally.findings),
        "finding_rate": round(tally.hits / max(tally.cases, 1), 6),
        "peak_rss_kib": peak,
        "memory_bound_kib": MEMORY_BOUND_KIB,
        "cpu_s": {name: round(value, 1) for name, value in cpu.items()},
        "findings": [f.as_json() for f in sorted(tally.findings.values(), key=lambda f: -f.count)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.adversarial.fuzz_driver")
    parser.add_argument("--cases", type=int, default=1_000_000, help="cases to run (1000000)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (1)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result JSON")
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE, help="checkpoint JSON")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument(
        "--no-shrink", action="store_true", help="keep each finding's first mutant unshrunk"
    )
    args = parser.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the peers are stopped and the checkpoint stays usable.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.cases < 1:
        parser.error(f"--cases must be positive, got {args.cases}")
    try:
        result = run(
            args.cases, args.seed, args.out, args.state, args.resume, shrink=not args.no_shrink
        )
    except KeyboardInterrupt:
        print(f"interrupted; --resume continues from {args.state}", file=sys.stderr)
        return 130
    print(
        f"{result['cases']} cases in {result['duration_s']} s: "
        f"{result['findings_count']} findings, finding rate {result['finding_rate']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
