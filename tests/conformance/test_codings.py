"""The checks of a batch in a transfer coding or a content coding catch their plants.

chunked-batch-answered-as-content-length sends one batch framed by Content-Length and chunked
and compares the answers (MB-INTER-5); content-coded-batch-runs-nothing sends a batch in a
coding no server decodes that would write into the sandbox, and
registered-codings-decoded-or-refused a batch in each coding the 415 names and each registered
one (MB-INTER-6). The reference server passes them; each plant of run.plants.codings fails its
catcher under the requirement it breaks. The compress coding the suite writes itself is read
back by the relay's decoder and, where gzip(1) is installed, by `gzip -d`.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from mixbatch_conformance.checks._shared.lzw import lzw_compress
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.codings import PLANTS
from mixbatch_conformance.run.plants.registered_codings import lzw_decompress
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement, assert_passes

#: The plant whose catcher sends the published max_batch_bytes (64 MiB) through the relay.
LARGE = "chunked-batch-limit-counts-chunk-lines"


@pytest.mark.parametrize(
    "check",
    [
        "chunked-batch-answered-as-content-length",
        "content-coded-batch-runs-nothing",
        "registered-codings-decoded-or-refused",
    ],
)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    assert_passes(check, reference)


def _run(plant: Mutation, relay: Relay, relayed: Context) -> None:
    assert_caught_under_requirement(plant, relay, relayed, ("FAIL",))


@pytest.mark.parametrize(
    "plant", [p for p in PLANTS if p.name != LARGE], ids=[p.name for p in PLANTS if p.name != LARGE]
)
def test_a_plant_is_caught_under_its_requirement(
    plant: Mutation, relay: Relay, relayed: Context
) -> None:
    _run(plant, relay, relayed)


@pytest.mark.slow
def test_chunk_size_lines_counted_into_the_limit_are_caught(relay: Relay, relayed: Context) -> None:
    _run(next(p for p in PLANTS if p.name == LARGE), relay, relayed)


#: Inputs for the compress coding: empty, one octet, repeats, and sizes whose codes cross every
#: code width up to a full table (random octets fill it the fastest).
_RNG = random.Random(9)
LZW_INPUTS = [
    b"",
    b"a",
    b"a" * 1000,
    b"TOBEORNOTTOBEORTOBEORNOT#",
    bytes(_RNG.randrange(256) for _ in range(600)),
    bytes(_RNG.randrange(4) + 65 for _ in range(50_000)),
    bytes(_RNG.randrange(256) for _ in range(300_000)),
]


@pytest.mark.parametrize("data", LZW_INPUTS, ids=[str(len(d)) for d in LZW_INPUTS])
def test_the_compress_coding_reads_back(data: bytes) -> None:
    coded = lzw_compress(data)
    assert coded[:3] == b"\x1f\x9d\x90"
    assert lzw_decompress(coded) == data
    gzip = shutil.which("gzip")
    if gzip is not None:
        done = subprocess.run([gzip, "-dc"], input=coded, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout == data
