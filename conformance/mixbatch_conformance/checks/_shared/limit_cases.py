"""The builders and judgements the limit cases share (spec 9.1): envelopes of exact octet
counts, the send in either framing, and the refused and processed outcomes.

A case writes one batch with exactly one fault (or none) and judges it: `refused` expects the
status spec 9.1 names before any part runs, with the problem naming the limit and placing the
fault; `processed` expects the batch processed. `within` makes a case N/A unless it keeps to
every other published limit and the send bound.
"""

from __future__ import annotations

import time

from mixbatch_conformance.checks._shared.budget_abort import ABORTED_LINE
from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, problem_of
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_located, expect_processed, expect_rejected
from mixbatch_conformance.core.registry import BOTH_ROLES, Check, RunFn, State, register
from mixbatch_conformance.transport.http import Response

__all__ = [
    "BOUNDARY",
    "FIRST_SECTION",
    "MAX_PARTS_SENT",
    "MAX_SEND_BYTES",
    "PROCESSED",
    "envelope",
    "filled",
    "header_section",
    "judge_refusal",
    "lengths_for",
    "part",
    "processed",
    "published_limit",
    "refused",
    "register_cases",
    "sent",
    "within",
]

BOUNDARY = "mb-limit-4e2a9c71d05b8f36"
#: The most octets one case sends: the reference server's max_batch_bytes plus one, so every
#: case runs against a server with the reference defaults and none sends without bound.
MAX_SEND_BYTES = 64 * 1024 * 1024 + 1
#: The most parts one at-limit case sends (the reference default, 10,000).
MAX_PARTS_SENT = 10_000
#: A value at or under the limit is accepted (spec 9.1): the statuses of a processed batch.
PROCESSED = {200}


def header_section(
    target: str,
    octets: int | None = None,
    fields: int | None = None,
    repeated: bool = False,
    value: str = " a",
) -> bytes:
    """A GET part's header section (field lines with their CRLFs, no empty line) of exactly
    `octets` octets, or of exactly `fields` field lines; ValueError when it cannot be done.

    With `repeated`, the filler lines all share one name (two lines for `octets`): spec 9.1
    counts field lines, so a server that folds same-named lines into one field before counting
    counts fewer lines and octets than were sent. `value` is what follows each filler line's
    colon: spec 9.1 counts field lines whatever their value, so a line with an empty value
    (`value=""`) or one of whitespace alone counts as much as any other."""
    head = f"Http-Method: GET\r\nContent-Id: <{target}>\r\n".encode("latin-1")
    if fields is not None:
        if fields < 2:
            raise ValueError(f"a part needs 2 field lines, {fields} asked")
        names = ["X-F" if repeated else f"X-F{i}" for i in range(fields - 2)]
        return head + b"".join(f"{n}:{value}\r\n".encode() for n in names)
    assert octets is not None
    # One filler line "X-Fill: <filler>\r\n" makes up the rest: 10 octets of overhead (two
    # such lines with `repeated`).
    lines = 2 if repeated else 1
    room = octets - len(head) - lines * len(b"X-Fill: \r\n")
    if room < lines:
        raise ValueError(f"{octets} octets cannot hold Http-Method and Content-Id")
    sizes = [room // lines + (1 if i < room % lines else 0) for i in range(lines)]
    return head + b"".join(b"X-Fill: " + b"f" * n + b"\r\n" for n in sizes)


def part(section: bytes, body: bytes = b"") -> bytes:
    return section + b"\r\n" + body


def envelope(parts: list[bytes]) -> bytes:
    dash = b"--" + BOUNDARY.encode()
    return dash + b"\r\n" + (b"\r\n" + dash + b"\r\n").join(parts) + b"\r\n" + dash + b"--"


def sent(
    ctx: Context, judge: Judge, body: bytes, chunked: bool, coding: str | None = None
) -> Response:
    """POST `body` to the batch endpoint framed by Content-Length, or chunked (RFC 9112 7.1)
    in chunks of chunking.CHUNK_OCTETS; a limit counts the content's octets whatever frames them.
    With `coding`, `body` is already in that content coding and the request names it in
    `Content-Encoding`."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    if coding is not None:
        head.append(("Content-Encoding", coding))
    if not chunked:
        return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    framed, count = chunked_content(body)
    head.append(("Transfer-Encoding", "chunked"))
    judge.note(f"content sent chunked in {count} chunks")
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, framed))


def published_limit(ctx: Context, judge: Judge, name: str) -> int:
    value = ctx.limit(name)
    if value is None:
        judge.not_applicable(f"the target publishes no {name} limit")
    return value


def within(ctx: Context, judge: Judge, body: bytes, parts: int, fields: int = 3) -> None:
    """N/A unless `body` keeps to every other published limit and the send bound."""
    if len(body) > MAX_SEND_BYTES:
        judge.not_applicable(f"the case would send {len(body)} octets, more than {MAX_SEND_BYTES}")
    checks = {
        "max_batch_bytes": len(body),
        "max_parts": parts,
        "max_part_fields": fields,
    }
    for name, used in checks.items():
        value = ctx.limit(name)
        if value is not None and used > value:
            judge.not_applicable(f"the case needs {name} >= {used}; the target publishes {value}")


#: Where spec 5.3 places a limit fault: "a limit on the section or the part: the offset of the
#: section's first octet", in the one part these cases send (after the first delimiter line).
FIRST_SECTION = len(f"--{BOUNDARY}\r\n")
#: Content sent after the head of a batch refused by its declared length before its content is
#: read: preamble text, which a receiver ignores (MB-WIRE-9), so nothing in it is a part.
PREAMBLE_CONTENT = b"preamble text a receiver ignores\r\n" * 30
#: The requirements a refusal for any exceeded limit may name (MB-STATUS-4).
LIMIT_REQUIREMENTS = frozenset({"MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-3"})


def refused(
    ctx: Context,
    judge: Judge,
    body: bytes,
    status: int,
    name: str,
    at: int | None = FIRST_SECTION,
    must_name: str | None = None,
    chunked: bool = False,
    index: int = 0,
    coding: str | None = None,
) -> None:
    """Refused with `status` before any part runs, the problem naming the limit `name`; `at`
    is the fault's byte_offset in part `index`, or None for a limit on the whole batch. With
    `coding`, `body` is in that content coding, and `at` counts the decoded octets."""
    resp = sent(ctx, judge, body, chunked, coding)
    if chunked:
        # MB-INTER-5: "its limits count the content's octets whatever frames them": the
        # refusal the same content framed by Content-Length gets.
        judge.expect("status of the chunked batch", resp.status, {status}, "MB-INTER-5")
    judge_refusal(ctx, judge, resp, status, name, at, must_name, index, chunked=chunked)


def judge_refusal(
    ctx: Context,
    judge: Judge,
    resp: Response,
    status: int,
    name: str,
    at: int | None = FIRST_SECTION,
    must_name: str | None = None,
    index: int = 0,
    *,
    chunked: bool = False,
) -> None:
    """`resp` is the refusal with `status` of a batch over the limit `name`, its problem naming
    the limit; `at` is the fault's byte_offset in part `index`, or None for a limit on the whole
    batch. For chunked content the problem may also name MB-INTER-5 (spec 9.1: such a batch
    "is over that limit and answered 413 ([MB-STATUS-3], [MB-INTER-5])")."""
    # MB-STATUS-3: "413 (Content Too Large), or ... 431 (Request Header Fields Too Large) when a
    # part header section exceeds `max_part_header_bytes` or `max_part_fields`"; MB-LIMIT-5
    # states the field-line limit's own: "answer a batch request with a part over it with 431".
    expect_rejected(
        judge, resp, {status}, "MB-LIMIT-5" if name == "max_part_fields" else "MB-STATUS-3"
    )
    doc = problem_of(resp)
    if doc is None or resp.status != status:
        return
    # MB-STATUS-4: the problem names "the ID of the requirement the request broke"; spec 5.3
    # lists 413 and 431 among the refusals that name one. A batch over a limit breaks the
    # limit's rule, stated for the server (MB-STATUS-3, MB-LIMIT-1, and MB-LIMIT-5 for
    # `max_part_fields`) and for the client (MB-LIMIT-3): any of them names it, a framing or
    # envelope rule does not.
    judge.expect(
        "problem requirement",
        doc.get("requirement"),
        LIMIT_REQUIREMENTS
        | ({"MB-LIMIT-5"} if name == "max_part_fields" else set())
        | ({"MB-INTER-5"} if chunked else set()),
        "MB-STATUS-4",
    )
    # MB-LIMIT-4 (SHOULD): "name the exceeded limit in a 413 or 431 problem document, in a
    # `limit` member": on every path to the refusal (a declared Content-Length refused before
    # the content is read as much as content found over the limit while it is read); a
    # document without the member misses the SHOULD. MB-LIMIT-5 makes it a MUST for
    # `max_part_fields`.
    judge.expect("problem names the limit", doc.get("limit"), {name}, must_name or "MB-LIMIT-4")
    # Spec 9.1 after MB-LIMIT-4: a server may also give "the limit's value in a `value`
    # member", which the problem schema defines as "the limit's configured value, which the
    # batch exceeded": the value the server publishes for that limit (MB-LIMIT-1), never the
    # count the batch reached. Left unjudged when absent, or when the limit is not published.
    if "value" in doc and doc.get("limit") == name and (limit := ctx.limit(name)) is not None:
        judge.expect_true(
            "problem value",
            is_json_integer(doc["value"]) and doc["value"] == limit,
            repr(doc["value"]),
            f"the published {name}, {limit}",
            "MB-LIMIT-4",
        )
    if at is not None:
        missing = expect_located(judge, resp, index, at)
        # Spec 5.3: a server that refuses a batch for a limit on the parts "has counted the
        # parts as far as the fault, so it knows `part_index`", which MB-STATUS-4 then asks
        # for ("when the server knows them"); byte_offset stays the server's to know.
        judge.expect_true(
            "problem part_index",
            "part_index" not in missing,
            "absent or null",
            f"the integer {index}",
            "MB-STATUS-4",
        )
    else:
        # Spec 5.3: byte_offset is "absent or null where the fault is not in the content
        # (the top-level `Content-Type`, a limit on the whole batch, a 503)".
        judge.expect("problem byte_offset", doc.get("byte_offset"), {None}, "MB-STATUS-4")


def processed(
    ctx: Context,
    judge: Judge,
    body: bytes,
    cids: list[str],
    chunked: bool = False,
    coding: str | None = None,
) -> None:
    start = time.monotonic()
    resp = sent(ctx, judge, body, chunked, coding)
    took = time.monotonic() - start
    budget = ctx.target.batch_timeout_ms
    if resp.status == 408 and budget is not None and took * 1000 >= budget:
        # MB-PROC-1 lets a server end a batch that outlasts its declared time limit: a batch this
        # client took longer than that to send says nothing about the limit under test.
        judge.setup_error(
            f"the exchange of {len(body)} octets took {took:.1f} s, over the target's batch "
            f"time limit of {budget} ms"
        )
    if (
        resp.status == 200
        and budget is not None
        and took * 1000 >= budget
        and ABORTED_LINE.search(resp.body) is not None
    ):
        # Spec 5.4: a batch that outlasts the declared time limit ends with an abort part; the
        # parts it answered before say nothing of the limit under test (the abort itself is
        # judged where batches are made to outlast the limit), so nothing here is judged.
        judge.not_applicable(
            f"a batch of {len(cids)} parts took {took:.1f} s, over the target's batch time "
            f"limit of {budget} ms, and was aborted: the limit under test is not judged"
        )
    if chunked:
        # MB-INTER-5: "answer it as it answers the same content framed by `Content-Length`;
        # its limits count the content's octets whatever frames them".
        judge.expect("status of the chunked batch", resp.status, {200}, "MB-INTER-5")
    expect_processed(ctx, judge, resp, cids, (), "MB-LIMIT-1")


def filled(echo: str, length: int, body: bytes | None = None) -> SubRequest:
    """A PUT to `echo` stating Content-Length `length`; its body is `length` octets unless
    `body` is given (the skeleton that `lengths_for` measures)."""
    return SubRequest(
        "PUT",
        echo,
        (("Content-Type", "text/plain"), ("Content-Length", str(length))),
        b"b" * length if body is None else body,
        content_length=False,
    )


def lengths_for(echo: str, total: int, per_part: int) -> list[int] | None:
    """Body lengths, each at most `per_part`, of PUT parts whose batch is `total` octets."""
    lengths: list[int] = []
    while len(lengths) < MAX_PARTS_SENT:
        done = sum(lengths)
        for digits in range(1, 12):
            guess = 10 ** (digits - 1)
            skeleton = [*(filled(echo, n, b"") for n in lengths), filled(echo, guess, b"")]
            last = total - len(compose_batch(skeleton, BOUNDARY)) - done
            if last >= 0 and len(str(last)) == digits:
                break
        else:
            return None
        if last <= per_part:
            return [*lengths, last]
        lengths.append(per_part)
    return None


def register_cases(
    cases: tuple[tuple[str, tuple[str, ...], str, RunFn], ...], large: frozenset[str]
) -> None:
    """Register each limit case as a core check: standard tier when in `large`, else smoke."""
    for slug, requirements, description, run in cases:
        register(
            Check(
                slug,
                requirements,
                "core",
                "standard" if slug in large else "smoke",
                description,
                run,
                # The accepted cases read `ok` or write to `echo`; the refused ones must be
                # refused before any part runs (MB-STATUS-3).
                state=State.READ_ONLY,
                roles=BOTH_ROLES,
            )
        )
