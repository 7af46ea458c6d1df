"""Planted rules applied one step past their boundary: a valid neighbour refused or altered, or
an invalid one taken.

    status-resource-signed-code-read       the status resource reads `+200` as 200 (MB-TEST-6)
    status-resource-padded-code-trimmed    it takes whitespace off the code first, so ` 200` and
                                           `200 ` are 200 (MB-TEST-6)
    status-resource-code-separators-read   it reads the code as a programming language reads a
                                           number, `2_00` as 200 (MB-TEST-6)
    status-resource-code-read-as-number    it reads the code as a decimal number, `2e2` and
                                           `200.0` as 200 (MB-TEST-6)
    status-resource-other-script-digits-read
                                           it tests for digits with a Unicode-aware test after
                                           decoding the path, so three Arabic-Indic digits are
                                           200 (MB-TEST-6)
    sandbox-delete-absent-answered-204     a DELETE of a member that does not exist answered 204,
                                           as an idempotent store answers it, alone and in parts
                                           (MB-TEST-3)
    sandbox-put-existing-answered-201      a PUT that replaces a member answered 201 as if it had
                                           created it, alone and in parts (MB-TEST-3)
    sandbox-put-absent-answered-200        a PUT refused for naming no member answered 200 as a
                                           replacement is, alone and in parts (MB-TEST-3)
    sandbox-delete-answered-202-in-parts   a DELETE part that deletes answered 202 (Accepted), the
                                           same DELETE alone 200 or 204 (MB-TEST-3)
    content-coding-empty-member-refused    a Content-Encoding list holding an empty element
                                           refused 415 as a coding not supported (MB-INTER-6)
    content-coding-members-trimmed-of-spaces
                                           Content-Encoding members trimmed of spaces but not of
                                           tabs, so `identity ,<TAB>identity` names a coding not
                                           supported (MB-INTER-6)
    content-coding-lines-joined-without-comma
                                           Content-Encoding field lines joined without a comma,
                                           so two `identity` lines read `identityidentity`
                                           (MB-INTER-6)
    accept-weight-cut-to-two-decimals      a batch's Accept weights read to two decimals, so
                                           `q=0.001` is 0 and the form it weighs refused 406
                                           (MB-MULTI-1)
    retrieval-accept-weight-cut-to-two-decimals
                                           the same on a collection retrieval, which then
                                           answers another representation (MB-METHOD-4)
    prefer-empty-element-voids-field       a Prefer field holding an empty list element given up
                                           whole, so batch-on-error=stop beside it is not read
                                           (MB-PROC-6)
    get-with-zero-padded-length-answered-400
                                           a GET to the batch endpoint with `Content-Length: 00`
                                           taken to have content and refused 400 (MB-METHOD-3)
    retrieval-with-zero-padded-length-answered-400
                                           the same for a collection retrieval, which is then
                                           not answered with its members (MB-METHOD-4)
    retrieval-content-ignored-under-other-accept
                                           a collection GET with content answered as a
                                           retrieval without it when its Accept is not spelt
                                           `multipart/mixed` (MB-METHOD-3)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    BATCH_PATH,
    Part,
    Pred,
    RespEdit,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    problem,
    set_field,
    split_quoted,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference target's status resource, sandbox collection and batch endpoint.
STATUS_PREFIX = "/status/"
SANDBOX_MEMBER = re.compile(r"^/books/[^/?#]+$")
COLLECTION = "/books"


# -- the status resource (MB-TEST-6) -----------------------------------------------------------


def _status_code_read(read: Callable[[str], int | None]) -> Callable[[RelayRequest], None]:
    """A status resource that reads the code in its path with `read` (None: no code), so a
    value that is not three digits names the code `read` finds in it."""

    def edit(req: RelayRequest) -> None:
        if req.method not in ("GET", "HEAD") or not req.target.startswith(STATUS_PREFIX):
            return
        raw = req.target[len(STATUS_PREFIX) :].split("?", 1)[0]
        if re.fullmatch(r"[0-9]{3}", raw):
            return
        code = read(raw)
        if code is not None and 200 <= code <= 599:
            req.target = f"{STATUS_PREFIX}{code}"

    return edit


def _signed(raw: str) -> int | None:
    return int(raw) if re.fullmatch(r"[+-][0-9]{3}", raw) else None


def _trimmed(raw: str) -> int | None:
    value = unquote(raw)
    return int(value.strip()) if re.fullmatch(r"\s*[0-9]{3}\s*", value) else None


def _separated(raw: str) -> int | None:
    return int(raw) if re.fullmatch(r"[0-9]+(?:_[0-9]+)+", raw) else None


def _as_number(raw: str) -> int | None:
    if not re.fullmatch(r"[0-9]*[.eE][0-9.eE]*", raw):
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None


def _other_script(raw: str) -> int | None:
    value = unquote(raw)
    return int(value) if len(value) == 3 and value.isdigit() and not value.isascii() else None


# -- the sandbox (MB-TEST-3) -------------------------------------------------------------------

#: (method, the status the sandbox gave) -> the status the planted sandbox answers instead.
Answer = Callable[[str, int], int | None]


def _answered(status: int, fields: FieldList, body: bytes) -> Part:
    """A part's fields and body answering `status`: no content for 204."""
    fields = set_field(fields, "Http-Status-Code", str(status))
    if status != 204:
        return fields, body
    for name in ("Content-Type", "Content-Length"):
        fields = without_field(fields, name)
    return [*fields, ("Content-Length", "0")], b""


def _sandbox_answers(answer: Answer, *, alone: bool, parts: bool) -> RespEdit:
    """A sandbox whose answer to a member's write is `answer`'s, alone, in parts, or both."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req):
            if alone and SANDBOX_MEMBER.match(req.target.split("?", 1)[0]):
                status = answer(req.method, resp.status)
                if status is not None:
                    resp.status = status
                    if status == 204:
                        resp.body = b""
                        resp.set("Content-Type", None)
            return
        rb, sb = boundary_of(req), boundary_of(resp)
        sent = parts_of(req.body, rb) if parts and rb else None
        got = parts_of(resp.body, sb) if sb else None
        if sent is None or got is None or sb is None or len(sent) != len(got):
            return
        out: list[Part] = []
        for (qf, _), (af, ab) in zip(sent, got, strict=True):
            target = (field_of(qf, "Content-Id") or "").strip().strip("<>")
            method = (field_of(qf, "Http-Method") or "").strip()
            code = field_of(af, "Http-Status-Code") or ""
            if SANDBOX_MEMBER.match(target) and code.isdigit():
                status = answer(method, int(code))
                if status is not None:
                    af, ab = _answered(status, af, ab)
            out.append((af, ab))
        resp.body = write_parts(out, sb)

    return edit


def _delete_absent_204(method: str, status: int) -> int | None:
    return 204 if method == "DELETE" and status in (404, 410) else None


def _put_existing_201(method: str, status: int) -> int | None:
    return 201 if method == "PUT" and status in (200, 204) else None


def _put_absent_200(method: str, status: int) -> int | None:
    return 200 if method == "PUT" and status in (404, 405) else None


def _delete_202(method: str, status: int) -> int | None:
    return 202 if method == "DELETE" and status in (200, 204) else None


# -- Content-Encoding (MB-INTER-6) -------------------------------------------------------------


def _coding_lines(req: RelayRequest) -> list[str]:
    if not is_batch(req):
        return []
    return [v for n, v in req.headers if n.lower() == "content-encoding"]


def _refuse_coding(test: Callable[[list[str]], bool]) -> RespEdit:
    """A server that answers 415, naming identity as the coding it decodes, to a batch whose
    Content-Encoding lines `test` holds for."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        lines = _coding_lines(req)
        if lines and test(lines):
            problem(resp, 415, "MB-WIRE-2")
            resp.headers.append(("Accept-Encoding", "identity"))

    return edit


def _empty_member(lines: list[str]) -> bool:
    return any(not m.strip(" \t") for line in lines for m in line.split(","))


def _space_trimmed_not_identity(lines: list[str]) -> bool:
    members = [m.strip(" ") for line in lines for m in line.split(",") if m.strip(" \t")]
    return any(m.lower() != "identity" for m in members)


def _joined_not_identity(lines: list[str]) -> bool:
    if len(lines) < 2:
        return False
    members = [m.strip(" \t") for m in "".join(lines).split(",") if m.strip(" \t")]
    return any(m.lower() != "identity" for m in members)


# -- Accept weights (MB-MULTI-1, MB-METHOD-4) --------------------------------------------------

_THIRD_DECIMAL = re.compile(r"(?i)(\bq\s*=\s*0\.[0-9]{2})[0-9]")


def _weights_cut(pred: Callable[[RelayRequest], bool]) -> Callable[[RelayRequest], None]:
    """A server that reads Accept weights to two decimals: `q=0.001` is `q=0.00`."""

    def edit(req: RelayRequest) -> None:
        if pred(req):
            req.headers = [
                (n, _THIRD_DECIMAL.sub(r"\1", v) if n.lower() == "accept" else v)
                for n, v in req.headers
            ]

    return edit


def _retrieval(req: RelayRequest) -> bool:
    return req.method in ("GET", "HEAD") and req.target.split("?", 1)[0] == COLLECTION


# -- Prefer (MB-PROC-6) ------------------------------------------------------------------------


def _prefer_with_empty_element_dropped(req: RelayRequest) -> None:
    """A Prefer reader that gives up on a field holding an empty list element, so none of its
    preferences is read."""
    lines = [v for n, v in req.headers if n.lower() == "prefer"] if is_batch(req) else []
    members = [m for line in lines for m in split_quoted(line, ",", "pair")]
    if any(not m.strip(" \t") for m in members):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]


# -- GET content (MB-METHOD-3) -----------------------------------------------------------------


def _zero_padded_length_400(where: Pred) -> RespEdit:
    """A GET `where` holds for, whose Content-Length is zero but not written `0`, taken to have
    content and refused 400."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        length = (req.get("Content-Length") or "").strip()
        if req.method == "GET" and where(req) and length != "0" and re.fullmatch(r"0+", length):
            problem(resp, 400, "MB-METHOD-3")

    return edit


def _content_dropped_under_other_accept(req: RelayRequest) -> None:
    """A collection that refuses content only on a GET whose Accept is spelt `multipart/mixed`,
    and answers any other retrieval as if it had none."""
    accept = (req.get("Accept") or "").strip()
    if _retrieval(req) and req.body and accept != "multipart/mixed":
        req.body, req.chunks = b"", ()
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-TEST-6: "MUST answer any other code (a 1xx, 600 and above, or a value that is not three
    # digits) with 400 or 404".
    P(
        "status-resource-signed-code-read",
        "MB-TEST-6 a status code with a plus sign read as the code",
        ("test-resource-status",),
        on_request=_status_code_read(_signed),
    ),
    P(
        "status-resource-padded-code-trimmed",
        "MB-TEST-6 a status code with a space before or after it trimmed and read",
        ("test-resource-status",),
        on_request=_status_code_read(_trimmed),
    ),
    P(
        "status-resource-code-separators-read",
        "MB-TEST-6 a status code with a digit separator read as a number literal",
        ("test-resource-status",),
        on_request=_status_code_read(_separated),
    ),
    P(
        "status-resource-code-read-as-number",
        "MB-TEST-6 a status code read as a decimal number, exponent and point included",
        ("test-resource-status",),
        on_request=_status_code_read(_as_number),
    ),
    P(
        "status-resource-other-script-digits-read",
        "MB-TEST-6 three digits of another script taken for a status code",
        ("test-resource-status",),
        on_request=_status_code_read(_other_script),
    ),
    # MB-TEST-3: "a `PUT` to an existing member with 200 or 204; a `PUT` to a member that does
    # not exist with 201 ... or with 404 or 405 ...; a `DELETE` of an existing member with 200
    # or 204 ...; and a `DELETE` of a member that does not exist with 404 or 410".
    P(
        "sandbox-delete-absent-answered-204",
        "MB-TEST-3 a DELETE of a member that does not exist answered 204",
        ("sandbox-write-answers",),
        on_response=_sandbox_answers(_delete_absent_204, alone=True, parts=True),
    ),
    P(
        "sandbox-put-existing-answered-201",
        "MB-TEST-3 a PUT replacing a member answered 201",
        ("sandbox-write-answers",),
        on_response=_sandbox_answers(_put_existing_201, alone=True, parts=True),
    ),
    P(
        "sandbox-put-absent-answered-200",
        "MB-TEST-3 a PUT naming no member, refused, answered 200",
        ("sandbox-write-answers",),
        on_response=_sandbox_answers(_put_absent_200, alone=True, parts=True),
    ),
    P(
        "sandbox-delete-answered-202-in-parts",
        "MB-TEST-3 a DELETE part of an existing member answered 202",
        ("sandbox-write-answers",),
        on_response=_sandbox_answers(_delete_202, alone=False, parts=True),
    ),
    # MB-INTER-6 refuses "a content coding it does not support"; RFC 9110 §5.6.1 makes empty
    # list elements and the OWS around commas no member, and §5.3 joins field lines with a comma.
    P(
        "content-coding-empty-member-refused",
        "MB-INTER-6 a Content-Encoding list with an empty element refused 415",
        ("content-coding-names-any-case",),
        on_response=_refuse_coding(_empty_member),
    ),
    P(
        "content-coding-members-trimmed-of-spaces",
        "MB-INTER-6 Content-Encoding members trimmed of spaces only, a tab left naming a coding",
        ("content-coding-names-any-case",),
        on_response=_refuse_coding(_space_trimmed_not_identity),
    ),
    P(
        "content-coding-lines-joined-without-comma",
        "MB-INTER-6 Content-Encoding field lines joined without a comma",
        ("content-coding-names-any-case",),
        on_response=_refuse_coding(_joined_not_identity),
    ),
    # RFC 9110 §12.4.2: a qvalue has up to three decimals, and only 0 is "not acceptable".
    P(
        "accept-weight-cut-to-two-decimals",
        "MB-MULTI-1 a batch's Accept weight of 0.001 read as 0",
        ("accept-quality-values",),
        on_request=_weights_cut(is_batch),
    ),
    P(
        "retrieval-accept-weight-cut-to-two-decimals",
        "MB-METHOD-4 a collection retrieval's Accept weight of 0.001 read as 0",
        ("collection-get",),
        on_request=_weights_cut(_retrieval),
    ),
    # RFC 9110 §5.6.1: "a recipient MUST parse and ignore a reasonable number of empty list
    # elements"; RFC 7240 §2 writes Prefer as a list.
    P(
        "prefer-empty-element-voids-field",
        "MB-PROC-6 batch-on-error=stop beside an empty list element not read",
        ("prefer-several-preferences",),
        on_request=_prefer_with_empty_element_dropped,
    ),
    # MB-METHOD-3: "A `GET` with `Content-Length: 0` ... has no content"; RFC 9110 §8.6 reads
    # the field as a decimal number, so `00` is that length.
    P(
        "get-with-zero-padded-length-answered-400",
        "MB-METHOD-3 a GET to the batch endpoint with Content-Length: 00 taken to have content",
        ("batch-endpoint-get-with-content",),
        on_response=_zero_padded_length_400(lambda req: req.target.split("?")[0] == BATCH_PATH),
    ),
    # MB-METHOD-4 answers the retrieval "with one part per member" once it has no content.
    P(
        "retrieval-with-zero-padded-length-answered-400",
        "MB-METHOD-4 a collection retrieval with Content-Length: 00 taken to have content",
        ("collection-get-with-content",),
        on_response=_zero_padded_length_400(_retrieval),
    ),
    P(
        "retrieval-content-ignored-under-other-accept",
        "MB-METHOD-3 a collection GET with content answered 200 under Accept not spelt "
        "multipart/mixed",
        ("collection-get-with-content",),
        on_request=_content_dropped_under_other_accept,
    ),
)
