"""Planted violations of the batch's Host, what a 207 entry lists, an atomic batch's
Preference-Applied, the capabilities document's claims and malformed batches sent chunked.

A server that takes an invalid Host, or an empty one, as the base authority (spec 3.2.2, 8.3);
one whose atomic path writes `Preference-Applied: batch-on-error=stop` unasked (spec 7.5);
JSON or XML entries built from a handler's raw header map, framing fields included (spec 6.1,
MB-RESP-4); a JSON abort entry that names a part's target (spec 6.4); and a capabilities
document that hides a form, claims one the server refuses, or hides the atomic profile it runs
(spec 9.2); and a malformed batch sent chunked that is accepted, or whose fault is placed in
octets of the chunked stream rather than of the content (MB-INTER-5).
"""

from __future__ import annotations

import json
import re
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    fake_processed,
    is_batch,
    map_capabilities,
    map_json,
    map_xml,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The authority a planted server puts in place of a Host it should have refused.
_STAND_IN = "localhost"
_JSON_FORM = "application/vnd.mixbatch.multistatus+json"
#: A Host the RFC 9110 §7.2 grammar refuses: a space, a control or an `@` inside, or a second
#: colon outside an IP-literal.
_INVALID_HOST = re.compile(r"[\s\x00-\x1f@]|^[^\[]*:[^:]*:")


def _set_host(req: RelayRequest, value: str) -> None:
    req.headers = [(n, value if n.lower() == "host" else v) for n, v in req.headers]


def _invalid_host_taken(req: RelayRequest) -> None:
    """A server that reads any Host value as the base authority."""
    host = req.get("Host")
    if is_batch(req) and host and _INVALID_HOST.search(host):
        _set_host(req, _STAND_IN)


def _empty_host_matches(req: RelayRequest) -> None:
    """A server whose empty Host makes an empty-host target `http:///x` its own."""
    if is_batch(req) and req.get("Host") == "":
        _set_host(req, _STAND_IN)
        req.body = req.body.replace(b"<http:///", f"<http://{_STAND_IN}/".encode())


def _stop_announced_for_atomic(req: RelayRequest, resp: RelayResponse) -> None:
    atomic = re.search(r"(?i)\batomic\b", req.get("Batch-Mode") or "")
    if is_batch(req) and atomic and req.get("Prefer") is None and resp.status in (200, 207):
        resp.headers.append(("Preference-Applied", "batch-on-error=stop"))


def _stop_announced_over_continue(req: RelayRequest, resp: RelayResponse) -> None:
    """An atomic path that names the stop it implies in place of the continue asked for."""
    atomic = re.search(r"(?i)\batomic\b", req.get("Batch-Mode") or "")
    asked = re.search(r"(?i)batch-on-error\s*=\s*\"?continue", req.get("Prefer") or "")
    if is_batch(req) and atomic and asked and resp.status in (200, 207):
        resp.set("Preference-Applied", "batch-on-error=stop")


def _json_content_length(doc: dict[str, Any]) -> None:
    for item in doc.get("responses", []):
        if item.get("outcome") != "aborted":
            size = len(item.get("body") or "")
            item["headers"] = [*item.get("headers", []), ["Content-Length", str(size)]]


def _xml_transfer_encoding(body: bytes) -> bytes:
    return re.sub(
        rb"(<D:status>[^<]*</D:status>)",
        rb'\1<mb:header name="Transfer-Encoding">chunked</mb:header>',
        body,
    )


def _json_abort_names_part(doc: dict[str, Any]) -> None:
    items = doc.get("responses", [])
    if items and items[-1].get("outcome") == "aborted":
        index = items[-1].get("index")
        items[-1]["href"] = f"/plant/part/{index}"
        items[-1]["content_id"] = f"plant/part/{index}"


def _drop_listed(key: str, value: str) -> Any:
    def edit(doc: dict[str, object]) -> None:
        listed = doc.get(key)
        if isinstance(listed, list):
            doc[key] = [v for v in listed if v != value]

    return edit


def _json_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that lists the JSON form and answers a batch asking for it alone with 406."""
    if is_batch(req) and (req.get("Accept") or "").strip() == _JSON_FORM:
        resp.status = 406
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
        resp.headers.append(("Content-Type", "application/problem+json"))
        doc = {"type": "about:blank", "status": 406, "requirement": "MB-STATUS-9"}
        resp.body = json.dumps(doc).encode()


def _offset_in_chunked_stream(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that counts a fault's byte_offset in the chunked stream, chunk lines included."""
    if not (is_batch(req) and req.chunks and resp.status >= 400):
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    offset = doc.get("byte_offset") if isinstance(doc, dict) else None
    if not isinstance(offset, int):
        return
    start = extra = 0
    for size in req.chunks:
        if start > offset:
            break
        extra += len(b"%x\r\n" % size) + 2
        start += size
    doc["byte_offset"] = offset + extra
    resp.body = json.dumps(doc).encode()


def _chunked_fault_processed(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that runs what it could split of a malformed batch sent chunked."""
    if is_batch(req) and req.chunks and resp.status == 400:
        fake_processed(req, resp)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "invalid-host-taken-as-authority",
        "MB-PART-5 a batch Host that is not uri-host [':' port] taken as the base authority",
        ("batch-host-invalid-refused",),
        on_request=_invalid_host_taken,
    ),
    P(
        "empty-host-target-matches-empty-host",
        "MB-SUB-2 a target with an empty host taken as the batch's own under an empty Host",
        ("batch-host-invalid-refused",),
        on_request=_empty_host_matches,
    ),
    P(
        "atomic-announces-stop-unasked",
        "MB-PROC-8 an atomic batch answered with Preference-Applied: batch-on-error=stop unasked",
        ("atomic-preference-applied-only-when-asked",),
        on_response=_stop_announced_for_atomic,
    ),
    P(
        "atomic-announces-stop-over-continue",
        "MB-PROC-8 an atomic batch asking for continue answered with batch-on-error=stop applied",
        ("atomic-preference-applied-only-when-asked",),
        on_response=_stop_announced_over_continue,
    ),
    P(
        "json-entries-list-content-length",
        "MB-MULTI-5 each JSON entry lists its body's Content-Length",
        ("multistatus-entries-without-framing-fields",),
        on_response=map_json(_json_content_length),
    ),
    P(
        "xml-entries-list-transfer-encoding",
        "MB-RESP-4 each XML entry that ran lists Transfer-Encoding: chunked",
        ("multistatus-entries-without-framing-fields",),
        on_response=map_xml(_xml_transfer_encoding),
    ),
    P(
        "json-abort-entry-names-a-part",
        "MB-MULTI-4 the JSON abort entry carries an href and a content_id",
        ("batch-abort-in-every-form",),
        on_response=map_json(_json_abort_names_part),
    ),
    P(
        "capabilities-hide-json-form",
        "MB-STATUS-9 the capabilities document omits the JSON form the server answers in",
        ("capabilities-agree-with-answers",),
        on_response=map_capabilities(_drop_listed("representations", _JSON_FORM)),
    ),
    P(
        "capabilities-list-refused-json-form",
        "MB-LIMIT-2 the capabilities document lists the JSON form and a batch asking for it is 406",
        ("capabilities-agree-with-answers",),
        on_response=_json_refused,
    ),
    P(
        "capabilities-hide-atomic-profile",
        "MB-PROC-7 the capabilities document omits the atomic profile the server runs",
        ("capabilities-agree-with-answers",),
        on_response=map_capabilities(_drop_listed("profiles", "atomic")),
    ),
    P(
        "chunked-fault-offset-counts-chunk-lines",
        "MB-INTER-5 a fault in a chunked batch placed by octets of the chunked stream",
        ("chunked-faults-answered-as-content-length",),
        on_response=_offset_in_chunked_stream,
    ),
    P(
        "chunked-malformed-batch-processed",
        "MB-INTER-5 a malformed batch sent chunked run as far as it splits",
        ("chunked-faults-answered-as-content-length",),
        on_response=_chunked_fault_processed,
    ),
)
