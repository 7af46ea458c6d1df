"""Planted violations of the batch endpoint as an HTTP resource, of its discovery document and of
the edges of the test resources (spec 4.1, 9.2, 10.1, 14.4).

    trace-answered-501              TRACE on the batch endpoint answered 501 without Allow, as by
                                    a method switch that knows only the methods it routes
                                    somewhere (MB-METHOD-2)
    framework-405-in-plain-text     a 405 to PATCH, DELETE or TRACE without content written by
                                    the framework's router: text/plain, no problem document
                                    (MB-STATUS-4)
    options-with-content-answered-405
                                    OPTIONS with content answered 405, as by a dispatch that
                                    routes only a bare OPTIONS to discovery (MB-LIMIT-2)
    head-with-content-answered-400  HEAD with content refused 400, as by a GET content rule
                                    made for GET and HEAD (MB-METHOD-2)
    delete-with-content-answered-400
                                    DELETE with content refused 400 the same way (MB-METHOD-2)
    get-with-empty-length-answered-400
                                    a GET carrying Content-Length: 0 taken to have content and
                                    refused 400 (MB-METHOD-3, MB-METHOD-2)
    unknown-method-with-content-answered-400
                                    a method outside RFC 9110 with content refused 400, not
                                    405 or 501 (MB-METHOD-2)
    options-with-query-not-found    OPTIONS routed by its whole request target, so one with a
                                    query is 404 (MB-LIMIT-2)
    capabilities-endpoint-constant  the capabilities document's endpoint written from a
                                    constant naming a path the server does not serve (MB-LIMIT-2)
    random-capped-at-1mib           the random resource draws at most 1 MiB and answers 200
                                    with that for any larger count it accepts (MB-TEST-5)
    delay-zero-refused              the delay resource reads its count as a positive number and
                                    refuses 0 with 400 (MB-TEST-7)
    delay-from-batch-arrival        a delayed part's wait counted from the moment its batch
                                    arrived, not from the moment the part began to run, so a
                                    delayed part after another answers that much sooner
                                    (MB-TEST-7)
    referring-delay-from-batch-arrival
                                    the same, only in a batch under Batch-Mode: references,
                                    whose parts wait for the answers they refer to before
                                    they are handed to their resource (MB-TEST-7)
    delay-stopped-within-answer-margin
                                    a delayed part that would end within 500 ms of the batch's
                                    time budget stopped at the budget with the abort part, the
                                    margin kept for writing the answer (MB-TEST-7)
    slow-content-refused-408        a batch whose content took more than a second to arrive
                                    answered 408, a guard on slow senders tighter than the
                                    budget the target declares (MB-TEST-7)
    chunked-trailer-refused         a chunked batch ending in a trailer section refused 400, as
                                    by a chunk reader that expects the empty line right after
                                    the last chunk (MB-INTER-5)
    endpoint-post-any-case          the batch endpoint's method matched without case, so a batch
                                    sent as post or Post runs (MB-METHOD-2)
    endpoint-options-any-case       options or Options on the batch endpoint answered with the
                                    capabilities document (MB-METHOD-2)
    endpoint-post-any-case-in-modes the method matched without case on the paths of the 207
                                    forms and the modes only (MB-METHOD-2)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    BATCH_PATH,
    boundary_of,
    in_mode_or_form,
    is_batch,
    parts_of,
    problem,
)
from mixbatch_conformance.transport.embedded import EMBEDDED_BATCH_TIMEOUT_MS
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference target's test resources (the relay fronts the reference).
RANDOM_PREFIX = "/random/"
DELAY_PREFIX = "/delay/"
#: The most octets the planted random resource draws.
RANDOM_CAP = 1 << 20


def _on_batch_path(req: RelayRequest) -> bool:
    return req.target.split("?", 1)[0] == BATCH_PATH


def _trace_501(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "TRACE" and _on_batch_path(req):
        problem(resp, 501, "MB-METHOD-2")


def _framework_405(req: RelayRequest, resp: RelayResponse) -> None:
    unrouted = req.method in ("PATCH", "DELETE", "TRACE") and not req.body
    if unrouted and _on_batch_path(req) and resp.status == 405:
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("allow", "date")]
        resp.headers.append(("Content-Type", "text/plain; charset=utf-8"))
        resp.body = b"405 method not allowed\n"


def _options_query_404(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "OPTIONS" and req.target.startswith(f"{BATCH_PATH}?"):
        problem(resp, 404, "MB-LIMIT-2")


def _endpoint_constant(req: RelayRequest, resp: RelayResponse) -> None:
    if (
        req.method != "OPTIONS"
        or resp.status != 200
        or "capabilities" not in (resp.get("Content-Type") or "")
    ):
        return
    doc = json.loads(resp.body)
    doc["endpoint"] = "/mixbatch"
    resp.body = json.dumps(doc).encode()


def _random_capped(req: RelayRequest, resp: RelayResponse) -> None:
    if req.target.startswith(RANDOM_PREFIX) and resp.status == 200:
        resp.body = resp.body[:RANDOM_CAP]


def _delay_zero(req: RelayRequest, resp: RelayResponse) -> None:
    if req.target.split("?", 1)[0] == f"{DELAY_PREFIX}0":
        problem(resp, 400, "MB-TEST-7")


#: A part's Content-Id naming the delay resource: the path's count and what follows it.
_DELAY_ID = re.compile(
    r"<(?P<before>(?:[a-z][a-z0-9+.-]*://[^/>]*)?)/delay/(?P<ms>[0-9]+)(?P<after>[?#][^>]*)?>", re.I
)


#: The reference server's whole-batch time budget as the embedded target declares it, and the
#: margin a planted server keeps before it for writing its answer.
BUDGET_MS = EMBEDDED_BATCH_TIMEOUT_MS
ANSWER_MARGIN_MS = 500
ABORTED_BODY = (
    b'{"type": "about:blank", "title": "Batch aborted", "status": 503,'
    b' "requirement": "MB-STATUS-6", "part_index": 0}'
)


def _stopped_within_margin(req: RelayRequest, resp: RelayResponse) -> None:
    """The first delayed part that would end within ANSWER_MARGIN_MS of the budget, the delays
    before it counted, answered by the abort part, and nothing after it."""
    rb, sb = boundary_of(req), boundary_of(resp)
    asked = parts_of(req.body, rb) if rb and is_batch(req) else None
    got = parts_of(resp.body, sb) if sb else None
    if asked is None or got is None or sb is None or len(asked) != len(got):
        return
    passed = 0
    for index, (fields, _) in enumerate(asked):
        cid = next((v for n, v in fields if n.lower() == "content-id"), "")
        found = _DELAY_ID.fullmatch(cid.strip())
        if not found:
            continue
        passed += int(found["ms"])
        if BUDGET_MS - ANSWER_MARGIN_MS < passed <= BUDGET_MS:
            doc = ABORTED_BODY.replace(b'"part_index": 0', f'"part_index": {index}'.encode())
            abort = [
                ("Batch-Outcome", "aborted"),
                ("Content-Type", "application/problem+json"),
                ("Content-Length", str(len(doc))),
            ]
            resp.body = write_parts([*got[:index], (abort, doc)], sb)
            return


#: Seconds a planted guard on slow senders gives a batch's content to arrive.
CONTENT_DEADLINE_S = 1.0


def _slow_content_408(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and req.arrival_s > CONTENT_DEADLINE_S:
        problem(resp, 408, "MB-TEST-7")
        resp.close = True


#: Where a delay plant keeps, per connection, the Content-Id each rewritten part was sent with.
_SENT_IDS = "delay-from-arrival:sent-ids"


def _delay_from_arrival(
    parts: list[tuple[FieldList, bytes]],
) -> tuple[list[tuple[FieldList, bytes]], dict[int, str]]:
    """Each delayed part waits only what is left of its count since the batch arrived.

    The reference server runs parts one after another (MB-PROC-2), and a part other than a
    delay takes next to no time, so a delayed part begins when the delays before it have
    passed: counting its delay from the batch's arrival leaves it the part of its count that
    those have not used up. Returns the parts and, for each part rewritten, the Content-Id it
    was sent with: the server modelled runs the shorter delay but names the target it was
    given, so the answer carries the client's Content-Id again."""
    passed = 0
    sent: dict[int, str] = {}
    out: list[tuple[FieldList, bytes]] = []
    for index, (fields, body) in enumerate(parts):
        edited: FieldList = []
        for name, value in fields:
            found = _DELAY_ID.fullmatch(value.strip()) if name.lower() == "content-id" else None
            if found:
                ms = int(found["ms"])
                left = max(0, ms - passed)
                passed = max(passed, ms)
                if left != ms:
                    sent[index] = value
                    value = f"<{found['before']}/delay/{left}{found['after'] or ''}>"
            edited.append((name, value))
        out.append((edited, body))
    return out, sent


def _shorten_delays(req: RelayRequest, *, referring_only: bool) -> None:
    modes = {m.strip().lower() for m in (req.get("Batch-Mode") or "").split(",")}
    b = boundary_of(req)
    if not b or not is_batch(req) or (referring_only and "references" not in modes):
        return
    parts = parts_of(req.body, b)
    if parts is None:
        return
    edited, sent = _delay_from_arrival(parts)
    if sent:
        req.body = write_parts(edited, b)
        req.connection[_SENT_IDS] = sent


def _delays_from_arrival(req: RelayRequest) -> None:
    _shorten_delays(req, referring_only=False)


def _referring_delays_from_arrival(req: RelayRequest) -> None:
    """`_delay_from_arrival` in a batch whose Batch-Mode lists references."""
    _shorten_delays(req, referring_only=True)


def _sent_ids_answered(req: RelayRequest, resp: RelayResponse) -> None:
    """The answer's parts carry the Content-Id each rewritten part was sent with."""
    sent = req.connection.pop(_SENT_IDS, None)
    b = boundary_of(resp)
    if not b or not isinstance(sent, dict):
        return
    parts = parts_of(resp.body, b)
    if parts is None:
        return
    restored = [
        (
            [(n, sent[i]) if n.lower() == "content-id" and i in sent else (n, v) for n, v in fields]
            if i in sent
            else fields,
            body,
        )
        for i, (fields, body) in enumerate(parts)
    ]
    resp.body = write_parts(restored, b)


def _trailer_refused(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and req.trailers:
        problem(resp, 400, "MB-STATUS-2")


def _folds_case(
    method: str, when: Callable[[RelayRequest], bool] = lambda req: True
) -> Callable[[RelayRequest], None]:
    """A server that matches the batch endpoint's `method` whatever the letter case."""

    def edit(req: RelayRequest) -> None:
        if _on_batch_path(req) and req.method.upper() == method and when(req):
            req.method = method

    return edit


def _options_content_400(req: RelayRequest, resp: RelayResponse) -> None:
    """OPTIONS with content refused as a GET with content is (MB-METHOD-3's rule carried over)."""
    if _on_batch_path(req) and req.method == "OPTIONS" and (req.body or req.chunks):
        problem(resp, 400, "MB-METHOD-3")


def _has_content(req: RelayRequest) -> bool:
    return bool(req.body or req.chunks)


def _content_400_on(method: str) -> Callable[[RelayRequest, RelayResponse], None]:
    """`method` with content on the batch endpoint refused 400 as a GET with content is: the
    GET content rule (MB-METHOD-3) carried over to another method."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if _on_batch_path(req) and req.method == method and _has_content(req):
            problem(resp, 400, "MB-METHOD-3")

    return edit


def _empty_length_get_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A GET on the batch endpoint taken to have content because it carries a Content-Length
    field, even `Content-Length: 0`."""
    if _on_batch_path(req) and req.method == "GET" and req.get("Content-Length") is not None:
        problem(resp, 400, "MB-METHOD-3")


def _unknown_content_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A method outside RFC 9110 with content on the batch endpoint refused 400 as a GET with
    content is."""
    known = ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH")
    if _on_batch_path(req) and req.method not in known and _has_content(req):
        problem(resp, 400, "MB-METHOD-3")


def _options_content_405(req: RelayRequest, resp: RelayResponse) -> None:
    """OPTIONS with content on the batch endpoint answered 405, as a method the endpoint does not
    support, by a dispatch that routes only a bare OPTIONS to discovery."""
    if _on_batch_path(req) and req.method == "OPTIONS" and _has_content(req):
        problem(resp, 405, "MB-METHOD-2")
        resp.set("Allow", "POST, OPTIONS")


PLANTS: tuple[Mutation, ...] = (
    Mutation("trace-answered-501", "MB-METHOD-2", ("method-not-allowed",), on_response=_trace_501),
    Mutation(
        "delay-stopped-within-answer-margin",
        "MB-TEST-7 a delayed part ending within 500 ms of the budget stopped for its time",
        ("delay-ending-inside-budget-answered",),
        caught_by=("FAIL",),
        on_response=_stopped_within_margin,
    ),
    Mutation(
        "slow-content-refused-408",
        "MB-TEST-7 a batch whose content arrives over more than a second refused 408",
        ("delay-ending-inside-budget-answered",),
        caught_by=("FAIL",),
        on_response=_slow_content_408,
    ),
    Mutation(
        "framework-405-in-plain-text",
        "MB-STATUS-4",
        ("method-refusal-names-requirement",),
        on_response=_framework_405,
    ),
    Mutation(
        "options-with-content-refused",
        "MB-LIMIT-2",
        ("options-with-content-answered",),
        on_response=_options_content_400,
    ),
    Mutation(
        "options-with-content-answered-405",
        "MB-LIMIT-2 OPTIONS with content taken for another method",
        ("options-with-content-answered",),
        on_response=_options_content_405,
    ),
    Mutation(
        "head-with-content-answered-400",
        "MB-METHOD-2 HEAD with content refused as a GET with content",
        ("method-not-allowed",),
        on_response=_content_400_on("HEAD"),
    ),
    Mutation(
        "delete-with-content-answered-400",
        "MB-METHOD-2 DELETE with content refused as a GET with content",
        ("method-not-allowed",),
        on_response=_content_400_on("DELETE"),
    ),
    Mutation(
        "get-with-empty-length-answered-400",
        "MB-METHOD-2 a GET with Content-Length: 0 taken to have content",
        ("method-not-allowed", "batch-endpoint-get-with-content"),
        on_response=_empty_length_get_400,
    ),
    Mutation(
        "unknown-method-with-content-answered-400",
        "MB-METHOD-2 an unknown method with content refused as a GET with content",
        ("unknown-method-refused",),
        on_response=_unknown_content_400,
    ),
    Mutation(
        "options-with-query-not-found",
        "MB-LIMIT-2",
        ("options-capabilities",),
        on_response=_options_query_404,
    ),
    Mutation(
        "capabilities-endpoint-constant",
        "MB-LIMIT-2",
        ("options-capabilities",),
        on_response=_endpoint_constant,
    ),
    Mutation(
        "random-capped-at-1mib", "MB-TEST-5", ("test-resource-random",), on_response=_random_capped
    ),
    Mutation("delay-zero-refused", "MB-TEST-7", ("test-resource-delay",), on_response=_delay_zero),
    Mutation(
        "delay-from-batch-arrival",
        "MB-TEST-7 a part's delay counted from the batch's arrival",
        ("test-resource-delay-counted-from-part-start",),
        on_request=_delays_from_arrival,
        on_response=_sent_ids_answered,
    ),
    Mutation(
        "referring-delay-from-batch-arrival",
        "MB-TEST-7 a referring part's delay counted from the batch's arrival",
        ("test-resource-delay-counted-from-part-start",),
        on_request=_referring_delays_from_arrival,
        on_response=_sent_ids_answered,
    ),
    Mutation(
        "chunked-trailer-refused",
        "MB-INTER-5",
        ("chunked-batch-trailers-and-extensions",),
        on_response=_trailer_refused,
    ),
    Mutation(
        "endpoint-post-any-case",
        "MB-METHOD-2 post taken for POST",
        ("endpoint-methods-other-case-refused",),
        on_request=_folds_case("POST"),
    ),
    Mutation(
        "endpoint-options-any-case",
        "MB-METHOD-2 options taken for OPTIONS",
        ("endpoint-methods-other-case-refused",),
        on_request=_folds_case("OPTIONS"),
    ),
    Mutation(
        "endpoint-post-any-case-in-modes",
        "MB-METHOD-2 post taken for POST in a 207 form or a mode",
        ("endpoint-methods-other-case-refused",),
        on_request=_folds_case("POST", in_mode_or_form),
    ),
)
