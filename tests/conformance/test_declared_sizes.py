"""limit-batch-bytes-declared-past-32-bits fails a server that cannot read a large declared size.

The relay reads every request whole before it forwards it, so a batch declaring 4 GiB cannot
pass through it; the check is proved here against a stand-in batch endpoint instead. It refuses
a batch over its published max_batch_bytes with 413 and the problem naming the limit, by the
declared Content-Length or once the content (chunked or not) passes the limit, as spec 9.1
allows. Told to read sizes into `bits` bits, it answers 400 for a size past them, as a server
parsing into a 32-bit integer does: the check's FAIL cites MB-STATUS-3, and, for a chunk-size,
MB-INTER-5.
"""

from __future__ import annotations

import json
import socketserver
from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_check
from tests.conformance._standins import StandIn, serving

CHECK = next(c for c in all_checks() if c.id == "limit-batch-bytes-declared-past-32-bits")
LIMIT = 100_000


class _Server(StandIn):
    bits = 64


class _Endpoint(socketserver.StreamRequestHandler):
    server: _Server

    def _answer(self, status: int, doc: dict[str, object]) -> None:
        body = json.dumps(doc).encode()
        reason = {400: "Bad Request", 413: "Content Too Large"}[status]
        self.wfile.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )

    def _too_large(self) -> None:
        self._answer(
            413,
            {
                "type": "about:blank",
                "title": "Batch over a limit",
                "status": 413,
                "requirement": "MB-STATUS-3",
                "limit": "max_batch_bytes",
            },
        )

    def _unreadable(self) -> None:
        self._answer(400, {"type": "about:blank", "title": "Invalid length", "status": 400})

    def handle(self) -> None:
        fields: dict[str, str] = {}
        self.rfile.readline()
        while (line := self.rfile.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            fields[name.strip().lower()] = value.strip()
        if "content-length" in fields:
            if int(fields["content-length"]) >= 2**self.server.bits:
                return self._unreadable()
            if int(fields["content-length"]) > LIMIT:
                return self._too_large()
            return self._answer(400, {"type": "about:blank", "title": "unexpected", "status": 400})
        size = int(self.rfile.readline().strip(), 16)
        if size >= 2**self.server.bits:
            return self._unreadable()
        self.rfile.read(LIMIT + 1)
        return self._too_large()


@pytest.fixture
def endpoint() -> Iterator[_Server]:
    with serving(_Server(("127.0.0.1", 0), _Endpoint)) as srv:
        yield srv


def _context(srv: _Server) -> Context:
    port = srv.server_address[1]
    return Context(
        Target(f"http://127.0.0.1:{port}", limits={"max_batch_bytes": LIMIT}, timeout=10.0)
    )


def test_a_server_reading_every_size_passes(endpoint: _Server) -> None:
    assert run_check(CHECK, _context(endpoint)).verdict is Verdict.PASS


@pytest.mark.parametrize("bits", [32, 53])
def test_a_server_reading_sizes_into_fewer_bits_fails(endpoint: _Server, bits: int) -> None:
    endpoint.bits = bits
    result = run_check(CHECK, _context(endpoint))
    assert result.verdict is Verdict.FAIL
    cited = {e.requirement for e in result.judge.failed}
    assert "MB-STATUS-3" in cited
    assert "MB-INTER-5" in cited
