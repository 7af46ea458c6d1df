"""Batch result representations (spec 6): multipart/mixed (200), the JSON multistatus
(207, MB-MULTI-4/7) and the RFC 4918 XML multistatus (207, MB-MULTI-3/6). Each writer
turns one Entry at a time into octets so that the runner can stream (MB-PROC-4); all
three carry the same information (MB-MULTI-5)."""

import base64
import json
import secrets
import string
from xml.sax.saxutils import escape as _xml_escape

from .http11 import reason
from .limits import SPEC_VERSION

MULTIPART = "multipart/mixed"
JSON_TYPE = "application/vnd.mixbatch.multistatus+json"
XML_TYPE = "application/xml"
BOUNDARY_ALPHABET = string.ascii_letters + string.digits + "_-"


class Entry:
    """One response part: a sub-response, a skipped part or the abort report."""
    __slots__ = ("index", "href", "content_id", "status", "outcome", "headers", "body")

    def __init__(self, index, href, content_id, status, outcome, headers, body):
        self.index = index
        self.href = href                # resolved origin-form target, None for the abort
        self.content_id = content_id    # the request part's Content-Id value, <...>
        self.status = status            # int or None
        self.outcome = outcome          # None, "skipped", "rolled-back", "aborted"
        self.headers = headers          # [(name, value)] of the sub-response (MB-RESP-4)
        self.body = body


class BoundaryCollision(Exception):
    pass


class MultipartWriter:
    status = 200

    def __init__(self):
        # MB-WIRE-5: 32 characters of A-Z a-z 0-9 _ - from a CSPRNG, fresh per message
        self.boundary = "".join(secrets.choice(BOUNDARY_ALPHABET) for _ in range(32))
        self.dash = b"--" + self.boundary.encode()
        self.content_type = f"{MULTIPART}; boundary={self.boundary}"
        self.first = True

    def begin(self):
        return b""

    def entry(self, e):
        lines = []
        if e.status is not None:
            lines.append(("Http-Status-Code", str(e.status)))
        if e.content_id is not None:
            lines.append(("Content-Id", e.content_id))
        if e.outcome is not None:
            lines.append(("Batch-Outcome", e.outcome))
        lines += e.headers
        lines.append(("Content-Length", str(len(e.body))))
        head = "".join(f"{k}: {v}\r\n" for k, v in lines).encode("latin-1")
        # MB-WIRE-6: the dash-boundary must start no line of the body (field values
        # hold no CR or LF, so the header section cannot carry a delimiter line)
        if e.body.startswith(self.dash) or (b"\n" + self.dash) in e.body:
            raise BoundaryCollision()
        out = (b"" if self.first else b"\r\n") + self.dash + b"\r\n" + head + b"\r\n" + e.body
        self.first = False
        return out

    def end(self, summary):
        return (b"" if self.first else b"\r\n") + self.dash + b"--\r\n"


class JsonWriter:
    status = 207
    content_type = JSON_TYPE

    def __init__(self):
        self.first = True

    def begin(self):
        return ('{"spec_version":"%s","responses":[' % SPEC_VERSION).encode()

    def entry(self, e):
        doc = {"index": e.index, "href": e.href,
               "content_id": e.content_id[1:-1] if e.content_id is not None else None,
               "status": e.status, "outcome": e.outcome,
               "headers": [[k, v] for k, v in e.headers]}
        try:
            doc["body"] = e.body.decode("utf-8")
        except UnicodeDecodeError:
            doc["body_base64"] = base64.b64encode(e.body).decode("ascii")
        out = ("" if self.first else ",") + json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        self.first = False
        return out.encode("utf-8")

    def end(self, summary):
        s = {"ok": summary["ok"], "failed": summary["failed"], "skipped": summary["skipped"],
             "rolled_back": summary["rolled-back"]}
        return ('],"summary":' + json.dumps(s, separators=(",", ":")) + "}").encode()


def _x(s, attr=False):
    return _xml_escape(s, {'"': "&quot;"} if attr else {})


class XmlWriter:
    status = 207
    content_type = XML_TYPE + "; charset=utf-8"

    def begin(self):
        return (b'<?xml version="1.0" encoding="utf-8"?>\n'
                b'<D:multistatus xmlns:D="DAV:" xmlns:mb="https://mixbatch.dev/ns/multistatus">\n')

    def entry(self, e):
        out = ["<D:response>"]
        out.append("<D:href/>" if e.href is None else f"<D:href>{_x(e.href)}</D:href>")
        if e.status is not None:
            out.append(f"<D:status>HTTP/1.1 {e.status} {_x(reason(e.status))}</D:status>")
        out.append(f"<mb:index>{e.index}</mb:index>")
        if e.content_id is not None:
            out.append(f"<mb:content-id>{_x(e.content_id[1:-1])}</mb:content-id>")
        if e.outcome is not None:
            out.append(f"<mb:outcome>{_x(e.outcome)}</mb:outcome>")
        for k, v in e.headers:
            out.append(f'<mb:header name="{_x(k, True)}">{_x(v)}</mb:header>')
        out.append('<mb:body encoding="base64">%s</mb:body>' % base64.b64encode(e.body).decode())
        out.append("</D:response>\n")
        return "".join(out).encode("utf-8")

    def end(self, summary):
        return b"</D:multistatus>\n"


WRITERS = {MULTIPART: MultipartWriter, JSON_TYPE: JsonWriter, XML_TYPE: XmlWriter}
