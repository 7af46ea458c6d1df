"""Request variants: each rewrite is the same request to an independent HTTP parser (h11), the
suite learns from the target whether it takes a variant before sending it, and only plainly
framed batch requests sent direct are rewritten."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import h11
import pytest

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import reference_target, target_from_dict
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.core.variant_probe import probe_answer
from mixbatch_conformance.core.variants import PLAIN_SLOTS, VARIANTS, rewrite, variant_for
from mixbatch_conformance.transport.http import Response

AUTHORITY = "127.0.0.1:8080"
BOUNDARY = "mb-variant-unit-3f9a"


def _batch_request(parts: list[SubRequest], extra: list[tuple[str, str]] = ()) -> bytes:  # type: ignore[assignment]
    body = compose_batch(parts, BOUNDARY)
    head = [
        "POST /batch HTTP/1.1",
        f"Host: {AUTHORITY}",
        f"Content-Type: multipart/mixed; boundary={BOUNDARY}",
        *(f"{n}: {v}" for n, v in extra),
        f"Content-Length: {len(body)}",
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


PARTS = [
    SubRequest("GET", "/a?x=1", (("Accept", "application/json"),)),
    SubRequest("PUT", "/b", (("Content-Type", "text/plain"), ("If-Match", '"t"')), b"hello\r\n"),
    SubRequest("DELETE", "/c"),
]
REQUEST = _batch_request(PARTS, [("Authorization", "Bearer x"), ("Prefer", "respond-async")])
GET = f"GET /echo?x=1 HTTP/1.1\r\nHost: {AUTHORITY}\r\nAccept: */*\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n".encode()


def _parsed(request: bytes) -> tuple[bytes, str, dict[str, list[bytes]], bytes]:
    """Method, target path and query, fields (names folded, framing left out), content."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(request)
    req = conn.next_event()
    assert isinstance(req, h11.Request)
    body = b""
    while True:
        event = conn.next_event()
        if isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            break
        else:
            raise AssertionError(f"unexpected {event!r}")
    target = urlsplit(req.target.decode())
    fields: dict[str, list[bytes]] = {}
    for name, value in req.headers:
        if name not in (b"content-length", b"transfer-encoding", b"content-type"):
            fields.setdefault(name.decode(), []).append(value)
    ctype = dict(req.headers)[b"content-type"].decode()
    fields["content-type"] = [repr(parse_media_type(ctype)).encode()]
    return req.method, target.path + "?" + target.query, fields, body


def _parts(content: bytes) -> list[tuple[list[tuple[str, str]], bytes]]:
    env = read_multipart(content, BOUNDARY)
    return [([(n.lower(), v) for n, v in part.fields], part.body) for part in env.parts]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_is_the_same_request_to_h11(variant: str) -> None:
    request = REQUEST if variant != "http10" else GET
    rewritten = rewrite(variant, request, "http", AUTHORITY)
    assert rewritten is not None
    assert rewritten != request
    method, target, fields, body = _parsed(request)
    method2, target2, fields2, body2 = _parsed(rewritten)
    if variant == "accept-multipart":
        # MB-MULTI-1: Accept naming only multipart/mixed chooses what no Accept chooses.
        assert fields2.pop("accept") == [b"multipart/mixed"]
    assert (method2, target2, fields2) == (method, target, fields)
    if body:
        assert _parts(body2) == _parts(body)
    if variant == "part-field-name-case":
        assert body2 != body
        assert len(body2) == len(body)
    elif variant != "chunked":
        assert body2 == body


def test_absolute_form_names_the_authority_and_keeps_the_query() -> None:
    rewritten = rewrite(
        "absolute-form", REQUEST.replace(b"/batch", b"/batch?q=1", 1), "https", AUTHORITY
    )
    assert rewritten is not None
    assert rewritten.startswith(f"POST https://{AUTHORITY}/batch?q=1 HTTP/1.1\r\n".encode())


def test_absolute_form_spells_the_authority_as_the_host_field_does() -> None:
    request = REQUEST.replace(AUTHORITY.encode(), b"LocalHost:8080", 1)
    rewritten = rewrite("absolute-form", request, "http", "localhost:8080")
    assert rewritten is not None
    assert rewritten.startswith(b"POST http://LocalHost:8080/batch HTTP/1.1\r\n")


def test_field_order_moves_only_the_framing_fields() -> None:
    extra = [("Authorization", "Bearer x"), ("Cookie", "a=1"), ("Accept", "x"), ("Cookie", "b=2")]
    rewritten = rewrite("field-order", _batch_request(PARTS, extra), "http", AUTHORITY)
    assert rewritten is not None
    head = rewritten.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]
    names = [line.split(b":")[0] for line in head]
    assert names == [
        b"Content-Length",
        b"Authorization",
        b"Cookie",
        b"Accept",
        b"Cookie",
        b"Content-Type",
        b"Host",
    ]


def test_lines_a_variant_does_not_name_keep_their_octets() -> None:
    request = REQUEST.replace(b"Prefer: respond-async", b"Prefer:respond-async  ", 1)
    for variant in ("absolute-form", "field-order", "media-type-spelling", "chunked"):
        rewritten = rewrite(variant, request, "http", AUTHORITY)
        assert rewritten is not None
        assert b"\r\nPrefer:respond-async  \r\n" in rewritten


def test_the_case_variants_spell_both_cases() -> None:
    lower = rewrite("field-name-case", REQUEST, "http", AUTHORITY)
    upper = rewrite("field-name-case", REQUEST, "http", AUTHORITY, flip=True)
    assert lower is not None
    assert upper is not None
    assert b"\r\nprefer: " in lower
    assert b"\r\nPREFER: " in upper
    parts = rewrite("part-field-name-case", REQUEST, "http", AUTHORITY, flip=True)
    assert parts is not None
    assert parts.index(b"HTTP-METHOD: GET") < parts.index(b"http-method: PUT")


def _with_content(body: bytes, boundary: str = BOUNDARY) -> bytes:
    head = f"POST /batch HTTP/1.1\r\nHost: {AUTHORITY}\r\n"
    head += f"Content-Type: multipart/mixed; boundary={boundary}\r\n"
    return f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body


def test_a_part_without_header_section_is_left_alone() -> None:
    dash = f"--{BOUNDARY}".encode()
    body = dash + b"\r\nHttp-Method: GET\r\nContent-Id: </a>\r\n\r\n\r\n"
    body += dash + b"\r\n\r\nX-Body: 1\r\n\r\nmore\r\n" + dash + b"--"
    rewritten = rewrite("part-field-name-case", _with_content(body), "http", AUTHORITY)
    assert rewritten is not None
    assert b"\r\nhttp-method: GET" in rewritten
    assert b"\r\nX-Body: 1\r\n" in rewritten


def test_a_boundary_that_needs_quoting_is_never_respelt() -> None:
    body = compose_batch([SubRequest("GET", "/a")], "a:b")
    request = _with_content(body, "a:b")
    assert rewrite("media-type-spelling", request, "http", AUTHORITY) is None
    assert rewrite("part-field-name-case", request, "http", AUTHORITY) is None
    assert rewrite("absolute-form", request, "http", AUTHORITY) is not None


@pytest.mark.parametrize(
    "request_bytes",
    [
        # another host: the check tests what a Host field does
        REQUEST.replace(AUTHORITY.encode(), b"other.example", 1),
        # two Host fields, an Expect, a Connection: made odd on purpose
        REQUEST.replace(b"\r\n\r\n", f"\r\nHost: {AUTHORITY}\r\n\r\n".encode(), 1),
        REQUEST.replace(b"\r\n\r\n", b"\r\nExpect: 100-continue\r\n\r\n", 1),
        REQUEST.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1),
        # a length that is not the content's, a field line with a space before its colon
        REQUEST.replace(b"Content-Length: ", b"Content-Length: 1", 1),
        REQUEST.replace(b"Prefer:", b"Prefer :", 1),
        # a request line in absolute-form already, or HTTP/1.0
        REQUEST.replace(b"POST /batch", f"POST http://{AUTHORITY}/batch".encode(), 1),
        REQUEST.replace(b"HTTP/1.1", b"HTTP/1.0", 1),
    ],
)
def test_requests_made_odd_on_purpose_are_sent_as_written(request_bytes: bytes) -> None:
    assert all(rewrite(v, request_bytes, "http", AUTHORITY) is None for v in VARIANTS)


def test_chunked_only_for_a_post_with_small_content() -> None:
    get = REQUEST.replace(b"POST /batch", b"GET /batch", 1)
    assert rewrite("chunked", get, "http", AUTHORITY) is None
    big = _batch_request([SubRequest("PUT", "/b", (), b"x" * 20000)])
    assert rewrite("chunked", big, "http", AUTHORITY) is None


def test_media_type_spelling_only_rewrites_the_plain_spelling() -> None:
    odd = REQUEST.replace(b"multipart/mixed; boundary=", b"multipart/mixed;boundary=", 1)
    assert rewrite("media-type-spelling", odd, "http", AUTHORITY) is None
    assert rewrite("part-field-name-case", odd, "http", AUTHORITY) is None


def test_variant_for_is_seeded_and_sends_about_half_as_written() -> None:
    picks = [variant_for(7, "some-check", n) for n in range(2000)]
    assert picks == [variant_for(7, "some-check", n) for n in range(2000)]
    assert picks != [variant_for(8, "some-check", n) for n in range(2000)]
    assert {p[0] for p in picks if p is not None} == set(VARIANTS)
    assert {p[1] for p in picks if p is not None} == {False, True}
    share = picks.count(None) / len(picks)
    expected = PLAIN_SLOTS / (PLAIN_SLOTS + len(VARIANTS))
    assert abs(share - expected) < 0.05


class _Server(http.server.ThreadingHTTPServer):
    refuse_absolute_form = False
    seen: list[str]
    ports: list[int]
    chunked = 0


class _Handler(http.server.BaseHTTPRequestHandler):
    """A batch endpoint stand-in: one part answered 200, or 400 to absolute-form if told;
    connections persist."""

    server: _Server
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        if self.headers.get("Transfer-Encoding") == "chunked":
            self.server.chunked += 1
            while size := int(self.rfile.readline().strip(), 16):
                self.rfile.read(size + 2)
            self.rfile.readline()
        else:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.seen.append(self.requestline)
        self.server.ports.append(self.client_address[1])
        refused = self.server.refuse_absolute_form and "://" in self.path
        body = b"--r\r\nHttp-Status-Code: 200\r\n\r\n\r\n--r--" if not refused else b"{}"
        self.send_response(400 if refused else 200)
        ctype = "application/problem+json" if refused else "multipart/mixed; boundary=r"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server(("127.0.0.1", 0), _Handler)
    srv.seen = []
    srv.ports = []
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _context(server: _Server, mode: str, via: str | None = None) -> Context:
    port = server.server_address[1]
    base = f"http://127.0.0.1:{port}"
    resources = dict(reference_target(base).resources)
    described = {"base_url": base, "batch_endpoint": "/batch", "resources": resources}
    target = target_from_dict({**described, "profiles": ["core"]})
    return Context(target, RunSettings(request_variants=mode, via=via))


def _send(ctx: Context, path: str = "/batch", judge: Judge | None = None) -> None:
    body = compose_batch([SubRequest("GET", "/a")], BOUNDARY)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    judge = judge or Judge("MB-STATUS-1", check_id="c")
    ctx.send(judge, ctx.raw_request("POST", path, head, body))


def test_a_request_in_a_variant_rides_the_kept_connection(server: _Server) -> None:
    ctx = _context(server, "chunked")
    judge = Judge("MB-STATUS-1", check_id="c")
    _send(ctx, judge=judge)
    _send(ctx, judge=judge)
    assert "Transfer-Encoding: chunked" in judge.exchanges[0].request.decode()
    assert server.ports[-1] == server.ports[-2]


def test_a_variant_the_target_takes_is_sent(server: _Server) -> None:
    ctx = _context(server, "absolute-form")
    _send(ctx)
    assert ctx.variants_not_taken() == ()
    # the probe's two requests, then the check's in absolute-form
    assert [line.split(" ")[1].startswith("http://") for line in server.seen] == [False, True, True]


def test_a_variant_the_target_refuses_is_learned_and_not_sent(server: _Server) -> None:
    server.refuse_absolute_form = True
    ctx = _context(server, "absolute-form")
    _send(ctx)
    _send(ctx)
    assert [line.split(" ")[1].startswith("http://") for line in server.seen] == [
        False,
        True,
        False,
        False,
    ]
    assert ctx.variants_not_taken() == ("absolute-form (batch)",)


@pytest.mark.parametrize(
    ("mode", "via", "path"),
    [("off", None, "/batch"), ("absolute-form", "tls", "/batch"), ("chunked", None, "/other")],
)
def test_no_variant_off_through_an_intermediary_or_for_a_batch_only_off_the_endpoint(
    server: _Server, mode: str, via: str | None, path: str
) -> None:
    _send(_context(server, mode, via), path)
    assert all(" http://" not in line for line in server.seen)
    assert server.chunked == 0


def test_a_request_off_the_endpoint_goes_in_the_variants_of_any_request(server: _Server) -> None:
    _send(_context(server, "absolute-form"), "/other")
    assert server.seen[-1].startswith("POST http://")


def _echo_batch(authority: str, name: str = "X-Mb-Variant-Probe") -> Response:
    echo = json.dumps(
        {
            "method": "GET",
            "target": "/echo?mb-variant-probe",
            "authority": authority,
            "headers": [[name, "mb variant probe"]],
            "body": "",
        }
    ).encode()
    body = b"--r\r\nHttp-Status-Code: 200\r\nContent-Type: application/json\r\n\r\n"
    body += echo + b"\r\n--r--"
    headers = (("Content-Type", "multipart/mixed; boundary=r"),)
    return Response(200, "OK", headers, body, body)


def test_the_probe_reads_the_request_the_echo_saw() -> None:
    plain = probe_answer(_echo_batch("127.0.0.1:8080"))
    assert plain is not None
    # the name's case is outside spec 3.2.4's comparison; the value's octets are not
    assert probe_answer(_echo_batch("127.0.0.1:8080", "x-mb-variant-probe")) == plain
    assert probe_answer(_echo_batch("127.0.0.1:8080\t ")) != plain
