"""Every kind of refusal carries a problem document with RFC 9457's members (spec 5.3).

Theory of operation: MB-STATUS-4 gives "each 4xx or 5xx response it makes to a batch request an
`application/problem+json` body (RFC 9457)", and spec 5.3 adds that "the problem schema
([`spec/schemas/problem.schema.json`]) therefore requires `type`, `title` and `status`". A
server rarely writes all its refusals through one helper: the 405 comes from its router, the
406 from its negotiation, the 415 and 501 from the checks on the top-level fields, a limit's 413
or 431 from its reader, a part's 400 from its parser, and a 207 form may have refusal code of
its own. One of them written by hand (a document with `status` and `detail` but no `title`,
no `type`, a `status` that is a string, a `limit` spelled otherwise than the capabilities
document spells it) is a document RFC 9457 clients cannot read. So one request of each kind of
refusal (a part without `Http-Method`, a target on another authority, content without its close
delimiter, `PUT` on the endpoint, a `Content-Type` that is not multipart/mixed, an unknown
`Batch-Mode`, an `Accept` admitting no batch form, and, when the target publishes the limit and
it is small enough to send, a part one field line or one octet over its header limits and a
batch one part over `max_parts`) is sent under no `Accept` and under the `Accept` of each 207
form the target declares, plainly, under `Prefer: batch-on-error=stop` and with `Batch-Mode:
atomic` when the target declares those modes, and each answer's document must validate against the problem schema
and carry the response's status.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.limit_cases import header_section
from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.core.schemas import validate_against

__all__: list[str] = []

BOUNDARY = "mb-docs-5c1e8a93d27f40b6"
#: The largest limit this check sends one over: a header section or a part count this size
#: is cheap to write; a target publishing more is judged on its other refusals.
MAX_SENT_LIMIT = 65_536
#: (what, method, extra header fields, content, status, requirement of the status).
Fault = tuple[str, str, tuple[tuple[str, str], ...], bytes, int, str]


def _sections(sections: list[bytes]) -> bytes:
    d = f"--{BOUNDARY}".encode()
    return d + b"\r\n" + (b"\r\n\r\n" + d + b"\r\n").join(sections) + b"\r\n\r\n" + d + b"--"


def _faults(ctx: Context, ok: str) -> list[Fault]:
    get = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n".encode()
    one = _sections([get])
    faults: list[Fault] = [
        # MB-STATUS-2: "a batch request whose envelope is malformed (framing, part header
        # syntax, missing or invalid `Http-Method` or `Content-Id`, ... a rejected target ...)
        # with 400".
        (
            "a part without Http-Method",
            "POST",
            (),
            _sections([f"Content-Id: <{ok}>\r\n".encode()]),
            400,
            "MB-PART-2",
        ),
        (
            "a target on another authority",
            "POST",
            (),
            _sections(
                [f"Http-Method: GET\r\nContent-Id: <http://elsewhere.invalid{ok}>\r\n".encode()]
            ),
            400,
            "MB-SUB-2",
        ),
        (
            "content without its close delimiter",
            "POST",
            (),
            one[: -len(f"\r\n--{BOUNDARY}--")],
            400,
            "MB-WIRE-13",
        ),
        # MB-METHOD-2: "405 (Method Not Allowed)" for a method the endpoint does not allow.
        ("PUT on the batch endpoint", "PUT", (), one, 405, "MB-METHOD-2"),
        # MB-WIRE-2: content that is not multipart/mixed is answered 415.
        ("a text/plain batch", "POST", (("Content-Type", "text/plain"),), one, 415, "MB-WIRE-2"),
        # MB-PROC-12: a `Batch-Mode` value it does not implement is answered 501.
        (
            "an unknown Batch-Mode",
            "POST",
            (("Batch-Mode", "mb-suite-no-such-mode"),),
            one,
            501,
            "MB-PROC-12",
        ),
    ]
    fields = ctx.limit("max_part_fields")
    if fields is not None and fields + 1 <= MAX_SENT_LIMIT:
        # MB-LIMIT-5: "answer a batch request with a part over it with 431".
        section = header_section(ok, fields=fields + 1)
        faults.append(
            (
                f"a part of {fields + 1} field lines",
                "POST",
                (),
                _sections([section]),
                431,
                "MB-LIMIT-5",
            )
        )
    octets = ctx.limit("max_part_header_bytes")
    if octets is not None and octets + 1 <= MAX_SENT_LIMIT and (fields is None or fields >= 3):
        # MB-STATUS-3: "431 ... when a part header section exceeds `max_part_header_bytes`".
        section = header_section(ok, octets=octets + 1)
        faults.append(
            (
                f"a part header section of {octets + 1} octets",
                "POST",
                (),
                _sections([section]),
                431,
                "MB-STATUS-3",
            )
        )
    parts = ctx.limit("max_parts")
    batch_bytes = ctx.limit("max_batch_bytes")
    if parts is not None and parts + 1 <= MAX_SENT_LIMIT:
        body = _sections([get] * (parts + 1))
        if batch_bytes is None or len(body) <= batch_bytes:
            # MB-STATUS-3: "413 (Content Too Large)" for a batch over one of its limits.
            faults.append((f"a batch of {parts + 1} parts", "POST", (), body, 413, "MB-STATUS-3"))
    return faults


def _judge_document(judge: Judge, asked: str, doc: dict[str, object] | None) -> None:
    if doc is None:
        return
    # MB-STATUS-4: "an `application/problem+json` body (RFC 9457)"; spec 5.3: "The problem
    # schema ([`spec/schemas/problem.schema.json`]) therefore requires `type`, `title` and
    # `status`" (and types each member it defines: a `limit` is named "as the capabilities
    # document spells it", MB-LIMIT-4).
    judge.expect(
        f"{asked}: problem schema",
        validate_against("problem.schema.json", doc),
        {None},
        "MB-STATUS-4",
        allowed_text="valid against problem.schema.json",
    )


@checker(
    "refusal-documents-valid-in-every-form",
    ("MB-STATUS-4", "MB-LIMIT-4", "MB-LIMIT-5"),
    "The problem document of every kind of refusal (a part, target or framing fault, PUT, a non-multipart Content-Type, an unknown Batch-Mode, an Accept admitting no batch form, a part over its field or octet header limit, a batch over max_parts) validates against the problem schema and carries the response's status, a limit refusal naming the limit exceeded, under every Accept the target offers and in every mode it declares.",
    state=State.READ_ONLY,
)
def refusal_documents_valid_in_every_form(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    accepts: list[str | None] = [None] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    # A server's stop and atomic modes may refuse through code of their own: each fault is
    # sent in every mode the target declares, bar the unknown mode whose field is the fault.
    modes: list[tuple[str, tuple[tuple[str, str], ...]]] = [("", ())]
    if ctx.target.claims("error-policy"):
        modes.append((" under stop", (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        modes.append((" in an atomic batch", (("Batch-Mode", "atomic"),)))
    for fault, method, faulty, content, status, requirement in _faults(ctx, ok):
        for mode, mode_fields in (
            modes if not any(n == "Batch-Mode" for n, _ in faulty) else modes[:1]
        ):
            _send_in_every_form(
                ctx,
                judge,
                accepts,
                (fault + mode, method, faulty + mode_fields, content, status, requirement),
            )
    _refuse_accept(ctx, judge, ok)


def _send_in_every_form(
    ctx: Context, judge: Judge, accepts: list[str | None], fault: Fault
) -> None:
    what, method, extra, content, status, requirement = fault
    media = dict(extra).get("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    for accept in accepts:
        head = [("Content-Type", media)] + [(n, v) for n, v in extra if n != "Content-Type"]
        if accept is not None:
            head.append(("Accept", accept))
        resp = ctx.send(judge, ctx.raw_request(method, ctx.batch_path, head, content))
        asked = what + (f" with Accept {accept}" if accept else "")
        judge.note(f"{asked}: {resp.status}")
        # expect_rejected judges the status, the problem+json body, its `status` member
        # (RFC 9457 3.1.3: "the HTTP status code ... generated by the origin server for this
        # occurrence") and its `requirement` (MB-STATUS-4).
        expect_rejected(judge, resp, {status}, requirement)
        if resp.status == status:
            doc = problem_of(resp)
            _judge_document(judge, asked, doc)
            _judge_limit(judge, asked, status, requirement, doc)


#: The limit each limit fault of `_faults` exceeds, by its status and requirement.
LIMIT_NAMED = {
    (431, "MB-LIMIT-5"): "max_part_fields",
    (431, "MB-STATUS-3"): "max_part_header_bytes",
    (413, "MB-STATUS-3"): "max_parts",
}


def _judge_limit(
    judge: Judge, asked: str, status: int, requirement: str, doc: dict[str, object] | None
) -> None:
    name = LIMIT_NAMED.get((status, requirement))
    if doc is None or name is None:
        return
    # MB-LIMIT-5: "a problem document whose `limit` member is `max_part_fields`" (a MUST);
    # MB-LIMIT-4 (SHOULD): "name the exceeded limit in a 413 or 431 problem document, in a
    # `limit` member", under every Accept and in every mode as in a plain batch.
    judge.expect(
        f"{asked}: problem names the limit",
        doc.get("limit"),
        {name},
        "MB-LIMIT-5" if name == "max_part_fields" else "MB-LIMIT-4",
    )


def _refuse_accept(ctx: Context, judge: Judge, ok: str) -> None:
    # MB-STATUS-9: "406 (Not Acceptable) to a batch request whose `Accept` field admits none of
    # the batch representations the server offers"; the Accept is the fault, so it is sent once.
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), ("Accept", "text/plain")]
    get = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n".encode()
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _sections([get])))
    expect_rejected(judge, resp, {406}, "MB-STATUS-9")
    if resp.status == 406:
        _judge_document(judge, "Accept text/plain", problem_of(resp))
