"""Planted violations of the part fields and the sub-request (spec 3.2, 8: MB-PART-*, MB-SUB-1,
MB-SUB-3, MB-SUB-5, MB-SUB-6).

A part-level plant either lacks one validation of spec 3.2 (it processes a part it must
refuse), refuses a valid spelling, or changes what the sub-request receives: a field or the
content lost or cut, another authority, the batch request's fields or credentials applied.
One runs the parts before a part refused at dispatch (MB-STATUS-2). How a part's target is
resolved and checked is planted in plants.targets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.core.validator import FORBIDDEN_REQUEST_FIELDS
from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    body_has,
    boundary_of,
    field_of,
    is_batch,
    map_parts,
    parts_of,
    problem,
    refuses,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _fold_long(parts: list[Part]) -> list[Part]:
    out = []
    for fields, body in parts:
        folded = [
            (n, v[:100] + "\r\n " + v[100:])
            if n.lower() == "content-id" and len(v) > 200
            else (n, v)
            for n, v in fields
        ]
        out.append((folded, body))
    return out


def _map_request_parts(fn: Callable[[list[Part]], list[Part]]) -> Callable[[RelayRequest], None]:
    def edit(req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if parts is not None and b is not None:
            req.body = write_parts(fn(parts), b)

    return edit


def _canonical(name: str) -> str:
    return "-".join(w[:1].upper() + w[1:].lower() for w in name.split("-"))


def _non_canonical_names_unseen(parts: list[Part]) -> list[Part]:
    """A receiver that keys part fields by the name as written while its resources look names
    up canonically: a precondition or content field spelled otherwise is never seen."""
    seen = ("if-none-match", "if-match", "content-type")
    return [
        ([(n, v) for n, v in f if n.lower() not in seen or n == _canonical(n)], b) for f, b in parts
    ]


def _default_content_type(parts: list[Part]) -> list[Part]:
    """A receiver that gives a part with content and no Content-Type the MIME default."""
    return [
        (
            f
            if not b or field_of(f, "Content-Type")
            else [*f, ("Content-Type", "text/plain; charset=us-ascii")],
            b,
        )
        for f, b in parts
    ]


def _empty_bodies(parts: list[Part]) -> list[Part]:
    return [
        ([(n, "0" if n.lower() == "content-length" else v) for n, v in f], b"") for f, _ in parts
    ]


def _drop_extension_fields(parts: list[Part]) -> list[Part]:
    return [([(n, v) for n, v in f if not n.lower().startswith("x-")], b) for f, b in parts]


def _echo_authority(parts: list[Part]) -> list[Part]:
    out = []
    for fields, body in parts:
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and "authority" in doc:
            doc["authority"] = "plant-internal.invalid"
            body = json.dumps(doc).encode()
            fields = set_field(fields, "Content-Length", str(len(body)))
        out.append((fields, body))
    return out


def _forbid(name: str, check: str) -> Mutation:
    return Mutation(
        f"forbidden-field-{name.lower()}-accepted",
        f"MB-PART-10 {name}",
        (check,),
        on_response=accepts(body_has(rb"(?i)\r\n" + name.encode() + rb":")),
    )


def _forbid_spelled(case: Callable[[str], str], spelling: str) -> Mutation:
    """A server that matches forbidden field names case-sensitively, and so misses every one
    spelled as `case` writes it (RFC 9110 §5.1: field names are case-insensitive)."""
    names = b"|".join(re.escape(case(n)).encode() for n in FORBIDDEN_REQUEST_FIELDS)
    return Mutation(
        f"forbidden-field-{spelling}-accepted",
        f"MB-PART-10 {spelling}",
        tuple(f"reject-forbidden-field-{n.lower()}" for n in FORBIDDEN_REQUEST_FIELDS),
        on_response=accepts(body_has(rb"\r\n(?:" + names + rb"):")),
    )


def _methods_upper_cased(req: RelayRequest) -> None:
    """A server that upper-cases each part's Http-Method, so that `get` runs as GET."""
    if is_batch(req):
        req.body = re.sub(
            rb"(?im)^(Http-Method:[ \t]*)([!-~]+)", lambda m: m[1] + m[2].upper(), req.body
        )


def _other_case_methods_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch layer that checks each part's Http-Method against the registered methods as
    spelled (`GET`, `POST`, ...) and answers a part whose method is in another case 501 itself,
    where the same request alone reaches its resource."""
    b_req, b_resp = boundary_of(req), boundary_of(resp)
    if not is_batch(req) or not b_req or not b_resp:
        return
    asked, answered = parts_of(req.body, b_req), parts_of(resp.body, b_resp)
    if asked is None or answered is None or len(asked) != len(answered):
        return
    refused = {
        i
        for i, (fields, _) in enumerate(asked)
        if (method := field_of(fields, "Http-Method")) and method != method.upper()
    }
    if not refused:
        return
    body = json.dumps({"title": "method not implemented", "status": 501}).encode()
    resp.body = write_parts(
        [
            (
                [
                    ("Http-Status-Code", "501"),
                    *[(n, v) for n, v in fields if n.lower() == "content-id"],
                    ("Content-Type", "application/problem+json"),
                    ("Content-Length", str(len(body))),
                ],
                body,
            )
            if i in refused
            else (fields, data)
            for i, (fields, data) in enumerate(answered)
        ],
        b_resp,
    )


#: Where a server that copies a body in one read of 64 KiB stops.
_CUT = 65_536


def _cut_bodies(parts: list[Part]) -> list[Part]:
    return [
        (set_field(f, "Content-Length", str(min(len(b), _CUT))) if len(b) > _CUT else f, b[:_CUT])
        for f, b in parts
    ]


def _outer_credential_added_case_sensitively(req: RelayRequest) -> None:
    """A server that looks for "Authorization" and "Cookie" in a part case-sensitively, and
    so adds the batch's credential to a part that spells its own in another case."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not parts or b is None:
        return
    outer = [(n, v) for n, v in req.headers if n in ("Authorization", "Cookie")]
    out = []
    for f, body in parts:
        names = {n for n, _ in f}
        out.append(([*f, *[(n, v) for n, v in outer if n not in names]], body))
    req.body = write_parts(out, b)


def _empty_credentials_dropped(req: RelayRequest) -> None:
    """A server that takes a part's Authorization or Cookie with an empty value as absent,
    so the part gets the batch request's."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not b or parts is None:
        return
    blank = {"authorization", "cookie"}
    req.body = write_parts(
        [
            ([(n, v) for n, v in f if n.lower() not in blank or v.strip()], body)
            for f, body in parts
        ],
        b,
    )


def _authority_as_written(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that gives a part whose target is an absolute URI that URI's authority as
    written (the echo's `authority` shows it) instead of the batch request's."""
    rb, sb = boundary_of(req), boundary_of(resp)
    sent = parts_of(req.body, rb) if rb and is_batch(req) else None
    got = parts_of(resp.body, sb) if sb else None
    if not sb or sent is None or got is None or len(sent) != len(got):
        return
    out = []
    for (f, _), (fields, body) in zip(sent, got, strict=True):
        ref = (field_of(f, "Content-Id") or "").strip("<>")
        written = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)", ref)
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if written and isinstance(doc, dict) and "authority" in doc:
            doc["authority"] = written[1]
            body = json.dumps(doc).encode()
            fields = set_field(fields, "Content-Length", str(len(body)))
        out.append((fields, body))
    resp.body = write_parts(out, sb)


def _outer_fields_applied(req: RelayRequest) -> None:
    """Copy the batch request's ordinary fields into every part that lacks them."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not b or parts is None:
        return
    skip = {"content-type", "content-length", "host", "authorization", "cookie", "connection"}
    outer = [(n, v) for n, v in req.headers if n.lower() not in skip]
    req.body = write_parts(
        [(f + [o for o in outer if field_of(f, o[0]) is None], body) for f, body in parts], b
    )


def _outer_names_applied(*names: str) -> Callable[[RelayRequest], None]:
    """Copy the batch request's fields of `names` (its Content-Type too, when named) into
    every part that lacks them: a server whose sub-requests start from the batch request."""
    wanted = {n.lower() for n in names}

    def edit(req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if not b or parts is None:
            return
        outer = [(n, v) for n, v in req.headers if n.lower() in wanted]
        req.body = write_parts(
            [(f + [o for o in outer if field_of(f, o[0]) is None], body) for f, body in parts],
            b,
        )

    return edit


def _undeclared_bodies_cut(req: RelayRequest) -> None:
    """A server that reads a part body by its Content-Length alone: a part without one gets
    no content, and one ending in CRLF loses it."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not b or parts is None:
        return
    out = []
    for fields, body in parts:
        if body and field_of(fields, "Content-Length") is None:
            body = body[:-2] if body.endswith(b"\r\n") else b""
        out.append((fields, body))
    req.body = write_parts(out, b)


#: Marks a batch cut before the first part with a fault found only at dispatch.
_CUT_AT_DISPATCH = "X-Plant-Dispatch-Fault"


def _dispatch_fault(req: RelayRequest, fields: list[tuple[str, str]]) -> bool:
    """A fault a server could find only as it dispatches the part: its method, its target
    (another authority, the batch endpoint, the asterisk) or a forbidden field."""
    method = field_of(fields, "Http-Method") or ""
    target = (field_of(fields, "Content-Id") or "").strip("<>")
    host = req.get("Host") or ""
    foreign = re.match(r"(?i)https?://", target) is not None and host not in target
    batch = target.split("?")[0] == req.target.split("?")[0]
    forbidden = any(n.lower() in {f.lower() for f in FORBIDDEN_REQUEST_FIELDS} for n, _ in fields)
    return method in ("TRACE", "CONNECT") or target == "*" or foreign or batch or forbidden


def _run_until_dispatch_fault(req: RelayRequest) -> None:
    """A server that checks targets, methods and fields as it dispatches each part: the parts
    before the first bad one run, then the batch is refused."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not b or not parts:
        return
    for i, (fields, _) in enumerate(parts):
        if i and _dispatch_fault(req, list(fields)):
            req.body = write_parts(parts[:i], b)
            req.headers.append((_CUT_AT_DISPATCH, "1"))
            return


def _refuse_cut(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get(_CUT_AT_DISPATCH):
        problem(resp, 400, "MB-STATUS-2")


def _repeated_fields_combined(parts: list[Part]) -> list[Part]:
    """Fold a part's repeated field lines into the first, comma-separated (RFC 9110 §5.3)."""
    out = []
    for fields, body in parts:
        merged: list[tuple[str, str]] = []
        for n, v in fields:
            at = next((i for i, (m, _) in enumerate(merged) if m.lower() == n.lower()), None)
            if at is None or n.lower() in ("http-method", "content-id"):
                merged.append((n, v))
            else:
                merged[at] = (merged[at][0], f"{merged[at][1]}, {v}")
        out.append((merged, body))
    return out


def _whitespace_collapsed(parts: list[Part]) -> list[Part]:
    """Collapse each run of SP and HTAB in a part's field values to one SP, as a parser that
    splits values on whitespace and joins them again does."""
    return [([(n, " ".join(v.split())) for n, v in f], b) for f, b in parts]


def _first_outer_cookie_only(req: RelayRequest) -> None:
    """Keep only the batch request's first Cookie line, so a part that inherits gets that."""
    if not is_batch(req):
        return
    seen = False
    kept = []
    for n, v in req.headers:
        if n.lower() == "cookie":
            if seen:
                continue
            seen = True
        kept.append((n, v))
    req.headers = kept


#: Outer fields a server that propagates trace context hands to every part.
_TRACE_FIELDS = ("traceparent", "tracestate")


def _trace_context_applied(req: RelayRequest) -> None:
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not b or parts is None:
        return
    outer = [(n, v) for n, v in req.headers if n.lower() in _TRACE_FIELDS]
    req.body = write_parts([(f + outer, body) for f, body in parts], b)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-PART-2: a missing, repeated or invalid Http-Method is 400.
    P(
        "http-method-missing-accepted",
        "MB-PART-2 missing",
        ("reject-http-method-missing",),
        on_response=accepts(body_has(rb"\A--[^\r\n]*\r\nContent-Id:[^\r\n]*\r\n\r\n")),
    ),
    P(
        "http-method-repeated-accepted",
        "MB-PART-2 repeated",
        ("reject-http-method-repeated",),
        on_response=accepts(body_has(rb"Http-Method: GET\r\nHttp-Method: GET")),
    ),
    P(
        "http-method-not-token-accepted",
        "MB-PART-2 not a token",
        ("reject-http-method-not-a-token",),
        on_response=accepts(body_has(rb"Http-Method: GE/T")),
    ),
    P(
        "http-method-empty-accepted",
        "MB-PART-2 empty",
        ("reject-http-method-empty",),
        on_response=accepts(body_has(rb"Http-Method: \r\n")),
    ),
    P(
        "field-names-case-sensitive",
        "MB-PART-2 name case",
        ("accept-field-names-any-case",),
        on_response=refuses(body_has(rb"\r\nhttp-method: GET")),
    ),
    # MB-PART-4: a missing, repeated or malformed Content-Id is 400.
    P(
        "content-id-missing-accepted",
        "MB-PART-4 missing",
        ("reject-content-id-missing",),
        on_response=accepts(body_has(rb"Http-Method: GET\r\n\r\n")),
    ),
    P(
        "content-id-repeated-accepted",
        "MB-PART-4 repeated",
        ("reject-content-id-repeated",),
        on_response=accepts(body_has(rb"Content-Id: <[^>]*>\r\nContent-Id:")),
    ),
    P(
        "content-id-unbracketed-accepted",
        "MB-PART-4 no angle brackets",
        ("reject-content-id-without-brackets",),
        on_response=accepts(body_has(rb"Content-Id: /")),
    ),
    # MB-PART-7: no folding of a long field.
    P(
        "long-content-id-folded",
        "MB-PART-7",
        ("vector-long-content-id",),
        on_response=map_parts(_fold_long),
    ),
    # MB-PART-8: the part's fields and body are the sub-request's.
    P(
        "part-content-dropped",
        "MB-PART-8 content",
        ("accept-binary-body-with-crlf-and-dashes",),
        on_request=_map_request_parts(_empty_bodies),
    ),
    P(
        "request-body-cut-at-64k",
        "MB-PART-8 content over 64 KiB",
        ("bodies-across-sizes",),
        on_request=_map_request_parts(_cut_bodies),
    ),
    P(
        "extension-fields-dropped",
        "MB-PART-8 fields",
        ("target-forms-reach-resource",),
        on_request=_map_request_parts(_drop_extension_fields),
    ),
    # MB-PART-10: one plant per forbidden field a server may forget.
    _forbid("Connection", "reject-forbidden-field-connection"),
    _forbid("TE", "reject-forbidden-field-te"),
    _forbid("Trailer", "reject-forbidden-field-trailer"),
    _forbid("Transfer-Encoding", "reject-forbidden-field-transfer-encoding"),
    _forbid("Upgrade", "reject-forbidden-field-upgrade"),
    _forbid("Keep-Alive", "reject-forbidden-field-keep-alive"),
    _forbid("Proxy-Connection", "reject-forbidden-field-proxy-connection"),
    _forbid("Content-Transfer-Encoding", "reject-forbidden-field-content-transfer-encoding"),
    _forbid("Http-Status-Code", "reject-forbidden-field-http-status-code"),
    _forbid_spelled(str.lower, "lower-case"),
    _forbid_spelled(str.upper, "upper-case"),
    # MB-PART-11: a field line that is not a valid field-line is 400.
    P(
        "obs-fold-accepted",
        "MB-PART-11 obs-fold",
        ("reject-obs-fold",),
        on_response=accepts(body_has(rb"first\r\n second")),
    ),
    P(
        "line-without-colon-accepted",
        "MB-PART-11 no colon",
        ("reject-field-line-without-colon",),
        on_response=accepts(body_has(rb"no colon here")),
    ),
    P(
        "space-before-colon-accepted",
        "MB-PART-11 space before colon",
        ("reject-space-before-colon",),
        on_response=accepts(body_has(rb"Http-Method : GET")),
    ),
    P(
        "empty-field-name-accepted",
        "MB-PART-11 empty name",
        ("vector-empty-field-name",),
        on_response=accepts(body_has(rb"\r\n: no name")),
    ),
    P(
        "value-without-ows-refused",
        "MB-PART-11 no OWS",
        ("accept-field-value-without-ows",),
        on_response=refuses(body_has(rb"Http-Method:GET")),
    ),
    # MB-PART-12: no per-line limit below the section limit.
    P(
        "per-line-limit",
        "MB-PART-12",
        ("accept-long-field-line",),
        on_response=refuses(body_has(rb": y{2000}"), 431, "MB-STATUS-3"),
    ),
    # MB-PART-13: the batch's authority for each sub-request.
    P(
        "sub-request-internal-authority",
        "MB-PART-13 authority",
        ("batch-equals-alone",),
        on_response=map_parts(_echo_authority),
    ),
    # MB-SUB-3: CONNECT and TRACE are 400.
    P(
        "connect-part-accepted",
        "MB-SUB-3 CONNECT",
        ("reject-method-connect",),
        on_response=accepts(body_has(rb"Http-Method: CONNECT")),
    ),
    P(
        "trace-part-accepted",
        "MB-SUB-3 TRACE",
        ("reject-method-trace",),
        on_response=accepts(body_has(rb"Http-Method: TRACE")),
    ),
    # MB-SUB-5: a part's own Authorization or Cookie, spelled in any case, replaces the batch's.
    P(
        "credential-name-case-sensitive",
        "MB-SUB-5 name case",
        ("credentials-any-case",),
        on_request=_outer_credential_added_case_sensitively,
    ),
    # MB-SUB-1: a part's method is the method as written, case and all.
    P(
        "part-method-upper-cased",
        "MB-SUB-1 method case",
        ("part-method-case-kept",),
        on_request=_methods_upper_cased,
    ),
    P(
        "part-method-other-case-refused",
        "MB-SUB-1 a part whose method is in another case refused 501 by the batch layer",
        ("echo-method-case-as-received",),
        on_response=_other_case_methods_refused,
    ),
    # MB-SUB-6: ordinary batch request fields reach no part.
    P(
        "outer-fields-applied",
        "MB-SUB-6 ordinary fields",
        ("outer-fields-not-echoed",),
        on_request=_outer_fields_applied,
    ),
    # MB-STATUS-2: a part refused at dispatch has let the parts before it run.
    P(
        "parts-run-until-a-dispatch-fault",
        "MB-STATUS-2 earlier parts run before a rejected target, method or field",
        ("late-fault-batch-runs-nothing",),
        on_request=_run_until_dispatch_fault,
        on_response=_refuse_cut,
    ),
    # MB-PART-10 on the 207 path: the same validation whatever Accept asks for.
    P(
        "multistatus-path-skips-field-check",
        "MB-PART-10 forbidden field under a 207 Accept",
        ("envelope-faults-refused-in-every-form",),
        on_response=accepts(
            lambda r: (
                any(f in (r.get("Accept") or "") for f in ("xml", "json"))
                and b"Transfer-Encoding: chunked\r\n" in r.body
            )
        ),
    ),
    # MB-PART-13: the content is the part body whether or not the part declares its length.
    P(
        "undeclared-part-body-cut",
        "MB-PART-13 content of a part without Content-Length",
        ("part-body-length-reaches-resource",),
        on_request=_undeclared_bodies_cut,
    ),
    P(
        "batch-content-type-given-to-untyped-part",
        "MB-SUB-6 the batch's Content-Type",
        ("outer-effective-fields-not-applied",),
        on_request=_outer_names_applied("Content-Type"),
    ),
    P(
        "outer-range-and-preconditions-applied",
        "MB-SUB-6 range and preconditions",
        ("outer-effective-fields-not-applied",),
        on_request=_outer_names_applied("Range", "If-Unmodified-Since"),
    ),
    # The sub-request is exactly what the part says (spec 3.2.3, 3.2.4, 8.2).
    P(
        "repeated-part-fields-combined",
        "MB-PART-8 repeated lines",
        ("target-forms-reach-resource", "batch-equals-alone"),
        on_request=_map_request_parts(_repeated_fields_combined),
    ),
    P(
        "part-field-names-as-written-unseen",
        "MB-PART-8 field names in other case",
        ("part-field-names-any-case",),
        on_request=_map_request_parts(_non_canonical_names_unseen),
    ),
    P(
        "part-default-content-type",
        "MB-PART-8 a field the part did not carry",
        ("part-field-names-any-case",),
        on_request=_map_request_parts(_default_content_type),
    ),
    P(
        "part-field-whitespace-collapsed",
        "MB-PART-8 inner whitespace of field values",
        ("part-field-values-kept",),
        on_request=_map_request_parts(_whitespace_collapsed),
    ),
    P(
        "empty-credentials-taken-as-absent",
        "MB-SUB-5 empty values",
        ("credentials-empty-still-own",),
        on_request=_empty_credentials_dropped,
    ),
    P(
        "absolute-target-authority-as-written",
        "MB-PART-13 absolute targets",
        ("absolute-target-gets-batch-authority",),
        on_response=_authority_as_written,
    ),
    P(
        "first-outer-cookie-line-only",
        "MB-SUB-5 repeated lines",
        ("credentials-inherited",),
        on_request=_first_outer_cookie_only,
    ),
    P(
        "proxy-credentials-inherited",
        "MB-SUB-6 Proxy-Authorization and key fields",
        ("outer-fields-not-echoed",),
        on_request=_outer_names_applied("Proxy-Authorization"),
    ),
    P(
        "api-key-inherited",
        "MB-SUB-6 an API key field",
        ("outer-fields-not-echoed",),
        on_request=_outer_names_applied("X-Api-Key"),
    ),
    P(
        "trace-context-applied",
        "MB-SUB-6 trace context",
        ("outer-fields-not-echoed",),
        on_request=_trace_context_applied,
    ),
)
