"""Request variants: each rewrite is the same request to an independent HTTP parser (h11), the
suite learns from the target whether it takes a variant before sending it, and only plainly
framed batch requests sent direct are rewritten."""

from __future__ import annotations

import http.server
import json
import re
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
from mixbatch_conformance.core.variants import (
    ALONE_VARIANTS,
    PLAIN_SLOTS,
    VALUE_VARIANTS,
    VARIANTS,
    rewrite,
    variant_for,
)
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


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v not in VALUE_VARIANTS])
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
    first_lines_only = False
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

    def do_GET(self) -> None:
        """The echo: the field lines received, or only the first of each name if told."""
        names: set[str] = set()
        headers = []
        for name, value in self.headers.items():
            if not (self.server.first_lines_only and name.lower() in names):
                headers.append([name, value])
            names.add(name.lower())
        url = urlsplit(self.path)
        target = url.path + (f"?{url.query}" if url.query else "")
        doc = {"method": "GET", "target": target, "headers": headers, "body": ""}
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
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


# -- the variants that respell values ------------------------------------------------------
#: A batch whose own header section holds list fields with quoted commas, entity-tags (one with
#: a backslash, which an opaque-tag takes as an octet), media ranges with and without weights,
#: and fields that are no list but hold commas.
LISTS = [
    ("Accept", 'application/xml;q=0.1, multipart/mixed, text/plain; x="a,b;c";q=0.2'),
    ("Prefer", 'mb-probe="x, y", batch-on-error=stop'),
    ("If-None-Match", '"a,b\\", W/"c"'),
    ("Cache-Control", "no-transform, max-age=0"),
    ("Batch-Mode", "atomic"),
    ("Authorization", "Bearer a, b"),
    ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"),
    ("X-Mb-Custom", "a, b"),
]
VALUES = _batch_request(PARTS, LISTS)
#: The fields an independent reading treats as lists (RFC 9110 §12.5, §13.1, RFC 9111 §5.2,
#: RFC 7240 §2, spec section 9), and those holding media types (RFC 9110 §8.3, §12.5.1).
LIST_NAMES = {"accept", "prefer", "if-none-match", "if-match", "cache-control", "batch-mode"}
MEDIA = {"accept", "content-type"}


def _split_outside_quotes(value: str, sep: str, *, escapes: bool = True) -> list[str]:
    out, cur, quoted, i = [], "", False, 0
    while i < len(value):
        c = value[i]
        if quoted and escapes and c == "\\":
            cur += value[i : i + 2]
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        if c == sep and not quoted:
            out.append(cur.strip(" \t"))
            cur = ""
        else:
            cur += c
        i += 1
    return [*out, cur.strip(" \t")]


def _read_as_rfc_9110(request: bytes) -> tuple[bytes, bytes, dict[str, object], bytes]:
    """h11's reading, each field's lines combined in order (RFC 9110 §5.3), a list read into
    its non-empty elements (§5.6.1.2), a media type's empty parameters left out (§5.6.6)."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(request)
    req = conn.next_event()
    assert isinstance(req, h11.Request)
    body = b""
    while not isinstance(event := conn.next_event(), h11.EndOfMessage):
        assert isinstance(event, h11.Data)
        body += event.data
    lines: dict[str, list[str]] = {}
    for name, value in req.headers:
        lines.setdefault(name.decode(), []).append(value.decode("latin-1"))
    fields: dict[str, object] = {}
    for name, values in lines.items():
        if name == "content-length":
            continue
        if name not in LIST_NAMES | MEDIA:
            fields[name] = values
            continue
        combined = ", ".join(values)
        tags = name in ("if-match", "if-none-match")
        members = (
            _split_outside_quotes(combined, ",", escapes=not tags) if name in LIST_NAMES else values
        )
        if name in MEDIA:
            members = [";".join(p for p in _split_outside_quotes(m, ";") if p) for m in members]
        fields[name] = [m for m in members if m]
    return req.method, req.target, fields, body


@pytest.mark.parametrize("variant", VALUE_VARIANTS)
def test_a_value_variant_is_the_same_request_read_as_rfc_9110_reads_it(variant: str) -> None:
    rewritten = rewrite(variant, VALUES, "http", AUTHORITY)
    assert rewritten is not None
    assert rewritten != VALUES
    assert _read_as_rfc_9110(rewritten) == _read_as_rfc_9110(VALUES)
    # the batch's content, and so every byte offset in it, is untouched
    assert rewritten.partition(b"\r\n\r\n")[2] == VALUES.partition(b"\r\n\r\n")[2]


def _head(request: bytes) -> list[bytes]:
    return request.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]


def test_list_lines_splits_each_list_in_place_and_in_order_never_at_a_quoted_comma() -> None:
    rewritten = rewrite("list-lines", VALUES, "http", AUTHORITY)
    assert rewritten is not None
    assert _head(rewritten) == [
        f"Host: {AUTHORITY}".encode(),
        f"Content-Type: multipart/mixed; boundary={BOUNDARY}".encode(),
        b"Accept: application/xml;q=0.1",
        b"Accept: multipart/mixed",
        b'Accept: text/plain; x="a,b;c";q=0.2',
        b'Prefer: mb-probe="x, y"',
        b"Prefer: batch-on-error=stop",
        b'If-None-Match: "a,b\\"',
        b'If-None-Match: W/"c"',
        b"Cache-Control: no-transform",
        b"Cache-Control: max-age=0",
        b"Batch-Mode: atomic",
        b"Authorization: Bearer a, b",
        b"Date: Sun, 06 Nov 1994 08:49:37 GMT",
        b"X-Mb-Custom: a, b",
        _head(VALUES)[-1],
    ]


def test_list_spelling_adds_one_empty_element_at_each_end() -> None:
    rewritten = rewrite("list-spelling", VALUES, "http", AUTHORITY)
    assert rewritten is not None
    head = _head(rewritten)
    assert b"Batch-Mode: , atomic ," in head
    assert b'Prefer: , mb-probe="x, y" ,batch-on-error=stop ,' in head
    accept = next(line for line in head if line.startswith(b"Accept:"))
    assert accept.count(b",") == 2 + 2 + 1  # two separators, two empty ends, one quoted


def test_parameter_spelling_is_what_the_grammar_allows() -> None:
    """RFC 9110 §12.5.1: a media range, its parameters (empty ones among them), and a weight
    only last; spec 3.1.1: the batch media type with empty parameters."""
    rewritten = rewrite("parameter-spelling", VALUES, "http", AUTHORITY)
    assert rewritten is not None
    head = _head(rewritten)
    assert f"Content-Type: multipart/mixed ;; boundary={BOUNDARY} ;".encode() in head
    assert (
        b'Accept: application/xml ;;; q=0.1, multipart/mixed ;;;, text/plain ;;; x="a,b;c"; q=0.2'
        in head
    )
    token = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
    param = rf'{token}=(?:{token}|"(?:[^"\\\\]|\\\\.)*")'
    weight = r"[ \t]*;[ \t]*q=(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)"
    media_range = rf"{token}/{token}(?:[ \t]*;[ \t]*(?:{param})?)*?(?:{weight})?"
    accept = next(line for line in head if line.startswith(b"Accept:"))[len("Accept: ") :]
    for member in _split_outside_quotes(accept.decode(), ","):
        assert re.fullmatch(media_range, member), member


@pytest.mark.parametrize(
    ("name", "value"),
    [
        # written odd on purpose: an empty element, a quote left open, the `*` of If-Match
        ("Batch-Mode", "atomic,"),
        ("Prefer", 'x="a, b'),
        ("If-Match", "*"),
        # no list: their commas separate nothing
        ("Authorization", "Bearer a, b"),
        ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("X-Mb-Custom", "a, b"),
        ("Cookie", "a=1; b=2"),
    ],
)
def test_a_field_that_is_no_plain_list_keeps_its_octets(name: str, value: str) -> None:
    request = _batch_request(PARTS, [(name, value), ("Accept", "a/b, c/d")])
    for variant in VALUE_VARIANTS:
        rewritten = rewrite(variant, request, "http", AUTHORITY)
        assert rewritten is not None
        assert f"\r\n{name}: {value}\r\n".encode() in rewritten


def test_a_media_range_with_an_empty_parameter_or_an_early_weight_keeps_its_octets() -> None:
    accept = "a/b;;x=1, c/d;q=0.5;x=1, e/f"
    rewritten = rewrite(
        "parameter-spelling", _batch_request(PARTS, [("Accept", accept)]), "http", AUTHORITY
    )
    assert rewritten is not None
    assert b"\r\nAccept: a/b;;x=1, c/d;q=0.5;x=1, e/f ;;;\r\n" in rewritten


def test_a_request_with_nothing_to_respell_goes_as_written() -> None:
    odd = REQUEST.replace(b"multipart/mixed; boundary=", b"multipart/mixed;boundary=", 1)
    plain = odd.replace(b"Prefer: respond-async\r\n", b"", 1)
    assert all(rewrite(v, plain, "http", AUTHORITY) is None for v in VALUE_VARIANTS)
    # one member: nothing to split, but an empty element to add
    assert rewrite("list-lines", odd, "http", AUTHORITY) is None
    assert rewrite("list-spelling", odd, "http", AUTHORITY) is not None


def test_a_request_alone_never_goes_in_a_value_variant() -> None:
    """The echo reports the lines it received (MB-TEST-2), which checks compare octet for
    octet (spec 3.2.4)."""
    assert not set(VALUE_VARIANTS) & set(ALONE_VARIANTS)


def _echo(headers: list[list[str]]) -> Response:
    doc = {"method": "GET", "target": "/echo", "authority": AUTHORITY, "headers": headers}
    body = json.dumps({**doc, "body": ""}).encode()
    return Response(200, "OK", (("Content-Type", "application/json"),), body, body)


def test_the_probe_reads_an_echoed_list_as_rfc_9110_reads_it() -> None:
    written = _echo([["X-A", "1"], ["Accept", "a/b, c/d;q=0.5"], ["X-B", "2"]])
    same = [
        [["X-A", "1"], ["Accept", "a/b"], ["Accept", "c/d;q=0.5"], ["X-B", "2"]],
        [["X-A", "1"], ["Accept", ", a/b ,c/d;q=0.5 ,"], ["X-B", "2"]],
        [["X-A", "1"], ["Accept", "a/b ;;;, c/d ;;; q=0.5"], ["X-B", "2"]],
    ]
    lost = [
        [["X-A", "1"], ["Accept", "a/b"], ["X-B", "2"]],
        [["X-A", "1"], ["Accept", "a/b, c/d;q=0.5"], ["X-B", "2 "]],
        [["X-A", "1"], ["X-B", "2"], ["Accept", "a/b, c/d;q=0.5"]],
    ]
    want = probe_answer(written, lists=True)
    assert all(probe_answer(_echo(h), lists=True) == want for h in same)
    assert all(probe_answer(_echo(h), lists=True) != want for h in lost)
    # without `lists`, the lines compare as spec 3.2.4 compares them
    assert all(probe_answer(_echo(h)) != probe_answer(written) for h in same)


@pytest.mark.parametrize("first_lines_only", [False, True])
def test_a_value_variant_is_learned_from_the_echo_too(
    server: _Server, first_lines_only: bool
) -> None:
    """The batch's own fields reach no part; a stack that keeps only the first line of a
    field shows in the echo of the GET alone, and the variant is then not sent."""
    server.first_lines_only = first_lines_only
    ctx = _context(server, "list-lines")
    body = compose_batch([SubRequest("GET", "/a")], BOUNDARY)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), ("Accept", "a/b, c/d")]
    judge = Judge("MB-STATUS-1", check_id="c")
    ctx.send(judge, ctx.raw_request("POST", "/batch", head, body))
    sent = judge.exchanges[-1].request
    assert (b"\r\nAccept: a/b\r\nAccept: c/d\r\n" in sent) is not first_lines_only
    assert ctx.variants_not_taken() == (("list-lines (batch)",) if first_lines_only else ())
