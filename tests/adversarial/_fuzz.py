"""The differential socket fuzzer: the same mutated bytes to the server and to the proxy.

Each peer keeps one keep-alive connection; a mutant whose outer framing is intact rides on it, a
mutant that may have broken the framing goes alone on a fresh connection that is half-closed
after the request, so the peer always learns where the input ends. Every answer is parsed by h11.

A verdict is the answer's class: its status and, for a 4xx, its problem ``type``; or that the
peer closed without an answer, hung, or sent something h11 refuses. A finding is a verdict no
peer may give (a malformed answer, a hang, a 5xx other than 501 for an unimplemented feature or
503 with Retry-After, MB-STATUS-12 and MB-LIMIT-6) or a pair of verdicts that differ between the
server and the proxy on the same bytes. Findings are grouped by signature; the first mutant of
each signature is shrunk (chunks deleted while the signature holds) to a minimal reproducer.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass, field

import h11

from ._mutator import Mutant
from ._wire import Answer, exchange

__all__ = ["Finding", "Fuzzer", "Peer", "Tally", "Verdict"]

#: Seconds one answer may take before the case counts as a hang.
ANSWER_BOUND = 3.0
#: 5xx statuses a peer may give a batch: 501 (an unimplemented transfer coding or Batch-Mode,
#: RFC 9112 §6.1, MB-PROC-7, MB-PROC-12) and 503 with Retry-After (MB-LIMIT-6).
ALLOWED_5XX = frozenset({501, 503})
#: Requests with intact framing written back to back on one connection, at most, and their octets.
PIPELINE_WINDOW = 16
PIPELINE_BYTES = 64 * 1024
#: Sends a shrink may spend on one finding.
SHRINK_BUDGET = 200


@dataclass(frozen=True)
class Verdict:
    """The class of one answer: ``kind`` is "status", "closed", "hang" or "malformed"."""

    kind: str
    status: int = 0
    problem: str | None = None
    retry_after: bool = False

    def __str__(self) -> str:
        if self.kind != "status":
            return self.kind
        return f"{self.status} {self.problem}" if self.problem else str(self.status)

    @property
    def coarse(self) -> str:
        """The verdict's class only ("4xx", "closed"): findings group on it for the proxy side,
        so one fault the proxy meets with several different refusals is one finding."""
        return self.kind if self.kind != "status" else f"{self.status // 100}xx"

    @property
    def forbidden(self) -> str | None:
        """Why no peer may answer this way, if none may."""
        if self.kind in ("hang", "malformed"):
            return self.kind
        if self.kind == "status":
            if self.status >= 500 and self.status not in ALLOWED_5XX:
                return "5xx"
            if self.status == 503 and not self.retry_after:
                return "503 without Retry-After"
            if self.status < 200 or 300 <= self.status < 400:
                return "status outside 2xx/4xx"
        return None


def verdict_of(
    answer: Answer | None, *, closed: bool, hung: bool, malformed: str | None
) -> Verdict:
    if malformed:
        return Verdict("malformed")
    if answer is None:
        return Verdict("hang" if hung and not closed else "closed")
    problem = None
    if answer.status >= 400:
        kind = answer.problem_type
        problem = kind.rsplit("/", 1)[-1] if kind else "no-problem-document"
    return Verdict("status", answer.status, problem, answer.header("Retry-After") is not None)


@dataclass
class Finding:
    signature: str
    count: int
    reproducer: bytes
    framing: bool
    seed: str
    edits: tuple[str, ...]
    first_case: int
    #: The exact verdicts of the first mutant: "server ... / proxy ...".
    example: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "signature": self.signature,
            "count": self.count,
            "first_case": self.first_case,
            "seed_vector": self.seed,
            "edits": list(self.edits),
            "example_verdicts": self.example,
            "framing_broken": self.framing,
            "reproducer": self.reproducer.decode("latin-1"),
            "reproducer_length": len(self.reproducer),
        }


class Peer:
    """One target address with a reusable keep-alive connection."""

    def __init__(self, name: str, address: tuple[str, int]) -> None:
        self.name = name
        self.address = address
        self._sock: socket.socket | None = None
        self._conn: h11.Connection | None = None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = self._conn = None

    def send(self, data: bytes, *, alone: bool) -> Verdict:
        if alone:
            self.close()
            result = exchange(self.address, data, timeout=ANSWER_BOUND, half_close=True)
            return verdict_of(
                result.first, closed=result.closed, hung=result.hung, malformed=result.malformed
            )
        return self._keep_alive(data)

    def _keep_alive(self, data: bytes) -> Verdict:
        return self.pipeline([data])[0]

    def _connect(self) -> tuple[socket.socket, h11.Connection]:
        if self._sock is None or self._conn is None:
            self._sock = socket.create_connection(self.address, timeout=ANSWER_BOUND)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conn = h11.Connection(h11.CLIENT)
        return self._sock, self._conn

    def write(self, requests: list[bytes]) -> None:
        """Write requests back to back on the keep-alive connection (pipelining)."""
        sock, _ = self._connect()
        # The peer may close early; reading then says what it answered.
        with contextlib.suppress(OSError):
            sock.sendall(b"".join(requests))

    def read(self, count: int) -> list[Verdict]:
        """The verdicts of ``count`` requests written by ``write``, in order. Stops at the first
        request the connection did not answer (fewer verdicts than ``count``)."""
        verdicts: list[Verdict] = []
        while len(verdicts) < count:
            verdict, keep = self._read_one()
            verdicts.append(verdict)
            if not keep:
                self.close()
                break
        return verdicts

    def pipeline(self, requests: list[bytes]) -> list[Verdict]:
        """Verdicts for every request: the ones a closing connection dropped are sent again."""
        verdicts: list[Verdict] = []
        while len(verdicts) < len(requests):
            rest = requests[len(verdicts) :]
            self.write(rest)
            verdicts += self.read(len(rest))
        return verdicts

    def _read_one(self) -> tuple[Verdict, bool]:
        """One answer's verdict, and whether the connection carries on after it."""
        sock, conn = self._connect()
        conn.send(h11.Request(method="POST", target="/", headers=[("Host", "x")]))
        conn.send(h11.EndOfMessage())
        deadline = time.monotonic() + ANSWER_BOUND
        head: h11.Response | None = None
        body: list[bytes] = []
        try:
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    sock.settimeout(max(0.001, deadline - time.monotonic()))
                    conn.receive_data(sock.recv(65536))
                    continue
                if isinstance(event, h11.Response):
                    head = event
                elif isinstance(event, h11.Data):
                    body.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    break
                elif isinstance(event, h11.ConnectionClosed):
                    return Verdict("closed"), False
        except TimeoutError:
            return Verdict("hang"), False
        except OSError:
            return (Verdict("closed") if head is None else Verdict("malformed")), False
        except h11.RemoteProtocolError:
            if head is None and not body:
                return Verdict("closed"), False
            return Verdict("malformed"), False
        assert head is not None
        answer = Answer(
            head.status_code,
            [(k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers.raw_items()],
            b"".join(body),
        )
        keep = conn.our_state is h11.DONE and conn.their_state is h11.DONE
        if keep:
            conn.start_next_cycle()
        return verdict_of(answer, closed=False, hung=False, malformed=None), keep


@dataclass
class Tally:
    """What several fuzzers running side by side found together (one lock guards it)."""

    findings: dict[str, Finding] = field(default_factory=dict, repr=False)
    cases: int = 0
    hits: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


@dataclass
class Fuzzer:
    """Sends mutants to both peers over its own connections and records findings in ``tally``."""

    server: Peer
    proxy: Peer
    tally: Tally = field(default_factory=Tally)
    shrink: bool = True

    @property
    def findings(self) -> dict[str, Finding]:
        return self.tally.findings

    @property
    def cases(self) -> int:
        return self.tally.cases

    def close(self) -> None:
        self.server.close()
        self.proxy.close()

    def verdicts(self, data: bytes, alone: bool) -> tuple[Verdict, Verdict]:
        return self.server.send(data, alone=alone), self.proxy.send(data, alone=alone)

    @staticmethod
    def signature(
        server: Verdict, proxy: Verdict, *, batch: bool = True, mode: bool = False
    ) -> str | None:
        """Why this pair of verdicts is a finding, if it is one. Off the batch endpoint the
        proxy forwards what the server would answer itself, so only the status class counts.
        A request with Batch-Mode (``mode``) may meet a peer that offers the mode and one that
        answers 501 (MB-PROC-7, MB-PROC-12): the two publish different profiles."""
        reasons = []
        for name, verdict in (("server", server), ("proxy", proxy)):
            why = verdict.forbidden
            if why:
                reasons.append(f"{name} {why} ({verdict})")
        if server.kind == proxy.kind == "status":
            same = (
                _same_class(server, proxy) if batch else server.status // 100 == proxy.status // 100
            )
        else:
            same = server.kind == proxy.kind
        if mode and 501 in (server.status, proxy.status):
            same = True
        if not same:
            reasons.append(f"verdicts differ: server {server}, proxy {proxy.coarse}")
        return "; ".join(reasons) or None

    def run_many(self, mutants: list[Mutant]) -> None:
        """Run mutants: intact framing ones pipelined in windows, the others one by one."""
        window: list[Mutant] = []
        size = 0
        for mutant in mutants:
            if mutant.framing:
                self.run_one(mutant)
                continue
            window.append(mutant)
            size += len(mutant.data)
            if len(window) >= PIPELINE_WINDOW or size >= PIPELINE_BYTES:
                self._run_window(window)
                window, size = [], 0
        if window:
            self._run_window(window)

    def _run_window(self, window: list[Mutant]) -> None:
        datas = [m.data for m in window]
        self.server.write(datas)
        self.proxy.write(datas)
        server = self.server.read(len(datas))
        proxy = self.proxy.read(len(datas))
        if len(server) < len(datas):
            server += self.server.pipeline(datas[len(server) :])
        if len(proxy) < len(datas):
            proxy += self.proxy.pipeline(datas[len(proxy) :])
        for mutant, s_verdict, p_verdict in zip(window, server, proxy, strict=True):
            self._judge(mutant, s_verdict, p_verdict)

    def run_one(self, mutant: Mutant) -> str | None:
        server, proxy = self.verdicts(mutant.data, mutant.framing)
        return self._judge(mutant, server, proxy)

    def _judge(self, mutant: Mutant, server: Verdict, proxy: Verdict) -> str | None:
        batch, mode = _request_traits(mutant.data)
        found = self.signature(server, proxy, batch=batch, mode=mode)
        tally = self.tally
        with tally.lock:
            tally.cases += 1
            if found is None:
                return None
            tally.hits += 1
            finding = tally.findings.get(found)
            if finding is not None:
                finding.count += 1
                return found
            # Claimed now, shrunk below without the lock: other lanes only count it.
            finding = Finding(
                found,
                1,
                mutant.data,
                mutant.framing,
                mutant.seed,
                mutant.edits,
                tally.cases,
                f"server {server} / proxy {proxy}",
            )
            tally.findings[found] = finding
        if self.shrink:
            finding.reproducer = self._shrink(mutant, found)
        return found

    def _shrink(self, mutant: Mutant, found: str) -> bytes:
        """Delete ever smaller chunks while the same signature reproduces (bounded sends)."""
        alone = mutant.framing
        head, _, content = mutant.data.partition(b"\r\n\r\n")
        lines = [
            line for line in head.split(b"\r\n") if not line.lower().startswith(b"content-length:")
        ]
        fixed = b"\r\n".join(lines)

        def rebuild(data: bytes) -> bytes:
            """The request around shrunk content (or the shrunk request, when sent alone)."""
            if alone:
                return data
            return fixed + b"\r\nContent-Length: %d\r\n\r\n" % len(data) + data

        current = mutant.data if alone else content
        budget = SHRINK_BUDGET
        chunk = max(1, len(current) // 2)
        while chunk >= 1 and budget > 0:
            i = 0
            while i < len(current) and budget > 0:
                candidate = current[:i] + current[i + chunk :]
                budget -= 1
                data = rebuild(candidate)
                server, proxy = self.verdicts(data, alone)
                batch, mode = _request_traits(data)
                if self.signature(server, proxy, batch=batch, mode=mode) == found:
                    current = candidate
                else:
                    i += chunk
            chunk //= 2
        return rebuild(current)


def _same_class(a: Verdict, b: Verdict) -> bool:
    """Same status, and for a 4xx the same problem type."""
    if a.status != b.status:
        return False
    return a.status < 400 or a.problem == b.problem


def _targets_batch(data: bytes) -> bool:
    """The request line names the batch endpoint (origin-form, with or without a query)."""
    line = data.split(b"\n", 1)[0]
    parts = line.split(b" ")
    return len(parts) >= 2 and parts[1].split(b"?")[0] == b"/batch"


def _request_traits(data: bytes) -> tuple[bool, bool]:
    """What ``signature`` needs to know about a request: whether it targets the batch endpoint,
    and whether it asks for a Batch-Mode."""
    head = data.partition(b"\r\n\r\n")[0].lower()
    return _targets_batch(data), b"\nbatch-mode:" in head
