"""The test resources of spec 14.4 (MB-TEST-1 to MB-TEST-8), all under /res/. Every
request, standalone or a sub-request, reaches them through dispatch() alone, so a part
meets exactly the checks the same request sent alone meets (MB-SUB-1)."""

import asyncio
import base64
import hashlib
import json
import random
import re
import secrets
import time

from . import limits as L
from .conditional import evaluate, http_date
from .http11 import KNOWN_METHODS
from .mediatype import choose
from .messages import Response

PREFIX = "/res"
START = int(time.time())
ECHO_OMIT = {"host", "content-length", "transfer-encoding", "connection"}
MEMBER_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _json(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def problem(status, title, detail=None):
    doc = {"type": "about:blank", "title": title, "status": status}
    if detail:
        doc["detail"] = detail
    return Response(status, [("Content-Type", "application/problem+json")], _json(doc))


def not_allowed(req, allow):
    if req.method not in KNOWN_METHODS:
        r = problem(501, "Not Implemented", f"The method {req.method} is not recognised.")
    else:
        r = problem(405, "Method Not Allowed", f"{req.method} is not allowed here.")
    r.headers.append(("Allow", allow))
    return r


def options(allow):
    return Response(204, [("Allow", allow)])


def strong_tag(data):
    return '"' + hashlib.sha256(data).hexdigest()[:24] + '"'


# ------------------------------------------------------------------ simple resources

OK_BODY = b"ok\n"
OK_TAG = strong_tag(OK_BODY)


def ok(req):
    if req.method == "OPTIONS":
        return options("GET, HEAD, OPTIONS")
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD, OPTIONS")
    c = evaluate(req, OK_TAG, START)
    hdrs = [("ETag", OK_TAG), ("Last-Modified", http_date(START))]
    if c:
        return Response(c, hdrs if c == 304 else [])
    return Response(200, [("Content-Type", "text/plain; charset=utf-8")] + hdrs, OK_BODY)


def echo(req):
    headers = [[k, v] for k, v in req.headers if k.lower() not in ECHO_OMIT]
    doc = {"method": req.method, "target": req.target, "authority": req.authority,
           "headers": headers}
    try:
        doc["body"] = req.body.decode("utf-8")
    except UnicodeDecodeError:
        doc["body_base64"] = base64.b64encode(req.body).decode("ascii")
    return Response(200, [("Content-Type", "application/json")], _json(doc))


def status(req, code):
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD")
    if not re.fullmatch(r"[2-5][0-9]{2}", code):
        return problem(400, "Bad Request", "The status resource serves 200 to 599.")
    n = int(code)
    if n in (204, 205, 304):
        return Response(n)
    r = Response(n, [("Content-Type", "text/plain; charset=utf-8")], f"status {n}\n".encode())
    if n == 401:
        r.headers.append(("WWW-Authenticate", 'Bearer realm="mbserver"'))
    elif n == 405:
        r.headers.append(("Allow", "GET, HEAD"))
    return r


async def delay(req, ms):
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD")
    if not re.fullmatch(r"[0-9]{1,9}", ms) or int(ms) > L.DELAY_MAX_MS:
        return problem(400, "Bad Request", f"The delay resource serves 0 to {L.DELAY_MAX_MS} ms.")
    loop = asyncio.get_running_loop()
    until = loop.time() + int(ms) / 1000.0 + 0.001
    while True:
        left = until - loop.time()
        if left <= 0:
            break
        await asyncio.sleep(left)
    return Response(200, [("Content-Type", "text/plain; charset=utf-8")], f"delayed {int(ms)} ms\n".encode())


def rand(req, n):
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD")
    if not re.fullmatch(r"[0-9]{1,9}", n) or int(n) > L.RANDOM_MAX_N:
        return problem(400, "Bad Request", f"The random resource serves 0 to {L.RANDOM_MAX_N} octets.")
    return Response(200, [("Content-Type", "application/octet-stream")], random.randbytes(int(n)))


ETAG_BODY = b'{"name":"etag resource","version":1}'
ETAG_TAG = '"etag-v1"'
ETAG_LM = START - 3600


def etag_resource(req):
    if req.method == "OPTIONS":
        return options("GET, HEAD, OPTIONS")
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD, OPTIONS")
    hdrs = [("ETag", ETAG_TAG), ("Last-Modified", http_date(ETAG_LM))]
    c = evaluate(req, ETAG_TAG, ETAG_LM)
    if c:
        return Response(c, hdrs if c == 304 else [])
    return Response(200, [("Content-Type", "application/json")] + hdrs, ETAG_BODY)


# ------------------------------------------------------------------ sandbox (MB-TEST-3/4)

class Sandbox:
    def __init__(self, path):
        self.path = path
        self.members = {}   # id -> (content_type, body, etag, last_modified)
        self.version = 0

    def _store(self, mid, req):
        self.version += 1
        ctype = req.field_list("Content-Type") or "application/octet-stream"
        tag = '"m-%d-%s"' % (self.version, hashlib.sha256(req.body).hexdigest()[:12])
        self.members[mid] = (ctype, req.body, tag, int(time.time()))
        return tag

    def collection(self, req):
        allow = "GET, HEAD, POST, OPTIONS"
        if req.method == "OPTIONS":
            return options(allow)
        if req.method in ("GET", "HEAD", "POST"):
            # RFC 9110 13.1: the collection exists, with no validator of its own; a POST's
            # target is the collection, so If-None-Match: * or a foreign If-Match is 412.
            c = evaluate(req, None, None)
            if c == 304:
                return Response(304, [])
            if c:
                return problem(c, "Precondition Failed")
        if req.method in ("GET", "HEAD"):
            body = _json([f"{self.path}/{m}" for m in self.members])
            return Response(200, [("Content-Type", "application/json")], body)
        if req.method != "POST":
            return not_allowed(req, allow)
        if len(req.body) > L.SANDBOX_MAX_MEMBER_BYTES:
            return problem(413, "Content Too Large", "A sandbox member is at most 64 KiB.")
        if len(self.members) >= L.SANDBOX_MAX_MEMBERS:
            return problem(507, "Insufficient Storage", "The sandbox is full.")
        mid = secrets.token_hex(8)
        tag = self._store(mid, req)
        return Response(201, [("Location", f"{self.path}/{mid}"), ("ETag", tag)])

    def member(self, req, mid):
        allow = "GET, HEAD, PUT, DELETE, OPTIONS"
        if req.method == "OPTIONS":
            return options(allow)
        cur = self.members.get(mid)
        exists = cur is not None
        # RFC 9110 13.2.1: preconditions are ignored when the request without them would fail,
        # so a member that is not there is 404 before any If-Match is evaluated (spec 7.6).
        if not exists and req.method in ("GET", "HEAD", "DELETE"):
            return problem(404, "Not Found")
        if req.method == "PUT" and not MEMBER_ID_RE.fullmatch(mid):
            return problem(404, "Not Found", "A member id is 1 to 64 of A-Z a-z 0-9 - _.")
        if req.method in ("GET", "HEAD", "PUT", "DELETE"):
            c = evaluate(req, cur[2] if cur else None, cur[3] if cur else None, exists)
            if c == 304:
                return Response(304, [("ETag", cur[2]), ("Last-Modified", http_date(cur[3]))])
            if c:
                return problem(c, "Precondition Failed")
        if req.method in ("GET", "HEAD"):
            if not exists:
                return problem(404, "Not Found")
            return Response(200, [("Content-Type", cur[0]), ("ETag", cur[2]),
                                  ("Last-Modified", http_date(cur[3]))], cur[1])
        if req.method == "PUT":
            if not MEMBER_ID_RE.fullmatch(mid):
                return problem(404, "Not Found", "A member id is 1 to 64 of A-Z a-z 0-9 - _.")
            if len(req.body) > L.SANDBOX_MAX_MEMBER_BYTES:
                return problem(413, "Content Too Large", "A sandbox member is at most 64 KiB.")
            if not exists and len(self.members) >= L.SANDBOX_MAX_MEMBERS:
                return problem(507, "Insufficient Storage", "The sandbox is full.")
            tag = self._store(mid, req)
            if exists:
                return Response(204, [("ETag", tag)])
            return Response(201, [("Location", f"{self.path}/{mid}"), ("ETag", tag)])
        if req.method == "DELETE":
            if not exists:
                return problem(404, "Not Found")
            del self.members[mid]
            return Response(204)
        return not_allowed(req, allow)


SANDBOX = Sandbox(PREFIX + "/sandbox")


# ------------------------------------------------------------------ collections (4.2)

BOOKS = [
    ("1", b'{"id":1,"title":"The Mythical Man-Month"}', START - 86400 * 3),
    ("2", b'{"id":2,"title":"Structure and Interpretation of Computer Programs"}', START - 86400 * 2),
    ("3", b'{"id":3,"title":"Transaction Processing"}', START - 86400),
]
BOOKS_PATH = PREFIX + "/books"
EMPTY_PATH = PREFIX + "/empty"


def _member_tag(mid, body):
    return '"b%s-%s"' % (mid, hashlib.sha256(body).hexdigest()[:12])


def book(req, mid):
    for m, body, lm in BOOKS:
        if m == mid:
            break
    else:
        return problem(404, "Not Found")
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD")
    tag = _member_tag(mid, body)
    c = evaluate(req, tag, lm)
    hdrs = [("ETag", tag), ("Last-Modified", http_date(lm))]
    if c:
        return Response(c, hdrs if c == 304 else [])
    return Response(200, [("Content-Type", "application/json")] + hdrs, body)


def _multipart_collection(path, members):
    """The collection retrieval's octets: the boundary is a function of the state, so
    every octet is, and the aggregate ETag may be strong (MB-METHOD-7)."""
    state = hashlib.sha256(repr(members).encode()).hexdigest()
    boundary = "coll-" + state[:24]
    out = bytearray()
    for mid, body, lm in members:
        head = (f"--{boundary}\r\nHttp-Status-Code: 200\r\nContent-Id: <{path}/{mid}>\r\n"
                f"Content-Type: application/json\r\nETag: {_member_tag(mid, body)}\r\n"
                f"Last-Modified: {http_date(lm)}\r\nContent-Length: {len(body)}\r\n\r\n")
        out += head.encode("latin-1") + body + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return boundary, bytes(out)


def collection(req, path, members):
    if req.method == "OPTIONS":
        return options("GET, HEAD, OPTIONS")
    if req.method not in ("GET", "HEAD"):
        return not_allowed(req, "GET, HEAD, OPTIONS")
    if req.body:
        r = problem(400, "Bad Request", "A GET for a collection retrieval has no content.")
        doc = json.loads(r.body)
        doc.update({"type": "https://mixbatch.dev/problems/get-with-content",
                    "requirement": "MB-METHOD-3"})
        r.body = _json(doc)
        return r
    rep = choose(req.field_list("Accept"), ["application/json", "multipart/mixed"])
    vary = ("Vary", "Accept")
    if rep is None:
        r = problem(406, "Not Acceptable", "The collection is offered as application/json "
                    "and multipart/mixed.")
        r.headers.append(vary)
        return r
    lm = max((m[2] for m in members), default=START)
    if rep == "multipart/mixed":
        if members:
            boundary, body = _multipart_collection(path, members)
            ctype = f"multipart/mixed; boundary={boundary}"
            tag = strong_tag(body)
            st = 200
        else:
            body, ctype, st = b"", None, 204
            tag = strong_tag(b"empty multipart collection " + path.encode())
    else:
        body = _json([json.loads(b) for _, b, _ in members])
        ctype, st = "application/json", 200
        tag = strong_tag(body)
    hdrs = [("ETag", tag), vary]
    if members:
        hdrs.append(("Last-Modified", http_date(lm)))
    c = evaluate(req, tag, lm if members else None)
    if c == 304:
        return Response(304, hdrs)
    if c:
        r = problem(412, "Precondition Failed")
        r.headers.append(vary)
        return r
    if ctype:
        hdrs.insert(0, ("Content-Type", ctype))
    return Response(st, hdrs, body)


# ------------------------------------------------------------------ routing

async def dispatch(req, norm_path):
    """Route a request (standalone or sub-request) whose path, with percent-encoded
    unreserved characters decoded, is norm_path."""
    p = norm_path
    if p == PREFIX + "/ok":
        return ok(req)
    if p == PREFIX + "/echo":
        return echo(req)
    if p == PREFIX + "/etag":
        return etag_resource(req)
    if p == SANDBOX.path:
        return SANDBOX.collection(req)
    if p.startswith(SANDBOX.path + "/") and "/" not in p[len(SANDBOX.path) + 1:]:
        return SANDBOX.member(req, p[len(SANDBOX.path) + 1:])
    if p == BOOKS_PATH:
        return collection(req, BOOKS_PATH, BOOKS)
    if p == EMPTY_PATH:
        return collection(req, EMPTY_PATH, [])
    m = re.fullmatch(re.escape(BOOKS_PATH) + r"/([^/]+)", p)
    if m:
        return book(req, m.group(1))
    m = re.fullmatch(re.escape(PREFIX) + r"/(status|delay|random)/([^/]*)", p)
    if m:
        kind, arg = m.groups()
        if kind == "status":
            return status(req, arg)
        if kind == "delay":
            return await delay(req, arg)
        return rand(req, arg)
    return problem(404, "Not Found", "No resource here.")
