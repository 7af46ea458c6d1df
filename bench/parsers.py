"""Parsers: the mixbatch codec against other multipart parsers, in process, on one message.

The message is a batch *response* as a client receives it: N parts, each with
``Http-Status-Code``, ``Content-Id``, ``Content-Type``, ``Content-Length`` and N random octets,
written by ``BatchWriter``. Two shapes: 10,000 x 1 KiB and 100 x 1 MiB (quick mode: 2,000
and 100 x 1 MiB without the email parser). Each parser must find
every part; the body octets it returns are counted and checked where the parser is lossless.

Parsers (each reduced to "count parts, sum body octets"):
- ``mixbatch``: ``BatchParser`` in ``Role.RESPONSE``, fed 64 KiB chunks (a socket's worth), with
  its C fast path when built; ``mixbatch_whole``: the same fed the whole buffer at once, the
  input shape of the floor; ``mixbatch_pure``: 64 KiB chunks, pure Python (``accelerated=False``),
  the reference code's own speed.
- ``email_compat32``: the stdlib ``email`` parser with the compat32 policy.
- ``requests_toolbelt``: ``MultipartDecoder`` on the whole content.
- ``multipart2``: ``multipart.PushMultipartParser`` (2.x) with ``_create_segment`` overridden,
  because it otherwise refuses any part without ``Content-Disposition: form-data``.
- ``python_multipart``: the low-level callback ``MultipartParser``, 64 KiB chunks.
- ``find_scan``: the floor, a loop of ``bytes.find`` for delimiter and header end; no checks,
  no copies.

Figures: parts/s and MB/s (message octets / time, median of the repetitions), and peak Python
heap during one parse (``tracemalloc``, run separately so tracing does not slow the timed runs).
"""

from __future__ import annotations

import email.parser
import email.policy
import gc
import random
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import multipart
import python_multipart
from requests_toolbelt.multipart.decoder import MultipartDecoder

from mixbatch.codec import BatchParser, BatchWriter, Limits, PartData, PartEnd, Role
from mixbatch.codec._accelerator import SCAN, UNAVAILABLE_REASON

from .stats import log, summarize

__all__ = ["PARSERS", "build_message", "run"]

CHUNK = 64 * 1024
SHAPES = {"10000x1KiB": (10000, 1024), "100x1MiB": (100, 1024 * 1024)}
#: Quick mode cuts the small-parts count (per-part rates barely move) but keeps 100 x 1 MiB: on a
#: 20 MiB message the floor scan takes a few ms and one preemption swings it twofold.
QUICK_SHAPES = {"2000x1KiB": (2000, 1024), "100x1MiB": (100, 1024 * 1024)}
#: The stdlib email parser needs seconds and ~800 MiB of heap for 100 MiB; quick mode skips it
#: on messages above this size and says so in the results.
QUICK_EMAIL_MAX_BYTES = 32 * 1024 * 1024

Parse = Callable[[bytes, bytes], tuple[int, int]]


def build_message(n: int, size: int, seed: int = 7) -> tuple[bytes, bytes]:
    """(boundary, content) of a batch response with n parts of ``size`` random octets."""
    rng = random.Random(seed)
    writer = BatchWriter()
    chunks = [
        writer.response_part(
            200,
            f"random/{size}",
            [("Content-Type", "application/octet-stream")],
            rng.randbytes(size),
        )
        for _ in range(n)
    ]
    chunks.append(writer.close())
    return writer.boundary.encode("ascii"), b"".join(chunks)


def _limits(content: bytes) -> Limits:
    return Limits(max_parts=10**6, max_part_bytes=len(content), max_batch_bytes=len(content) + 1)


def _mixbatch(
    content: bytes, boundary: bytes, chunk: int = CHUNK, accelerated: bool | None = None
) -> tuple[int, int]:
    parser = BatchParser(boundary, Role.RESPONSE, _limits(content), accelerated=accelerated)
    parts = total = 0
    # Chunks are memoryview slices, copied by the parser as a socket's bytes would be; the whole
    # message goes in as the bytes object itself, the input the floor scan gets.
    view = memoryview(content) if chunk < len(content) else None
    for start in range(0, len(content), chunk):
        data = content if view is None else view[start : start + chunk]
        for event in parser.feed(data):
            if type(event) is PartData:
                total += len(event.data)
            elif type(event) is PartEnd:
                parts += 1
    parser.feed_eof()
    return parts, total


def _mixbatch_whole(content: bytes, boundary: bytes) -> tuple[int, int]:
    return _mixbatch(content, boundary, len(content))


def _mixbatch_pure(content: bytes, boundary: bytes) -> tuple[int, int]:
    return _mixbatch(content, boundary, accelerated=False)


def _email(content: bytes, boundary: bytes) -> tuple[int, int]:
    head = b"Content-Type: multipart/mixed; boundary=" + boundary + b"\r\n\r\n"
    message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(head + content)
    parts = message.get_payload()
    assert isinstance(parts, list)
    total = 0
    for part in parts:
        payload = part.get_payload(decode=True)
        total += len(payload) if isinstance(payload, bytes) else 0
    return len(parts), total


def _toolbelt(content: bytes, boundary: bytes) -> tuple[int, int]:
    decoder = MultipartDecoder(content, "multipart/mixed; boundary=" + boundary.decode("ascii"))
    return len(decoder.parts), sum(len(p.content) for p in decoder.parts)


class _MixedPushParser(multipart.PushMultipartParser):  # type: ignore[misc]
    """multipart 2.x for multipart/mixed: accept parts without Content-Disposition."""

    def _create_segment(self, headerlist: list[tuple[str, str]]) -> Any:
        return multipart.MultipartSegment(headerlist)


def _multipart2(content: bytes, boundary: bytes) -> tuple[int, int]:
    parts = total = 0
    with _MixedPushParser(boundary, content_length=len(content)) as parser:
        for start in range(0, len(content), CHUNK):
            for event in parser.parse(content[start : start + CHUNK]):
                if event is None:
                    parts += 1
                elif isinstance(event, bytes | bytearray | memoryview):
                    total += len(event)
    return parts, total


def _python_multipart(content: bytes, boundary: bytes) -> tuple[int, int]:
    counts = [0, 0]

    def on_part_end() -> None:
        counts[0] += 1

    def on_part_data(data: bytes, start: int, end: int) -> None:
        counts[1] += end - start

    parser = python_multipart.MultipartParser(
        boundary, {"on_part_end": on_part_end, "on_part_data": on_part_data}
    )
    for start in range(0, len(content), CHUNK):
        parser.write(content[start : start + CHUNK])
    parser.finalize()
    return counts[0], counts[1]


def _find_scan(content: bytes, boundary: bytes) -> tuple[int, int]:
    delimiter = b"\r\n--" + boundary
    parts = total = 0
    pos = content.find(b"\r\n\r\n", content.find(b"--" + boundary)) + 4
    while True:
        end = content.find(delimiter, pos)
        total += end - pos
        parts += 1
        after = end + len(delimiter)
        if content.startswith(b"--", after):
            return parts, total
        pos = content.find(b"\r\n\r\n", after) + 4


PARSERS: dict[str, Parse] = {
    "mixbatch": _mixbatch,
    "mixbatch_whole": _mixbatch_whole,
    "mixbatch_pure": _mixbatch_pure,
    "email_compat32": _email,
    "requests_toolbelt": _toolbelt,
    "multipart2": _multipart2,
    "python_multipart": _python_multipart,
    "find_scan": _find_scan,
}


def _peak_heap(parse: Parse, content: bytes, boundary: bytes) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        parse(content, boundary)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _shape(n: int, size: int, repeats: int, parsers: dict[str, Parse]) -> dict[str, Any]:
    boundary, content = build_message(n, size)
    out: dict[str, Any] = {"parts": n, "part_bytes": size, "message_bytes": len(content)}
    times: dict[str, list[float]] = {name: [] for name in parsers}
    checks: dict[str, dict[str, Any]] = {}
    for _ in range(repeats):
        for name, parse in parsers.items():
            # What the harness and the scenarios before this one left on the heap is frozen out
            # of the collector, so a full collection during a parse walks only what that parse
            # made, for every parser alike.
            gc.collect()
            gc.freeze()
            try:
                started = time.perf_counter()
                parts, total = parse(content, boundary)
                times[name].append(time.perf_counter() - started)
            finally:
                gc.unfreeze()
            checks[name] = {
                "parts_found": parts,
                "body_bytes": total,
                "parts_ok": parts == n,
                "bytes_ok": total == n * size,
            }
    results: dict[str, Any] = {}
    for name, parse in parsers.items():
        secs = times[name]
        results[name] = {
            "seconds": summarize(secs),
            "parts_per_second": summarize([n / s for s in secs]),
            "mbyte_per_second": summarize([len(content) / s / 1e6 for s in secs]),
            "peak_heap_mib": _peak_heap(parse, content, boundary) / (1024 * 1024),
            **checks[name],
        }
    out["parsers"] = results
    return out


def run(quick: bool, repeats: int) -> dict[str, Any]:
    shapes = QUICK_SHAPES if quick else SHAPES
    results: dict[str, Any] = {
        "chunk_bytes": CHUNK,
        "fast_path": SCAN is not None,
        "fast_path_reason": UNAVAILABLE_REASON,
        "shapes": {},
    }
    for label, (n, size) in shapes.items():
        log(f"parsers: {label} x{repeats}")
        parsers = dict(PARSERS)
        if quick and n * size > QUICK_EMAIL_MAX_BYTES:
            del parsers["email_compat32"]
            results.setdefault("skipped", {})[label] = ["email_compat32 (quick mode)"]
        results["shapes"][label] = _shape(n, size, repeats, parsers)
    return results
