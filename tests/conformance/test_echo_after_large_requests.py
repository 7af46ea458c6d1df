"""echo-field-order-after-large-requests fails an echo whose record of a connection's octets
stops at its first 256 KiB.

The relay reads each request whole and forwards it on a connection of its own, so it keeps no
state of the client's connection to plant this in; the check is proved here against a stand-in
echo on keep-alive connections. It reports each request's fields in the order received, from
its own record of what the connection read. Told to keep only the first 256 KiB of that
record, it falls back, for a request past it, to the fields sorted by name, as a server whose
HTTP stack hands its handlers a map of fields does.
"""

from __future__ import annotations

import json
import socketserver
from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.runner import run_check
from tests.conformance._standins import StandIn, serving, standin_context

CHECK = next(c for c in all_checks() if c.id == "echo-field-order-after-large-requests")
#: The octets of a connection a forgetful echo keeps a record of.
KEPT = 256 * 1024


class _Server(StandIn):
    forgetful = False


class _Echo(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        read = 0
        while line := self.rfile.readline():
            read += len(line)
            method, target, _ = line.decode("latin-1").split(" ", 2)
            fields: list[tuple[str, str]] = []
            while (raw := self.rfile.readline()) not in (b"\r\n", b""):
                read += len(raw)
                name, _, value = raw.decode("latin-1").partition(":")
                fields.append((name, value.strip(" \t\r\n")))
            length = next((int(v) for n, v in fields if n.lower() == "content-length"), 0)
            body = self.rfile.read(length)
            read += 2 + length
            if self.server.forgetful and read > KEPT:
                fields = sorted(fields, key=lambda f: f[0].lower())
            doc = {
                "method": method,
                "target": target,
                "authority": next((v for n, v in fields if n.lower() == "host"), ""),
                "headers": [list(f) for f in fields],
                "body": body.decode("latin-1") if len(body) < 64 else "",
            }
            out = json.dumps(doc).encode()
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + b"Content-Length: %d\r\n\r\n" % len(out)
                + out
            )


@pytest.fixture
def standin() -> Iterator[_Server]:
    with serving(_Server(("127.0.0.1", 0), _Echo)) as srv:
        yield srv


def _context(srv: _Server) -> Context:
    return standin_context(srv)


def test_an_echo_that_keeps_every_request_in_order_passes(standin: _Server) -> None:
    assert run_check(CHECK, _context(standin)).verdict is Verdict.PASS


def test_an_echo_that_forgets_past_its_first_256_kib_fails(standin: _Server) -> None:
    standin.forgetful = True
    result = run_check(CHECK, _context(standin))
    assert result.verdict is Verdict.FAIL
    assert {e.requirement for e in result.judge.failed} == {"MB-TEST-2"}
