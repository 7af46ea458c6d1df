"""How the proxy plans a batch: consecutive safe parts share a pipelined run, every other part
runs alone, and a sequential batch runs each part alone."""

from __future__ import annotations

from mixbatch.codec import BatchWriter, Limits
from mixbatch.envelope import EnvelopeReader
from mixbatch.proxy._batch import SAFE_METHODS, plan_runs


def _parts(*methods: str) -> list[object]:
    """The validated parts of a batch of ``methods``; the spool is closed (only headers are
    read here, and they are small enough to stay in memory)."""
    writer = BatchWriter()
    data = b"".join(
        writer.request_part(m, f"/{i}", [], b"x" if m in ("POST", "PUT") else b"")
        for i, m in enumerate(methods)
    )
    reader = EnvelopeReader(
        writer.boundary,
        base="/batch",
        scheme="http",
        authority="t",
        batch_paths=("/batch",),
        limits=Limits(),
    )
    reader.feed(data + writer.close())
    envelope = reader.finish()
    parts = list(envelope.parts)
    envelope.close()  # which drops the envelope's own list of parts
    return parts


def _methods(runs: list[list[object]]) -> list[list[str]]:
    return [[p.method for p in run] for run in runs]  # type: ignore[attr-defined]


def test_consecutive_safe_parts_share_a_run_and_unsafe_ones_run_alone() -> None:
    parts = _parts("GET", "HEAD", "POST", "GET", "GET", "PUT", "OPTIONS")
    runs = plan_runs(parts, sequential=False)  # type: ignore[arg-type]
    assert _methods(runs) == [["GET", "HEAD"], ["POST"], ["GET", "GET"], ["PUT"], ["OPTIONS"]]
    assert {"GET", "HEAD", "OPTIONS"} == SAFE_METHODS


def test_a_sequential_batch_runs_every_part_alone() -> None:
    parts = _parts("GET", "GET", "GET")
    assert _methods(plan_runs(parts, sequential=True)) == [["GET"], ["GET"], ["GET"]]  # type: ignore[arg-type]
