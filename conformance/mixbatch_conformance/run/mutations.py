"""Planted bugs for the relay: each mutation names the checks that must catch it.

Theory of operation: a mutation is data (a slug, what it breaks, the check ids meant to
catch it, the verdicts that count as caught) plus two small functions on the relayed
request and response, and how the relay moves messages meanwhile (`Behaviour`: streamed or
held whole, pipelined answers in order or as they complete, busy refusals passed on or
queued). Multipart bodies are read with the suite's validator and written back
with `write_parts`, so a mutation edits parts, not bytes, unless breaking the bytes is the
point (LF-only output, a missing close delimiter, padding). The self-test runs each
mutation's catchers through the relay and reports the mutation score: caught / planted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.relay import (
    STREAMING,
    Behaviour,
    MutationLike,
    RelayRequest,
    RelayResponse,
)

__all__ = ["MUTATIONS", "Mutation", "by_name", "write_parts"]

#: A part's header fields as (name, value) pairs, in wire order.
FieldList = list[tuple[str, str]]
PartsFn = Callable[[list[tuple[FieldList, bytes]]], list[tuple[FieldList, bytes]]]


def write_parts(
    parts: list[tuple[FieldList, bytes]],
    boundary: str,
    *,
    eol: bytes = b"\r\n",
    padding: bytes = b"",
    preamble: bytes = b"",
    close: bool = True,
) -> bytes:
    dash = b"--" + boundary.encode("latin-1")
    out = bytearray(preamble + eol if preamble else b"")
    for i, (fields, body) in enumerate(parts):
        out += (eol if i else b"") + dash + padding + eol
        for n, v in fields:
            out += f"{n}: {v}".encode("latin-1") + eol
        out += eol + body
    if close:
        out += eol + dash + b"--"
    return bytes(out)


def _boundary(resp_or_req: RelayRequest | RelayResponse) -> str | None:
    try:
        media, params = parse_media_type(resp_or_req.get("Content-Type") or "")
    except ValueError:
        return None
    return params.get("boundary") if media == "multipart/mixed" else None


def _parts(data: bytes, boundary: str) -> list[tuple[FieldList, bytes]] | None:
    env = read_multipart(data, boundary)
    if any(f.sender != "MB-WIRE-16" for f in env.fatal):
        return None
    return [(list(p.fields), p.body) for p in env.parts]


def _fix_length(fields: FieldList, body: bytes) -> FieldList:
    return [(n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields]


@dataclass(frozen=True)
class Mutation(MutationLike):
    """One planted bug."""

    name: str
    breaks: str
    catchers: tuple[str, ...]
    caught_by: tuple[str, ...] = ("FAIL", "FLAKY")
    on_request_parts: PartsFn | None = None
    on_request: Callable[[RelayRequest], None] | None = None
    on_response_parts: PartsFn | None = None
    on_response: Callable[[RelayRequest, RelayResponse], None] | None = None
    #: Called when the relay refuses a request it could not read, for a bug that keeps state
    #: of such refusals or gives them another status than 400 (the status, or None).
    on_unreadable: Callable[[], int | None] | None = None
    #: How the relay moves messages while this bug is planted (streams answers by default).
    behaviour: Behaviour = STREAMING

    @property
    def edits_response(self) -> bool:
        return self.on_response is not None or self.on_response_parts is not None

    def request(self, req: RelayRequest) -> None:
        if self.on_request is not None:
            self.on_request(req)
        b = _boundary(req)
        if self.on_request_parts is not None and b and req.method == "POST":
            parts = _parts(req.body, b)
            if parts is not None:
                req.body = write_parts(self.on_request_parts(parts), b)

    def unreadable(self) -> int | None:
        return self.on_unreadable() if self.on_unreadable is not None else None

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        b = _boundary(resp)
        if self.on_response_parts is not None and b and req.method == "POST":
            parts = _parts(resp.body, b)
            if parts is not None:
                resp.body = write_parts(self.on_response_parts(parts), b)
        if self.on_response is not None:
            self.on_response(req, resp)


# -- helpers for the table ---------------------------------------------------------------------
def _swap(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    return [parts[1], parts[0], *parts[2:]] if len(parts) >= 2 else parts


def _drop_fields(names: set[str]) -> PartsFn:
    return lambda parts: [([(n, v) for n, v in f if n.lower() not in names], b) for f, b in parts]


def _keep_only(names: set[str]) -> PartsFn:
    return lambda parts: [([(n, v) for n, v in f if n.lower() in names], b) for f, b in parts]


def _map_first(fn: Callable[[FieldList, bytes], tuple[FieldList, bytes]]) -> PartsFn:
    return lambda parts: [fn(*parts[0]), *parts[1:]] if parts else parts


def _rewrite_method(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    return [([(n, "GET" if n.lower() == "http-method" else v) for n, v in f], b) for f, b in parts]


def _status_of(fields: FieldList) -> int:
    for n, v in fields:
        if n.lower() == "http-status-code" and v.isdigit():
            return int(v)
    return 0


def _top_500(req: RelayRequest, resp: RelayResponse) -> None:
    b = _boundary(resp)
    parts = _parts(resp.body, b) if b else None
    if parts and any(_status_of(f) >= 400 for f, _ in parts):
        resp.status = 500


def _bytes_edit(fn: Callable[[bytes, str], bytes]) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = _boundary(resp)
        if b and req.method == "POST":
            resp.body = fn(resp.body, b)

    return edit


def _accept_malformed(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "POST" and resp.status in (400, 413, 431):
        resp.status = 200
        resp.set("Content-Type", "multipart/mixed; boundary=relay-fake-0123456789")
        fields = [("Http-Status-Code", "200"), ("Content-Id", "</relay>"), ("Content-Length", "0")]
        resp.body = write_parts([(fields, b"")], "relay-fake-0123456789")


def _strip_accept(pattern: str) -> Callable[[RelayRequest], None]:
    def strip(req: RelayRequest) -> None:
        accept = req.get("Accept") or ""
        if re.search(pattern, accept):
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
            req.headers.append(("X-Relay-Stripped-Accept", accept))

    return strip


def _multipart_207(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get("X-Relay-Stripped-Accept") and resp.status == 200:
        resp.status = 207


def _inherit_outer(req: RelayRequest) -> None:
    outer = req.get("If-None-Match")
    b = _boundary(req)
    if outer and b:
        parts = _parts(req.body, b)
        if parts is not None:
            req.body = write_parts([([*f, ("If-None-Match", outer)], body) for f, body in parts], b)


_CREDENTIALS = {"authorization", "cookie"}


def _drop_outer_credentials(req: RelayRequest) -> None:
    if _boundary(req) and req.method == "POST":
        req.headers = [(n, v) for n, v in req.headers if n.lower() not in _CREDENTIALS]


def _outer_credentials_win(req: RelayRequest) -> None:
    """Each part's own Authorization or Cookie replaced by the batch's (MB-SUB-5 reversed)."""
    b = _boundary(req)
    outer = {n.lower(): v for n, v in req.headers if n.lower() in _CREDENTIALS}
    parts = _parts(req.body, b) if b and outer else None
    if parts is not None:
        req.body = write_parts(
            [([(n, outer.get(n.lower(), v)) for n, v in f], body) for f, body in parts], b or ""
        )


def _copy_etag_up(req: RelayRequest, resp: RelayResponse) -> None:
    b = _boundary(resp)
    parts = _parts(resp.body, b) if b else None
    for fields, _ in parts or []:
        for n, v in fields:
            if n.lower() == "etag":
                resp.set("ETag", v)
                return


def _fake_424(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    out = []
    for f, b in parts:
        if ("Batch-Outcome", "skipped") in f:
            f = [(n, v) for n, v in f if n != "Batch-Outcome"] + [("Http-Status-Code", "424")]
        out.append((f, b))
    return out


def _change_cid(fields: FieldList, body: bytes) -> tuple[FieldList, bytes]:
    return [
        (n, "<" + v.strip("<>./") + ">" if n.lower() == "content-id" else v) for n, v in fields
    ], body


def _is_aborted(fields: FieldList) -> bool:
    return any(n.lower() == "batch-outcome" and v.strip() == "aborted" for n, v in fields)


def _abort_as_500(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that answers a batch it had to stop with 500, as if no part had run."""
    b = _boundary(resp)
    parts = _parts(resp.body, b) if b else None
    if parts and any(_is_aborted(f) for f, _ in parts):
        resp.status = 500
        resp.set("Content-Type", "application/problem+json")
        resp.body = b'{"title":"batch timed out","status":500}'


def _status_on_aborted(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    return [([*f, ("Http-Status-Code", "504")] if _is_aborted(f) else f, b) for f, b in parts]


def _unclosed_after_abort(body: bytes, boundary: str) -> bytes:
    parts = _parts(body, boundary)
    if parts and _is_aborted(parts[-1][0]):
        return write_parts(parts, boundary, close=False)
    return body


def _squash_blank_lines(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    """Part bodies with CRLF CRLF turned into one CRLF, lengths kept consistent: a server that
    reads bodies line by line and drops empty lines (MB-PART-8 broken, framing intact)."""
    out = []
    for fields, body in parts:
        squashed = body.replace(b"\r\n\r\n", b"\r\n")
        out.append((_fix_length(fields, squashed), squashed))
    return out


#: The most octets of a response part body the planted bug below lets through.
TRUNCATE_AT = 65_536


def _truncate_long_bodies(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    """A server that cuts sub-response bodies at one buffer (MB-SUB-1, MB-RESP-4 broken)."""
    return [(_fix_length(f, b[:TRUNCATE_AT]), b[:TRUNCATE_AT]) for f, b in parts]


def _keep_sub_response_length(
    parts: list[tuple[FieldList, bytes]],
) -> list[tuple[FieldList, bytes]]:
    """The sub-response's own Content-Length copied into the part beside the part's own."""
    return [([*f, ("Content-Length", str(len(b)))], b) for f, b in parts]


#: Field lines in a part from which the planted off-by-one refuses it: the reference's
#: max_part_fields default (spec 9.1), so a part exactly at the limit is pushed over it.
AT_FIELD_LIMIT = 100


def _refuse_at_field_limit(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    """A server whose field-line limit is off by one: a part at the limit is refused as over."""
    return [([*f, ("X-Relay-Extra", "1")] if len(f) >= AT_FIELD_LIMIT else f, b) for f, b in parts]


# ----------------------------------------------------------------------------------------------
MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "reorder-parts",
        "MB-RESP-1 order",
        ("batch-equals-alone", "error-policy-default-continue", "property-metamorphic-variants"),
        on_response_parts=_swap,
    ),
    Mutation(
        "drop-last-part",
        "MB-RESP-1 count",
        ("response-framing-strict", "accept-hundred-parts"),
        on_response_parts=lambda p: p[:-1] if len(p) > 1 else p,
    ),
    Mutation(
        "missing-status-code",
        "MB-RESP-2",
        ("response-framing-strict",),
        on_response_parts=_drop_fields({"http-status-code"}),
    ),
    Mutation(
        "top-level-500-on-failed-part",
        "MB-STATUS-5",
        ("accept-failing-part-in-processed-batch",),
        on_response=_top_500,
    ),
    Mutation(
        "multipart-in-207",
        "MB-MULTI-2",
        ("multistatus-xml", "multistatus-json"),
        on_request=_strip_accept(r"xml|multistatus"),
        on_response=_multipart_207,
    ),
    Mutation(
        "boundary-collides-with-body",
        "MB-WIRE-6",
        ("response-framing-strict", "response-delimiter-unique"),
        on_response=_bytes_edit(
            lambda d, b: d.replace(b"\r\n\r\n{", f"\r\n\r\n\r\n--{b}\r\n{{".encode(), 1)
        ),
    ),
    Mutation(
        "wrong-part-content-length",
        "MB-WIRE-16",
        ("response-framing-strict",),
        on_response_parts=lambda p: [
            ([(n, str(int(v) + 1) if n.lower() == "content-length" else v) for n, v in f], b)
            for f, b in p
        ],
    ),
    Mutation(
        "http-method-ignored",
        "MB-PART-8",
        ("batch-equals-alone", "property-batch-equals-alone"),
        on_request_parts=_rewrite_method,
    ),
    Mutation(
        "conditionals-ignored",
        "MB-PROC-9",
        ("conditional-parts", "property-conditional-parts"),
        on_request_parts=_drop_fields(
            {"if-none-match", "if-match", "if-modified-since", "if-unmodified-since"}
        ),
    ),
    Mutation(
        "malformed-envelope-accepted",
        "MB-STATUS-2",
        (
            "reject-bare-lf-after-delimiter",
            "reject-missing-close-delimiter",
            "vector-lf-only",
            "reject-oversized-part-header",
        ),
        on_response=_accept_malformed,
    ),
    Mutation(
        "lf-only-output",
        "MB-WIRE-7",
        ("response-framing-strict",),
        on_response=_bytes_edit(lambda d, b: d.replace(b"\r\n", b"\n")),
    ),
    Mutation(
        "part-headers-lost",
        "MB-RESP-4",
        ("batch-equals-alone", "property-representations-equivalent"),
        on_response_parts=_keep_only(
            {"http-status-code", "content-id", "content-length", "batch-outcome"}
        ),
    ),
    Mutation(
        "missing-close-delimiter",
        "MB-STATUS-6",
        ("response-framing-strict",),
        on_response=_bytes_edit(lambda d, b: d[: d.rfind(f"--{b}--".encode())]),
    ),
    Mutation(
        "part-differs-from-alone",
        "MB-SUB-1",
        ("batch-equals-alone",),
        on_response_parts=_map_first(lambda f, b: (_fix_length(f, b + b" "), b + b" ")),
    ),
    Mutation(
        "content-id-not-echoed",
        "MB-RESP-3",
        ("content-id-forms-echoed",),
        on_response_parts=lambda p: [_change_cid(f, b) for f, b in p],
    ),
    Mutation(
        "skipped-part-faked-424",
        "MB-RESP-5",
        ("error-policy-stop", "property-stop-policy"),
        on_response_parts=_fake_424,
    ),
    Mutation(
        "stop-preference-ignored",
        "MB-PROC-6",
        ("error-policy-stop",),
        on_request=lambda r: setattr(
            r, "headers", [(n, v) for n, v in r.headers if n.lower() != "prefer"]
        ),
    ),
    Mutation(
        "problem-json-dropped",
        "MB-STATUS-4",
        ("problem-document", "reject-bare-lf-in-part-header"),
        on_response=lambda q, r: r.set("Content-Type", "text/plain") if r.status >= 400 else None,
    ),
    Mutation(
        "transport-padding-sent",
        "MB-WIRE-12",
        ("response-framing-strict",),
        on_response=_bytes_edit(
            lambda d, b: d.replace(f"--{b}\r\n".encode(), f"--{b} \r\n".encode())
        ),
    ),
    Mutation(
        "vary-dropped",
        "MB-METHOD-4",
        ("collection-get",),
        on_response=lambda q, r: r.set("Vary", None) if q.method == "GET" else None,
    ),
    Mutation(
        "accept-post-dropped",
        "MB-WIRE-2",
        ("reject-media-type-text-plain",),
        on_response=lambda q, r: r.set("Accept-Post", None),
    ),
    Mutation(
        "unacceptable-accept-ignored",
        "MB-STATUS-9",
        ("accept-not-acceptable",),
        on_request=_strip_accept(r"image/png"),
    ),
    Mutation(
        "preamble-sent",
        "MB-WIRE-10",
        ("response-framing-strict",),
        caught_by=("WARN", "FAIL"),
        on_response=_bytes_edit(lambda d, b: b"relay preamble\r\n" + d),
    ),
    Mutation(
        "interim-status-in-part",
        "MB-RESP-9",
        ("response-framing-strict",),
        on_response_parts=_map_first(
            lambda f, b: ([(n, "103" if n.lower() == "http-status-code" else v) for n, v in f], b)
        ),
    ),
    Mutation(
        "sub-response-field-copied-up", "MB-SEC-2", ("top-level-fields",), on_response=_copy_etag_up
    ),
    Mutation(
        "outer-conditional-inherited",
        "MB-SUB-6",
        ("outer-fields-not-inherited",),
        on_request=_inherit_outer,
    ),
    Mutation(
        "outer-credentials-not-inherited",
        "MB-SUB-5 inheritance",
        ("credentials-inherited",),
        on_request=_drop_outer_credentials,
    ),
    Mutation(
        "outer-credentials-override-part",
        "MB-SUB-5 replacement",
        ("credentials-inherited",),
        on_request=_outer_credentials_win,
    ),
    Mutation(
        "forbidden-fields-stripped",
        "MB-PART-10",
        ("reject-forbidden-field-host", "reject-forbidden-field-expect"),
        on_request_parts=_drop_fields({"host", "expect"}),
    ),
    Mutation(
        "abort-answered-500",
        "MB-STATUS-12",
        ("batch-abort-after-timeout",),
        on_response=_abort_as_500,
    ),
    Mutation(
        "aborted-part-dropped",
        "MB-STATUS-6",
        ("batch-abort-after-timeout",),
        on_response_parts=lambda p: [(f, b) for f, b in p if not _is_aborted(f)],
    ),
    Mutation(
        "aborted-part-with-status",
        "MB-STATUS-6",
        ("batch-abort-after-timeout",),
        on_response_parts=_status_on_aborted,
    ),
    Mutation(
        "no-close-delimiter-after-abort",
        "MB-STATUS-6",
        ("batch-abort-after-timeout",),
        on_response=_bytes_edit(_unclosed_after_abort),
    ),
    Mutation(
        "part-body-blank-lines-squashed",
        "MB-PART-8 content",
        ("accept-binary-body-with-crlf-and-dashes",),
        on_request_parts=_squash_blank_lines,
    ),
    Mutation(
        "long-part-body-truncated",
        "MB-SUB-1 / MB-RESP-4 content",
        ("batch-equals-alone",),
        on_response_parts=_truncate_long_bodies,
    ),
    Mutation(
        "sub-response-content-length-kept",
        "MB-RESP-4 framing fields",
        ("response-framing-strict",),
        on_response_parts=_keep_sub_response_length,
    ),
    Mutation(
        "part-at-field-limit-refused",
        "MB-LIMIT-5 off by one",
        ("limit-part-fields-at-limit",),
        on_request_parts=_refuse_at_field_limit,
    ),
    Mutation(
        "signed-content-length-tolerated",
        "MB-WIRE-20",
        ("reject-content-length-signed",),
        on_request_parts=lambda p: [
            ([(n, v.lstrip("+") if n.lower() == "content-length" else v) for n, v in f], b)
            for f, b in p
        ],
    ),
)


def by_name(name: str) -> Mutation:
    for m in MUTATIONS:
        if m.name == name:
            return m
    raise KeyError(f"no mutation named {name!r}")
