"""``--via SCENARIO[,SCENARIO...]``: run the suite (or a throughput probe) through mitmproxy.

``run_via(argv, suite_main)`` takes the suite's own arguments plus ``--via`` and ``--target``,
and the suite to run (the command line composes the two and passes its own ``main``): for each
scenario it starts mitmdump in front of the target (``start_mitmdump``), calls ``suite_main``
with ``--target`` pointing at mitmdump, and returns the worst exit status. ``--via all``
means every transform scenario, ``--via faults`` every fault scenario. TLS scenarios (h2) are
skipped for the suite, whose raw client speaks cleartext HTTP/1.1 only; ``measure`` covers them.

Names of real intermediaries (``nginx``, ``haproxy:gzip``, ``nginx:all``, ``real``; see
``intermediaries.real``) run the suite through that program instead (``real._rows``); they
need no ``--target``: without one the reference server is started as their origin.

``measure(url, ...)`` sends one fixed batch of ``parts`` GET parts ``iterations`` times and
returns batches/s, parts/s and the batch properties it saw broken (status, part count, order by
Content-Id echo, completeness), decoding any content coding first (MB-INTER-2).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Judged with the suite's own validator, never the reference codec, so a codec bug cannot
# hide an intermediary's.
from mixbatch_conformance.core.context import SubRequest, compose_batch
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.intermediaries import FAULTS, SCENARIOS, TRANSFORMS, scenario
from mixbatch_conformance.intermediaries._launcher import start_mitmdump
from mixbatch_conformance.intermediaries.real._rows import is_row, rows_from, run_rows

__all__ = ["Measurement", "measure", "run_via", "scenarios_from"]


def scenarios_from(text: str) -> list[str]:
    """Scenario names from ``a,b``, ``all`` (transforms) or ``faults``; ValueError if unknown."""
    names: list[str] = []
    for item in (t.strip() for t in text.split(",") if t.strip()):
        if is_row(item):
            continue
        if item == "all":
            names.extend(TRANSFORMS)
        elif item == "faults":
            names.extend(FAULTS)
        else:
            names.append(scenario(item).name)
    return list(dict.fromkeys(names))


@dataclass
class Measurement:
    scenario: str
    iterations: int
    parts: int
    seconds: float
    broken: set[str] = field(default_factory=set)

    @property
    def batches_per_s(self) -> float:
        return self.iterations / self.seconds if self.seconds else 0.0

    @property
    def parts_per_s(self) -> float:
        return self.iterations * self.parts / self.seconds if self.seconds else 0.0


def _decode(coding: str | None, data: bytes) -> bytes:
    if coding is None or coding.strip().lower() in ("", "identity"):
        return data
    if coding.strip().lower() == "gzip":
        return gzip.decompress(data)
    if coding.strip().lower() == "deflate":
        return zlib.decompress(data)
    raise ValueError(f"unsupported content coding {coding!r}")


def measure(
    url: str,
    name: str = "direct",
    *,
    parts: int = 100,
    iterations: int = 20,
    target: Callable[[int], str] = lambda n: f"/status/{200 + n % 5}",
    verify: str | bool = True,
    http2: bool = False,
) -> Measurement:
    """Throughput and broken properties for one fixed batch sent ``iterations`` times."""
    # httpx takes about 0.4 s to import and only --measure needs it, not every suite run.
    import httpx

    boundary = "mb-via-measure-0123456789"
    ids = [target(n) for n in range(parts)]
    body = compose_batch([SubRequest("GET", i) for i in ids], boundary)
    headers = {
        "Content-Type": f"multipart/mixed; boundary={boundary}",
        "Accept-Encoding": "gzip",
    }
    result = Measurement(name, iterations, parts, 0.0)
    with httpx.Client(timeout=30, verify=verify, http2=http2) as client:
        started = time.perf_counter()
        for _ in range(iterations):
            with client.stream(
                "POST", url.rstrip("/") + "/batch", content=body, headers=headers
            ) as r:
                raw = b"".join(r.iter_raw())
            if r.status_code != 200:
                result.broken.add(f"status {r.status_code}")
                continue
            content = _decode(r.headers.get("content-encoding"), raw)
            _, params = parse_media_type(r.headers.get("content-type", ""))
            envelope = read_multipart(content, params.get("boundary", ""))
            if not envelope.complete:
                result.broken.add("completeness")
            elif envelope.fatal:
                result.broken.add("framing")
            seen = [(part.get_all("Content-Id") or [""])[0].strip("<>") for part in envelope.parts]
            if len(seen) != parts:
                result.broken.add("part-count")
            if seen[: len(ids)] != ids[: len(seen)]:
                result.broken.add("order")
        result.seconds = time.perf_counter() - started
    return result


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mixbatch conformance --via", add_help=False)
    p.add_argument("--via", required=True, help="scenario[,scenario...], all, or faults")
    p.add_argument("--target", help="base URL of the server behind the proxy")
    p.add_argument("--measure", type=int, metavar="N", help="send a 100-part batch N times instead")
    return p


def _per_scenario(rest: list[str], name: str) -> list[str]:
    """The suite's own options, with ``--report DIR`` made ``DIR/<scenario>`` so that one
    scenario's report does not overwrite another's."""
    out = list(rest)
    for i, arg in enumerate(out):
        if arg == "--report" and i + 1 < len(out):
            out[i + 1] = str(Path(out[i + 1]) / name)
        elif arg.startswith("--report="):
            out[i] = f"--report={Path(arg.removeprefix('--report=')) / name}"
    return out


def run_via(argv: Sequence[str], suite_main: Callable[[list[str]], int]) -> int:
    """Run ``suite_main`` (the suite's command line) through each scenario, with ``--target``
    pointing at that scenario's proxy; returns the worst exit status (2 on bad usage)."""
    known, rest = _parser().parse_known_args(list(argv))
    items = [t.strip() for t in known.via.split(",") if t.strip()]
    try:
        names = scenarios_from(known.via)
        rows = rows_from([i for i in items if is_row(i)])
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not names and not rows:
        print("error: --via names no scenario", file=sys.stderr)
        return 2
    if names and known.target is None:
        print("error: --via SCENARIO needs --target (the server behind the proxy)", file=sys.stderr)
        return 2
    worst = 0
    if rows:
        if known.measure:
            print("error: --measure runs through mitmproxy scenarios only", file=sys.stderr)
            return 2
        worst = run_rows(rows, known.target, rest, suite_main)
    for name in names:
        chosen = SCENARIOS[name]
        with start_mitmdump(known.target, chosen) as via:
            if known.measure:
                m = measure(
                    via, name, iterations=known.measure, verify=str(via.ca_path), http2=chosen.tls
                )
                print(
                    f"via {name}: {m.batches_per_s:.1f} batches/s, {m.parts_per_s:.0f} parts/s, "
                    f"broken: {', '.join(sorted(m.broken)) or 'nothing'}"
                )
                continue
            if chosen.tls:
                print(f"via {name}: skipped; the suite's client speaks cleartext HTTP/1.1 only")
                continue
            print(f"via {name} ({chosen.kind}): {chosen.summary}; testing {via}")
            code = suite_main(
                [
                    "--target",
                    str(via),
                    "--baseline",
                    known.target,
                    "--via-scenario",
                    name,
                    *_per_scenario(rest, name),
                ]
            )
            if chosen.kind == "fault" and chosen.breaks and code == 0:
                print(
                    f"via {name}: the suite did not notice the fault ({', '.join(chosen.breaks)})"
                )
                code = 1
            elif chosen.kind == "fault" and code == 1:
                code = 0  # the suite saw the fault, as it must
            worst = max(worst, code)
    return worst
