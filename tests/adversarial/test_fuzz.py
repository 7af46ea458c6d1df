"""Socket fuzz: hypothesis-drawn mutants of the spec vectors, sent to the server and the proxy.

Every answer must be well-formed HTTP (h11 parses it), 2xx or 4xx (a 5xx only where the spec
allows one: 501 for an unimplemented coding or mode, 503 with Retry-After), within a time bound;
and the server and the proxy must give the same verdict on the same bytes: the same status, and
for a 4xx the same problem type. Draws are derandomised, so make test runs the same cases every
time; a failing draw shrinks toward fewer and simpler edits of the first seed vector. The deep
run of a million cases is ``fuzz_driver`` (make fuzz).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from . import fuzz_driver
from ._fuzz import Fuzzer, Peer
from ._mutator import Seed, load_seeds, mutate
from ._targets import Target

SEEDS = load_seeds()
#: Cases in make test: a few hundred, a second or two.
EXAMPLES = 300
#: Cases of the deep-tier run through the driver (its own processes, as make fuzz runs them).
DEEP_CASES = 20_000


@pytest.fixture(scope="module")
def fuzzer(server_target: Target, proxy_target: Target) -> Iterator[Fuzzer]:
    running = Fuzzer(
        Peer("server", server_target.address), Peer("proxy", proxy_target.address), shrink=False
    )
    yield running
    running.close()


def test_seeds_cover_the_spec_vectors() -> None:
    names = {seed.name for seed in SEEDS}
    assert "normal" in names
    assert len(names) > 50, sorted(names)


def test_mutation_is_a_function_of_the_seed() -> None:
    first = [mutate(random.Random(5), SEEDS[0]).data for _ in range(3)]
    again = [mutate(random.Random(5), SEEDS[0]).data for _ in range(3)]
    assert first == again


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.sampled_from(SEEDS), rng=st.randoms(use_true_random=False))
def test_server_and_proxy_answer_alike(fuzzer: Fuzzer, seed: Seed, rng: random.Random) -> None:
    mutant = mutate(rng, seed)
    found = fuzzer.run_one(mutant)
    assert found is None, f"{found}\nedits {mutant.edits} of {seed.name}: {mutant.data!r}"


@pytest.mark.deep
@pytest.mark.timeout(1800)
@pytest.mark.usefixtures("deep_only")
def test_deep_fuzz_run_has_no_findings(tmp_path: Path) -> None:
    result = fuzz_driver.run(
        DEEP_CASES, seed=2, out=tmp_path / "fuzz.json", state=tmp_path / "state.json", resume=False
    )
    assert result["cases"] == DEEP_CASES
    assert result["findings_count"] == 0, result["findings"]
