"""Propose the order of tests/conftest.py's LONG_FILES from one run's test durations.

    .venv/bin/python tools/pytest_strict.py -q -n 8 --dist loadfile --no-loadscope-reorder \
        --junitxml=/tmp/durations.xml
    .venv/bin/python tools/order_long_files.py /tmp/durations.xml

Theory of operation: under `--dist loadfile` pytest-xdist hands each worker one file at a time,
in collection order, and hands a worker its next file as soon as two or fewer of its tests are
left. A file of one or two long tests (a tier run against a server) therefore takes its next file
at once, and the two run back to back on one worker: which files start first decides where the
run ends. This tool replays that scheduler over the measured durations of every test, searches
for an order of the longest files that ends the run soonest, and scores an order by the 90th
percentile of its end over runs whose durations are each scaled by up to 20 % either way, so that
the order found does not rest on one run's noise. It prints the order and the simulated ends of
the current order and the proposed one. It reads results; it runs nothing.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict, deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Two or fewer tests left on a worker: xdist's loadscope scheduler then sends it the next file.
REFILL_AT = 2
#: Seconds each worker spends collecting before its first test.
COLLECTION_S = 22.0
#: Files whose place is searched: the longest ones.
CANDIDATES = 20
#: Runs with scaled durations that an order is scored over, and the scale's reach either way.
WORLDS = 12
SPREAD = 0.2
#: Orders tried.
TRIALS = 700

Durations = dict[str, list[float]]


def read_durations(junit: Path) -> Durations:
    """Each test file's test durations, from a JUnit XML report."""
    found: Durations = defaultdict(list)
    for case in ET.parse(junit).iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        path = "/".join(parts) + ".py"
        if not (ROOT / path).is_file():  # a test class: its module is one level up
            path = "/".join(parts[:-1]) + ".py"
        found[path].append(float(case.get("time") or 0))
    return dict(found)


def simulate(order: list[str], durations: Durations, workers: int) -> float:
    """The seconds a run takes with `order` first, as xdist's loadscope scheduler places it."""
    rank = {path: i for i, path in enumerate(order)}
    queue = deque(sorted(durations, key=lambda p: (rank.get(p, len(rank)), p)))
    pending: list[deque[float]] = [deque() for _ in range(workers)]
    clock = [COLLECTION_S] * workers

    def assign(w: int) -> None:
        if queue:
            pending[w].extend(durations[queue.popleft()])

    for w in range(workers):
        assign(w)
    for w in range(workers):
        if len(pending[w]) <= REFILL_AT:
            assign(w)
    while any(pending):
        w = min((w for w in range(workers) if pending[w]), key=lambda w: clock[w] + pending[w][0])
        clock[w] += pending[w].popleft()
        if len(pending[w]) <= REFILL_AT:
            assign(w)
    return max(clock)


def current_order() -> list[str]:
    text = (ROOT / "tests" / "conftest.py").read_text()
    block = text.split("LONG_FILES = (", 1)[1].split("\n)", 1)[0]
    return re.findall(r'"(tests/[^"]+)"', block)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit", type=Path, help="a JUnit XML report of a whole parallel run")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    durations = read_durations(args.junit)
    rng = random.Random(args.seed)
    worlds = [
        {p: [d * rng.uniform(1 - SPREAD, 1 + SPREAD) for d in ds] for p, ds in durations.items()}
        for _ in range(WORLDS)
    ]

    def score(order: list[str]) -> float:
        ends = sorted(simulate(order, world, args.workers) for world in worlds)
        return ends[int(len(ends) * 0.9) - 1]

    totals = {p: sum(ds) for p, ds in durations.items()}
    longest = sorted(totals, key=lambda p: -totals[p])[:CANDIDATES]
    start = [p for p in current_order() if p in durations]
    best, best_score = start, score(start)
    for _ in range(TRIALS):
        pool = list(dict.fromkeys(best + longest))
        for _ in range(rng.randint(1, 3)):
            a, b = rng.sample(range(len(pool)), 2)
            pool[a], pool[b] = pool[b], pool[a]
        trial = pool[: rng.randint(CANDIDATES - 8, CANDIDATES)]
        trial_score = score(trial)
        if trial_score < best_score:
            best, best_score = trial, trial_score
    print(f"current order: {score(start):.0f} s (90th percentile of {WORLDS} scaled runs)")
    print(f"proposed order: {best_score:.0f} s")
    for path in best:
        print(f'    "{path}",  # {totals[path]:.0f}')
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
