"""No client ever receives the answer to another client's request, however the origin misframes.

HTTP/1.1 carries no request identifier: on a keep-alive connection, the next response is taken to
answer the next request. An origin that sends one response too many (or content where none may
be, or more content than it declared) leaves octets on the connection that would answer whoever
sends the next request, and every request after it would be answered one behind, across clients.
The proxy's pool must give a connection back only at an exact message boundary, and must drop an
idle connection on which the origin speaks out of turn.

Every request here carries a fresh nonce in its target and the origin of ``_evil_origin`` echoes
the request line, so each answer can be checked against its own request. The proxy has one
upstream connection (``max_connections=1``), so every request goes through the same pool slot.

What no proxy can catch is left out on purpose: an origin that holds its extra response back
until the next request has been written makes that response indistinguishable from the answer
to it. The origin here sends what it sends for requests that arrived together in one write, and
the unsolicited response of /late only after the proxy has put the connection back.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest

from ._evil_origin import INJECTED, LATE_S, EvilOrigin
from ._harness import (
    IO_TIMEOUT,
    LoopThread,
    RunningProxy,
    Sub,
    encode_batch,
    parse_parts,
    send_batch,
)

MakeProxy = Callable[..., RunningProxy]
#: The proxy's per-sub-request timeout here: /long-length stalls for it once per use.
TIMEOUT_S = 0.5
#: Paths on which the origin misframes its answer (``/interim`` is legal and not among them).
EVIL_PATHS = (
    "/extra",
    "/no-content",
    "/not-modified",
    "/head-body",
    "/short-length",
    "/long-length",
    "/cut",
    "/smuggle",
    "/close",
)
#: Request content well past what the kernel buffers between the proxy and the origin.
LARGE_CONTENT = 8 * 1024 * 1024
_NONCES = itertools.count()
_NONCE = re.compile(rb"nonce=([0-9a-z-]+)")


@dataclass(frozen=True)
class Ask:
    """One request of one client: how it travels (alone or as a part) and what it asks."""

    method: str
    path: str
    via: str  # "alone" or "batch"
    nonce: str
    body: bytes = b""

    @property
    def target(self) -> str:
        return f"{self.path}?nonce={self.nonce}"

    @property
    def echo(self) -> bytes:
        return f"{self.method} {self.target}".encode()


def ask(method: str, path: str, via: str, body: bytes = b"") -> Ask:
    return Ask(method, path, via, f"n{next(_NONCES)}-{random.getrandbits(32):08x}", body)


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: the connection to the proxy broke (a cut pass-through)
    body: bytes


def complaint(request: Ask, answer: Answer) -> str | None:
    """Why ``answer`` cannot be the answer to ``request``, or None when it can."""
    if INJECTED in answer.body:
        return f"{request.target} got the response nobody asked for"
    others = set(_NONCE.findall(answer.body)) - {request.nonce.encode()}
    if others:
        return f"{request.target} got the answer to another request: {answer.body!r}"
    if request.path in EVIL_PATHS:
        # The origin broke framing for this very request: its own answer, an empty one, a 502
        # or 504 from the proxy, or a cut connection are all honest outcomes.
        return None
    if (answer.status, answer.body) != (200, request.echo):
        return f"{request.target} got {answer.status} {answer.body!r}"
    return None


def _hidden(request: Ask) -> bytes:
    """``request`` whole, as a client would hide it in content for an origin that ignores
    Content-Length."""
    return f"{request.method} {request.target} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def send(proxy_url: str, request: Ask, client: httpx.Client) -> Answer:
    if request.via == "alone":
        try:
            response = client.request(
                request.method, proxy_url + request.target, content=request.body
            )
        except httpx.TransportError:
            return Answer(None, b"")
        return Answer(response.status_code, response.content)
    content_type, data = encode_batch([Sub(request.method, request.target, (), request.body)])
    response = client.post(
        proxy_url + "/batch", content=data, headers={"Content-Type": content_type}
    )
    assert response.status_code == 200, response.content
    (part,) = parse_parts(response.headers["content-type"], response.content)
    return Answer(part.status, part.body)


def send_many(proxy_url: str, requests: list[Ask]) -> list[str]:
    """Send ``requests`` one after another; the complaints about their answers."""
    with httpx.Client(timeout=IO_TIMEOUT) as client:
        return [c for r in requests if (c := complaint(r, send(proxy_url, r, client))) is not None]


@pytest.fixture(params=[False], ids=["window"])
def evil(
    loop_thread: LoopThread, request: pytest.FixtureRequest
) -> Iterator[tuple[EvilOrigin, str]]:
    """The origin, with its usual receive buffer unless the test asks for a small one."""
    origin = EvilOrigin()
    server = loop_thread.run(origin.listen(small_receive_buffer=request.param))
    port = server.sockets[0].getsockname()[1]
    yield origin, f"http://127.0.0.1:{port}"

    async def stop() -> None:
        origin.stopping.set()
        server.close()
        await asyncio.wait_for(server.wait_closed(), 5)

    loop_thread.run(stop())


@pytest.fixture
def one_connection(evil: tuple[EvilOrigin, str], make_proxy: MakeProxy) -> RunningProxy:
    return make_proxy(evil[1], max_connections=1, subrequest_timeout=TIMEOUT_S)


def test_an_extra_response_reaches_no_later_client(one_connection: RunningProxy) -> None:
    # Client A's request draws a second response; B, C, D and E each come after, one by one,
    # batch parts and standalone requests alike: each gets the answer to its own request.
    requests = [
        ask("GET", "/extra", "batch"),
        ask("GET", "/ok", "batch"),
        ask("GET", "/ok", "batch"),
        ask("GET", "/ok", "alone"),
        ask("POST", "/ok", "batch", b"from E"),
        ask("GET", "/extra", "alone"),
        ask("POST", "/ok", "alone", b"from F"),
        ask("GET", "/ok", "batch"),
    ]
    assert send_many(one_connection.url, requests) == []


@pytest.mark.parametrize("via", ["alone", "batch"])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/extra"),
        ("GET", "/no-content"),
        ("GET", "/not-modified"),
        ("HEAD", "/head-body"),
        ("GET", "/short-length"),
        ("GET", "/long-length"),
        ("GET", "/cut"),
        ("GET", "/close"),
        ("POST", "/smuggle"),
    ],
)
def test_a_misframed_answer_poisons_only_its_own_connection(
    one_connection: RunningProxy, evil: tuple[EvilOrigin, str], method: str, path: str, via: str
) -> None:
    honest = ask("GET", "/ok", via)
    # /smuggle: the client hides a whole request in its content; the origin answers it too.
    hidden = _hidden(honest) if path == "/smuggle" else b""
    requests = [ask(method, path, via, hidden), honest, ask("GET", "/ok", via)]
    assert send_many(one_connection.url, requests) == []
    origin, _ = evil
    assert origin.connections >= 2  # the misframed connection was not used again


def test_an_idle_connection_the_origin_speaks_on_is_never_used_again(
    one_connection: RunningProxy, evil: tuple[EvilOrigin, str]
) -> None:
    origin, _ = evil
    for via in ("alone", "batch"):
        assert send_many(one_connection.url, [ask("GET", "/late", via)]) == []
        time.sleep(LATE_S * 4)  # the unsolicited response lands while the connection is idle
        assert send_many(one_connection.url, [ask("GET", "/ok", via)]) == []
    assert origin.connections == 3


def test_interim_responses_keep_the_connection_reusable(
    one_connection: RunningProxy, evil: tuple[EvilOrigin, str]
) -> None:
    requests = [ask("GET", p, v) for v in ("alone", "batch") for p in ("/interim", "/ok")]
    assert send_many(one_connection.url, requests) == []
    origin, _ = evil
    assert origin.connections == 1
    assert one_connection.pool_opened == 1


def test_pipelined_parts_after_an_honest_run_stay_in_step(
    one_connection: RunningProxy, evil: tuple[EvilOrigin, str]
) -> None:
    # A batch whose last part draws an extra response: the leftover must not answer the next
    # batch, whose parts are pipelined on the same one connection.
    first = [ask("GET", "/ok", "batch") for _ in range(5)] + [ask("GET", "/extra", "batch")]
    second = [ask("GET", "/ok", "batch") for _ in range(6)]
    for requests in (first, second):
        answer = send_batch(one_connection.url, [Sub(r.method, r.target) for r in requests])
        got = [Answer(p.status, p.body) for p in answer.parts]
        assert [c for r, a in zip(requests, got, strict=True) if (c := complaint(r, a))] == []


@pytest.mark.parametrize("evil", [True], ids=["small-window"], indirect=True)
@pytest.mark.parametrize("via", ["alone", "batch"])
def test_an_answer_begun_before_its_request_went_out_ends_the_connection(
    one_connection: RunningProxy, evil: tuple[EvilOrigin, str], via: str
) -> None:
    # /early answers on seeing the head while most of the content is still in the proxy's
    # write buffer; what the origin makes of the rest is unknowable, so no one reuses it.
    requests = [ask("POST", "/early", via, b"x" * LARGE_CONTENT), ask("GET", "/ok", via)]
    assert send_many(one_connection.url, requests) == []
    origin, _ = evil
    assert origin.connections == 2


@pytest.mark.parametrize("evil", [True], ids=["small-window"], indirect=True)
@pytest.mark.parametrize("via", ["alone", "batch"])
def test_an_origin_that_stops_reading_costs_one_timeout(
    one_connection: RunningProxy, via: str
) -> None:
    deaf = ask("POST", "/deaf", via, b"x" * LARGE_CONTENT)
    started = time.monotonic()
    with httpx.Client(timeout=TIMEOUT_S + 5) as client:
        answer = send(one_connection.url, deaf, client)
    # MB-PROXY-2: a timeout is that request's 504, even while the request is still going out.
    assert answer.status == 504
    assert time.monotonic() - started < TIMEOUT_S + 3
    assert send_many(one_connection.url, [ask("GET", "/ok", via)]) == []


@pytest.mark.parametrize("path", ["/extra", "/no-content", "/short-length", "/close"])
def test_parts_pipelined_behind_a_misframed_answer_get_their_own(
    one_connection: RunningProxy, path: str
) -> None:
    # The answers behind the misframed one arrive shifted by one on that connection; the proxy
    # must not hand them out by position, nor give the next batch what is left over.
    for requests in (
        [ask("GET", path, "batch")] + [ask("GET", "/ok", "batch") for _ in range(4)],
        [ask("GET", "/ok", "batch") for _ in range(3)],
    ):
        answer = send_batch(one_connection.url, [Sub(r.method, r.target) for r in requests])
        got = [Answer(p.status, p.body) for p in answer.parts]
        assert [c for r, a in zip(requests, got, strict=True) if (c := complaint(r, a))] == []


def test_many_clients_at_once_each_get_their_own_answers(
    one_connection: RunningProxy, evil: tuple[EvilOrigin, str]
) -> None:
    rng = random.Random(20261122)
    clients: list[list[Ask]] = []
    for _ in range(8):
        requests = []
        for _ in range(25):
            path = rng.choice([*EVIL_PATHS, "/interim", "/ok", "/ok", "/ok", "/ok"])
            if path == "/long-length":
                path = "/ok"  # a stall costs TIMEOUT_S; the single-case test covers it
            method = {"/head-body": "HEAD", "/smuggle": "POST"}.get(path, "GET")
            if rng.random() < 0.2 and path == "/ok":
                method = "POST"
            via = rng.choice(["alone", "batch"])
            body = b"c" * 3 if method == "POST" else b""
            if path == "/smuggle":
                body = _hidden(ask("GET", "/ok", via))
            requests.append(ask(method, path, via, body))
        clients.append(requests)
    with ThreadPoolExecutor(len(clients)) as pool:
        complaints = [
            c
            for found in pool.map(lambda r: send_many(one_connection.url, r), clients)
            for c in found
        ]
    assert complaints == []


def test_an_origin_cutting_a_standalone_answer_is_a_warning_not_an_error(
    one_connection: RunningProxy, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="mixbatch"),
        httpx.Client(timeout=IO_TIMEOUT) as client,
    ):
        answer = send(one_connection.url, ask("GET", "/cut", "alone"), client)
        time.sleep(0.1)  # the serving connection logs once the cut response has been closed
    assert answer.status is None  # the client sees its response cut short, not a whole one
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert any("cut short" in r.getMessage() for r in caplog.records)
