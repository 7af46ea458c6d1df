"""Planted violations of rules a server keeps on one path of a batch and breaks on another: the
plain batch right and the batch under stop, the atomic batch, the chunked batch or the batch
after it on the same connection wrong.

    stop-policy-kept-for-connection     the stop a batch asked for stored on its connection, so
                                        the next batch there without Prefer stops (MB-PROC-5)
    atomic-mode-kept-for-connection     the atomic mode stored on the connection, so the next
                                        batch there without Batch-Mode is atomic (MB-PROC-5)
    atomic-parts-without-credentials    an atomic batch's sub-requests built without the batch's
                                        Authorization and Cookie (MB-SUB-5)
    stop-parts-cloned-from-batch        a stopping batch's sub-requests cloned from the batch
                                        request, each getting its fields (MB-SUB-6)
    writes-without-inherited-cookie     the batch's Cookie withheld from parts that write, as a
                                        guard against forged requests (MB-SUB-5)
    chunked-batch-runs-before-late-fault
                                        a chunked batch read and run part by part as it arrives:
                                        the parts before a rejected target or a forbidden method
                                        or field run before the 400 (MB-PROC-1)
    stopping-batch-runs-before-late-fault
                                        a stopping batch's targets, methods and fields checked
                                        as each part is dispatched (MB-PROC-1)
    atomic-batch-fails-at-late-fault    an atomic batch's targets, methods and fields checked as
                                        each part is dispatched: the faulty part fails with 400,
                                        the parts before it are rolled back, and the batch is
                                        answered 200, not refused (MB-STATUS-2)
    answer-held-under-stop              the answer to a stopping batch built whole before any of
                                        it is written, as for an atomic one (MB-PROC-4)
    answer-held-for-writes              the answer to a batch with a POST, PUT, PATCH or DELETE
                                        part built whole, its parts run in a transaction that
                                        commits at the end (MB-PROC-4)
    json-form-held-whole                the answer in the JSON form built whole, so that its
                                        summary can come first (MB-PROC-4)
    xml-form-held-whole                 the answer in the XML form built whole (MB-PROC-4)
    answer-held-for-chunked-batch       the answer to a chunked batch written only once it is
                                        complete (MB-PROC-4)
    answer-held-after-bodyless-part     a response part without content left in the buffer
                                        until a part with a body is written, so a batch whose
                                        first part is a HEAD is answered whole (MB-PROC-4)
    gzip-answer-compressor-unflushed    the answer to a batch accepting gzip compressed, the
                                        compressor never flushed: every part arrives with the
                                        end of the answer (MB-PROC-4)
    deflate-answer-compressor-unflushed the same for a batch accepting deflate (MB-PROC-4)
    atomic-answer-takes-part-validators an atomic batch's answer, built once the outcome is
                                        known, given its parts' validators and caching fields
                                        (MB-SEC-2)
    stopped-answer-merges-part-fields   a batch that stopped answered with the fields of the
                                        parts that ran merged into its header section (MB-SEC-2)
    no-transform-only-when-streamed     Cache-Control: no-transform written by the streaming
                                        path only, not on the answers of batches that stopped or
                                        were atomic (MB-INTER-4)
    stop-preference-before-atomic-mode  a batch asking for both sent down the stop path, the
                                        preference read before the mode (MB-PROC-8)
    atomic-path-ignores-stop-preference an atomic batch's Prefer never read, so the stop it
                                        asks for is not named in Preference-Applied (MB-PROC-6)

Each edits what the reference server receives, or answers for it, on batch requests only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    FAKE_BOUNDARY,
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    problem,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_STOP = re.compile(r"(?i)batch-on-error\s*=\s*\"?stop")


def _fields(req: RelayRequest, name: str) -> str:
    return ",".join(v for n, v in req.headers if n.lower() == name.lower())


def _stop_for_connection(req: RelayRequest) -> None:
    """A batch asking for no error policy gets the stop an earlier batch on its connection
    asked for: the server keeps the policy it read on the connection object."""
    if (
        is_batch(req)
        and req.connection.get("stop")
        and "batch-on-error" not in _fields(req, "Prefer").lower()
    ):
        req.headers.append(("Prefer", "batch-on-error=stop"))


def _note_stop(req: RelayRequest, resp: RelayResponse) -> None:
    applied = ",".join(v for n, v in resp.headers if n.lower() == "preference-applied")
    if is_batch(req) and _STOP.search(applied):
        req.connection["stop"] = True


def _atomic_for_connection(req: RelayRequest) -> None:
    """A batch without Batch-Mode runs in the mode an earlier batch on its connection asked for."""
    if not is_batch(req):
        return
    modes = [m.strip() for m in _fields(req, "Batch-Mode").split(",") if m.strip()]
    if "atomic" in modes:
        req.connection["atomic"] = True
    elif not modes and req.connection.get("atomic"):
        req.headers.append(("Batch-Mode", "atomic"))


def _atomic_without_credentials(req: RelayRequest) -> None:
    """An atomic batch's parts run on a path that never copies the batch's credentials."""
    modes = [m.strip() for m in _fields(req, "Batch-Mode").split(",")]
    if is_batch(req) and "atomic" in modes:
        req.headers = [
            (n, v) for n, v in req.headers if n.lower() not in ("authorization", "cookie")
        ]


#: Fields of the batch request a cloned sub-request does not take: its own framing, and the
#: credentials, which it inherits anyway.
_NOT_CLONED = frozenset(
    {
        "host",
        "content-type",
        "content-length",
        "transfer-encoding",
        "connection",
        "authorization",
        "cookie",
    }
)


def _cloned_under_stop(req: RelayRequest) -> list[tuple[str, str]]:
    """The batch's fields a part of a stopping batch gets: the batch request cloned."""
    if not (is_batch(req) and _STOP.search(_fields(req, "Prefer"))):
        return []
    return [(n, v) for n, v in req.headers if n.lower() not in _NOT_CLONED]


class _StopClones:
    """Adds to each part of a stopping batch the batch's fields it lacks."""

    def __init__(self) -> None:
        self.fields: list[tuple[str, str]] = []

    def request(self, req: RelayRequest) -> None:
        self.fields = _cloned_under_stop(req)

    def parts(self, parts: list[Part]) -> list[Part]:
        if not self.fields:
            return parts
        out: list[Part] = []
        for fields, body in parts:
            own = {n.lower() for n, _ in fields}
            out.append(([*fields, *((n, v) for n, v in self.fields if n.lower() not in own)], body))
        return out


_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def _writes_without_cookie(parts: list[Part]) -> list[Part]:
    """A part that writes gets an empty Cookie of its own in place of the batch's."""
    out: list[Part] = []
    for fields, body in parts:
        method = (field_of(fields, "Http-Method") or "").strip().upper()
        if method and method not in _SAFE and field_of(fields, "Cookie") is None:
            fields = [*fields, ("Cookie", "")]
        out.append((fields, body))
    return out


_CLONES = _StopClones()

#: Fields a part must not carry (MB-PART-9, MB-PART-10), as a dispatching server checks them.
_FORBIDDEN = frozenset({"host", "upgrade", "connection", "transfer-encoding", "te", "keep-alive"})
_LATE = "X-Plant-Late-Fault"


def _faulty(fields: list[tuple[str, str]], req: RelayRequest) -> bool:
    """Whether a part has a fault a server may find only as it dispatches the part."""
    method = (field_of(fields, "Http-Method") or "").strip().upper()
    ref = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
    split = urlsplit(ref)
    host = (req.get("Host") or "").lower()
    return (
        method in ("TRACE", "CONNECT")
        or ref == "*"
        or bool(split.netloc and split.netloc.lower() != host)
        or split.path == req.target.split("?", 1)[0]
        or any(n.lower() in _FORBIDDEN for n, _ in fields)
    )


def _runs_before_late_fault(when: Callable[[RelayRequest], bool]) -> Callable[[RelayRequest], None]:
    """Forward only the parts before the first faulty one, so that they run; the answer is then
    the 400 the whole batch calls for."""

    def edit(req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) and when(req) else None
        if not parts or b is None:
            return
        first = next((i for i, (f, _) in enumerate(parts) if _faulty(f, req)), 0)
        if first:
            req.body = write_parts(parts[:first], b)
            req.headers.append((_LATE, "1"))

    return edit


def _answer_late_fault(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get(_LATE):
        problem(resp, 400, "MB-STATUS-2")


_WRITES = re.compile(rb"(?im)^Http-Method:[ \t]*(POST|PUT|PATCH|DELETE)[ \t]*\r?$")


def _batch_writes(req: RelayRequest) -> bool:
    return is_batch(req) and _WRITES.search(req.body) is not None


#: A response part's own fields, which the plants below never copy.
_PART_OWN = frozenset(
    {"http-status-code", "content-id", "content-type", "content-length", "batch-outcome", "date"}
)
#: The fields a caching-minded merge takes from the parts.
_CACHING = frozenset({"etag", "last-modified", "cache-control", "vary", "expires"})


def _copy_part_fields(
    when: Callable[[RelayRequest, list[Part]], bool], names: frozenset[str] | None
) -> Callable[[RelayRequest, RelayResponse], None]:
    """Add to a multipart answer's header section the fields (of `names`, or all but a part's
    own) of its parts that ran, when `when` holds of the request and the parts."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b and is_batch(req) else None
        if not parts or not when(req, parts):
            return
        top = {(n.lower(), v) for n, v in resp.headers}
        for fields, _ in parts:
            if (field_of(fields, "Batch-Outcome") or "") == "skipped":
                continue
            for n, v in fields:
                wanted = n.lower() in names if names is not None else n.lower() not in _PART_OWN
                if wanted and (n.lower(), v) not in top:
                    resp.headers.append((n, v))
                    top.add((n.lower(), v))

    return edit


def _atomic_answer(req: RelayRequest, parts: list[Part]) -> bool:
    return "atomic" in [m.strip() for m in _fields(req, "Batch-Mode").split(",")]


def _stopped_answer(req: RelayRequest, parts: list[Part]) -> bool:
    skipped = any(field_of(f, "Batch-Outcome") == "skipped" for f, _ in parts)
    return _stopping(req) and skipped


def _is_atomic(req: RelayRequest) -> bool:
    return is_batch(req) and "atomic" in [m.strip() for m in _fields(req, "Batch-Mode").split(",")]


def _stop_before_atomic(req: RelayRequest) -> None:
    """The runner is chosen by the preference first: a stopping batch is never atomic."""
    if _is_atomic(req) and _stopping(req):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "batch-mode"]


def _atomic_without_applied(req: RelayRequest, resp: RelayResponse) -> None:
    if _is_atomic(req) and _stopping(req):
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "preference-applied"]


def _atomic_fails_at_late_fault(req: RelayRequest, resp: RelayResponse) -> None:
    """The refusal of an atomic batch with a late fault becomes the 200 of a batch that ran up
    to the faulty part, failed there and was rolled back."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and _is_atomic(req) and resp.status == 400 else None
    first = next((i for i, (f, _) in enumerate(parts or []) if _faulty(f, req)), 0)
    if not parts or not first:
        return
    answer: list[Part] = []
    for i, (fields, _) in enumerate(parts):
        cid = field_of(fields, "Content-Id") or "<>"
        head = [("Content-Id", cid), ("Content-Length", "0")]
        if i < first:
            head = [("Http-Status-Code", "201"), ("Batch-Outcome", "rolled-back"), *head]
        elif i == first:
            head = [("Http-Status-Code", "400"), *head]
        else:
            head = [("Batch-Outcome", "skipped"), *head]
        answer.append((head, b""))
    resp.status = 200
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    resp.headers.append(("Content-Type", f"multipart/mixed; boundary={FAKE_BOUNDARY}"))
    resp.body = write_parts(answer, FAKE_BOUNDARY)


def _without_no_transform(req: RelayRequest, resp: RelayResponse) -> None:
    """The answers built whole (an atomic batch, a batch that stopped) lack no-transform."""
    if not (_is_atomic(req) or _stopping(req)) or resp.status not in (200, 207):
        return
    kept: list[tuple[str, str]] = []
    for n, v in resp.headers:
        if n.lower() == "cache-control":
            rest = [d.strip() for d in v.split(",") if d.strip().lower() != "no-transform"]
            if rest:
                kept.append((n, ", ".join(rest)))
        else:
            kept.append((n, v))
    resp.headers = kept


def _chunked(req: RelayRequest) -> bool:
    return bool(req.chunks)


def _head_first(req: RelayRequest) -> bool:
    """A batch whose first part is a HEAD: its response part has no content."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    return parts is not None and bool(parts) and field_of(parts[0][0], "Http-Method") == "HEAD"


_CLOSE = re.compile(r"(?i)(?:^|,)[ \t]*close[ \t]*(?:,|$)")


def _closing(req: RelayRequest) -> bool:
    """A batch that asks to close the connection after its answer."""
    return is_batch(req) and _CLOSE.search(_fields(req, "Connection")) is not None


def _stopping(req: RelayRequest) -> bool:
    return is_batch(req) and _STOP.search(_fields(req, "Prefer")) is not None


def _asking_for(form: str) -> Callable[[RelayRequest], bool]:
    """Whether a request is a batch whose Accept names the 207 form `form`."""

    def asks(req: RelayRequest) -> bool:
        listed = (req.get("Accept") or "").split(",")
        return is_batch(req) and form in {m.split(";")[0].strip().lower() for m in listed}

    return asks


def _accepting(coding: str) -> Callable[[RelayRequest], str | None]:
    """`coding` for a batch whose Accept-Encoding names it, None for any other request."""

    def named(req: RelayRequest) -> str | None:
        listed = (req.get("Accept-Encoding") or "").split(",")
        names = {member.split(";")[0].strip().lower() for member in listed}
        return coding if is_batch(req) and coding in names else None

    return named


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "stop-policy-kept-for-connection",
        "MB-PROC-5 the stop of an earlier batch on the connection",
        ("policy-and-mode-not-kept-for-later-batches",),
        on_request=_stop_for_connection,
        on_response=_note_stop,
    ),
    Mutation(
        "atomic-mode-kept-for-connection",
        "MB-PROC-5 the atomic mode of an earlier batch on the connection",
        ("policy-and-mode-not-kept-for-later-batches",),
        on_request=_atomic_for_connection,
    ),
    Mutation(
        "atomic-parts-without-credentials",
        "MB-SUB-5 an atomic batch's parts without the batch's credentials",
        ("subrequest-fields-in-every-mode",),
        on_request=_atomic_without_credentials,
    ),
    Mutation(
        "stop-parts-cloned-from-batch",
        "MB-SUB-6 a stopping batch's fields on its parts",
        ("subrequest-fields-in-every-mode",),
        on_request=_CLONES.request,
        on_request_parts=_CLONES.parts,
    ),
    Mutation(
        "writes-without-inherited-cookie",
        "MB-SUB-5 the batch's Cookie withheld from writing parts",
        ("subrequest-fields-in-every-mode",),
        on_request_parts=_writes_without_cookie,
    ),
    Mutation(
        "chunked-batch-runs-before-late-fault",
        "MB-PROC-1 a chunked batch's parts run before a later part is validated",
        ("late-fault-runs-nothing-on-every-path",),
        on_request=_runs_before_late_fault(_chunked),
        on_response=_answer_late_fault,
    ),
    Mutation(
        "stopping-batch-runs-before-late-fault",
        "MB-PROC-1 a stopping batch's parts run before a later part is validated",
        ("late-fault-runs-nothing-on-every-path",),
        on_request=_runs_before_late_fault(_stopping),
        on_response=_answer_late_fault,
    ),
    Mutation(
        "atomic-batch-fails-at-late-fault",
        "MB-STATUS-2 an atomic batch with a late fault answered 200 and rolled back",
        ("late-fault-runs-nothing-on-every-path",),
        on_response=_atomic_fails_at_late_fault,
    ),
    Mutation(
        "answer-held-under-stop",
        "MB-PROC-4 a stopping batch's answer held whole",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_stopping),
    ),
    Mutation(
        "answer-held-for-writes",
        "MB-PROC-4 the answer to a batch that writes held whole",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_batch_writes),
    ),
    Mutation(
        "json-form-held-whole",
        "MB-PROC-4 the JSON form's answer built whole, its summary written first",
        ("parts-streamed-in-every-form",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_asking_for("application/vnd.mixbatch.multistatus+json")),
    ),
    Mutation(
        "xml-form-held-whole",
        "MB-PROC-4 the XML form's answer built whole before any of it is written",
        ("parts-streamed-in-every-form",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_asking_for("application/xml")),
    ),
    Mutation(
        "answer-held-when-closing",
        "MB-PROC-4 the answer to a batch that asks to close the connection held whole",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_closing),
    ),
    Mutation(
        "answer-held-for-chunked-batch",
        "MB-PROC-4 the answer to a chunked batch held whole",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=lambda req: is_batch(req) and bool(req.chunks)),
    ),
    Mutation(
        "answer-held-after-bodyless-part",
        "MB-PROC-4 a response part without content held until a later one",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_head_first),
    ),
    Mutation(
        "gzip-answer-compressor-unflushed",
        "MB-PROC-4 the gzip answer's compressor flushed only at the end",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(compress=_accepting("gzip"), compress_flush=False),
    ),
    Mutation(
        "deflate-answer-compressor-unflushed",
        "MB-PROC-4 the deflate answer's compressor flushed only at the end",
        ("parts-streamed-on-every-path",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(compress=_accepting("deflate"), compress_flush=False),
    ),
    Mutation(
        "atomic-answer-takes-part-validators",
        "MB-SEC-2 an atomic batch's parts' validators and caching fields at the top",
        ("sub-response-fields-not-at-top-in-every-mode",),
        on_response=_copy_part_fields(_atomic_answer, _CACHING),
    ),
    Mutation(
        "stopped-answer-merges-part-fields",
        "MB-SEC-2 a stopped batch's parts' fields at the top",
        ("sub-response-fields-not-at-top-in-every-mode",),
        on_response=_copy_part_fields(_stopped_answer, None),
    ),
    Mutation(
        "no-transform-only-when-streamed",
        "MB-INTER-4 no no-transform on an atomic or stopping batch's answer",
        ("no-transform-in-every-mode",),
        caught_by=("WARN", "FAIL"),
        on_response=_without_no_transform,
    ),
    Mutation(
        "stop-preference-before-atomic-mode",
        "MB-PROC-8 a batch asking for atomic and stop run under stop",
        ("atomic-with-stop-preference",),
        on_request=_stop_before_atomic,
    ),
    Mutation(
        "atomic-path-ignores-stop-preference",
        "MB-PROC-6 an atomic batch's stop preference not named",
        ("atomic-with-stop-preference",),
        on_response=_atomic_without_applied,
    ),
)
