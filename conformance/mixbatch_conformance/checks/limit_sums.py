"""Per-part limits are counted per part: a batch of many parts, each within, is processed.

Theory of operation: `max_part_fields`, `max_part_header_bytes` and `max_part_bytes` bound one
part (spec 9.1: "the field lines of one part header section", "the octets of one part header
section", "the octets of one part body"). A server whose counter lives in the envelope parser
and is not reset at each part bounds the whole batch instead, and refuses a valid batch once
its parts add up past the limit. Each check here sends one batch whose parts are each within
the published limit (at it, or well under it) and whose sum is over it, and expects it
processed like any valid batch:

| check | parts |
|---|---|
| `part-fields-counted-per-part` | two parts of exactly `max_part_fields` lines; then `max_part_fields` / 2 + 1 parts of two lines each |
| `part-header-bytes-counted-per-part` | two parts of exactly `max_part_header_bytes` octets; then parts of a tenth of it |
| `part-bytes-counted-per-part` | two bodies of `max_part_bytes` / 2 + 1 octets |

A batch that the other published limits (parts, batch octets) would refuse, or that would send
more than `MAX_SEND_BYTES`, is N/A. `max_part_fields` unpublished is taken as the reference
default of 100 (spec 9.1: "a client that finds none assumes the reference default").
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-sums-0c6e3b97a2d14f85"
#: The most octets one batch here sends.
MAX_SEND_BYTES = 40 * 1024 * 1024
#: max_part_fields when the target publishes none (spec 9.1's reference default).
DEFAULT_PART_FIELDS = 100
#: The two field lines every part has (Http-Method and Content-Id).
BASE_FIELDS = 2


def _section(target: str, fields: int | None = None, octets: int | None = None) -> bytes:
    """A GET part's header section (field lines with CRLFs, no empty line) of exactly `fields`
    lines or exactly `octets` octets."""
    head = f"Http-Method: GET\r\nContent-Id: <{target}>\r\n".encode("latin-1")
    if fields is not None:
        return head + b"".join(f"X-F{i}: a\r\n".encode() for i in range(fields - BASE_FIELDS))
    assert octets is not None
    room = octets - len(head) - len(b"X-Fill: \r\n")
    if room < 0:
        raise ValueError(f"{octets} octets cannot hold Http-Method and Content-Id")
    return head + b"X-Fill: " + b"f" * room + b"\r\n"


def _envelope(sections: list[bytes]) -> bytes:
    dash = b"--" + BOUNDARY.encode()
    return b"".join(dash + b"\r\n" + s + b"\r\n\r\n" for s in sections) + dash + b"--"


#: Client fields of the batch request that its parts inherit (spec 8.2). A part's limits count
#: the part header section as written, so a part at a limit stays at it whatever it inherits.
INHERITED = (("Authorization", "Bearer mb-suite-limit-token"), ("Cookie", "mb-suite=1; mb-b=2"))


def _inherited(ctx: Context) -> tuple[tuple[str, str], ...]:
    """INHERITED, less the fields the target's own credentials already send."""
    own = {n.lower() for n, _ in ctx.target.credentials}
    return tuple((n, v) for n, v in INHERITED if n.lower() not in own)


def _send_within(
    ctx: Context,
    judge: Judge,
    what: str,
    body: bytes,
    cids: list[str],
    requirement: str,
    batch_fields: tuple[tuple[str, str], ...] = (),
) -> None:
    """Send `body`, with `batch_fields` on the batch request, when it keeps to the batch-wide
    limits; it must be processed."""
    parts = ctx.limit("max_parts")
    batch = ctx.limit("max_batch_bytes")
    if len(body) > MAX_SEND_BYTES:
        judge.not_applicable(f"{what}: {len(body)} octets, more than {MAX_SEND_BYTES} sent at most")
    if (parts is not None and len(cids) > parts) or (batch is not None and len(body) > batch):
        judge.not_applicable(f"{what} needs {len(cids)} parts in {len(body)} octets")
    judge.note(f"sent {what}: {len(cids)} parts, {len(body)} octets")
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *batch_fields]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    judge.require(f"status of {what}", resp.status, {200}, requirement)
    expect_processed(ctx, judge, resp, cids, (), requirement)


@checker(
    "part-fields-counted-per-part",
    ("MB-LIMIT-5",),
    "Batches whose parts each keep within max_part_fields, together holding far more field lines, are processed, and so is a part at the limit in a batch sent with Authorization and Cookie: the limit counts one part header section as written.",
    state=State.READ_ONLY,
)
def part_fields_counted_per_part(ctx: Context, judge: Judge) -> None:
    limit = ctx.limit("max_part_fields") or DEFAULT_PART_FIELDS
    ok = ctx.path(ctx.resource(judge, "ok"))
    at_limit = _section(ok, fields=limit)
    header_limit = ctx.limit("max_part_header_bytes")
    # MB-LIMIT-5: "a limit on the number of field lines in one part header section": a batch
    # whose every part is within it is within it, however many lines its parts add up to.
    if header_limit is None or len(at_limit) <= header_limit:
        _send_within(
            ctx,
            judge,
            f"two parts of {limit} field lines",
            _envelope([at_limit] * 2),
            [f"<{ok}>"] * 2,
            "MB-LIMIT-5",
        )
        # MB-LIMIT-5 counts "the number of field lines in one part header section": the lines
        # a part inherits from the batch request (spec 8.2) are not in it.
        _send_within(
            ctx,
            judge,
            f"a part of {limit} field lines, the batch sent with Authorization and Cookie",
            _envelope([at_limit]),
            [f"<{ok}>"],
            "MB-LIMIT-5",
            _inherited(ctx),
        )
    count = limit // BASE_FIELDS + 1
    small = _section(ok, fields=BASE_FIELDS)
    _send_within(
        ctx,
        judge,
        f"{count} parts of {BASE_FIELDS} field lines",
        _envelope([small] * count),
        [f"<{ok}>"] * count,
        "MB-LIMIT-5",
    )


@checker(
    "part-header-bytes-counted-per-part",
    ("MB-LIMIT-1", "MB-STATUS-3"),
    "Batches whose parts each keep within max_part_header_bytes, together holding far more header octets, are processed, and so is a part at the limit in a batch sent with Authorization and Cookie: the limit counts one part header section as written.",
    state=State.READ_ONLY,
)
def part_header_bytes_counted_per_part(ctx: Context, judge: Judge) -> None:
    limit = ctx.limit("max_part_header_bytes")
    if limit is None:
        judge.not_applicable("the target publishes no max_part_header_bytes limit")
    ok = ctx.path(ctx.resource(judge, "ok"))
    # MB-LIMIT-1: "enforce limits on ... the octets of a part header section"; spec 9.1: "A
    # value at the limit is within it".
    try:
        at_limit = _section(ok, octets=limit)
    except ValueError:
        judge.not_applicable(f"max_part_header_bytes {limit} holds no part at the limit")
    fields = ctx.limit("max_part_fields")
    if fields is None or fields >= 3:
        _send_within(
            ctx,
            judge,
            f"two header sections of {limit} octets",
            _envelope([at_limit] * 2),
            [f"<{ok}>"] * 2,
            "MB-LIMIT-1",
        )
        # MB-LIMIT-1 counts "the octets of a part header section": what a part inherits from
        # the batch request (spec 8.2) is not written in it.
        _send_within(
            ctx,
            judge,
            f"a header section of {limit} octets, the batch sent with Authorization and Cookie",
            _envelope([at_limit]),
            [f"<{ok}>"],
            "MB-LIMIT-1",
            _inherited(ctx),
        )
    tenth = max(limit // 10, len(_section(ok, fields=BASE_FIELDS)) + len(b"X-Fill: \r\n"))
    count = limit // tenth + 2
    _send_within(
        ctx,
        judge,
        f"{count} header sections of {tenth} octets",
        _envelope([_section(ok, octets=tenth)] * count),
        [f"<{ok}>"] * count,
        "MB-LIMIT-1",
    )


@checker(
    "part-bytes-counted-per-part",
    ("MB-LIMIT-1", "MB-STATUS-3"),
    "A batch of two part bodies, each within max_part_bytes and together over it, is processed: the limit counts one part body.",
    state=State.READ_ONLY,
    tier="standard",
)
def part_bytes_counted_per_part(ctx: Context, judge: Judge) -> None:
    limit = ctx.limit("max_part_bytes")
    if limit is None:
        judge.not_applicable("the target publishes no max_part_bytes limit")
    echo = ctx.path(ctx.resource(judge, "echo"))
    size = limit // 2 + 1
    subs = [
        SubRequest("PUT", echo, (("Content-Type", "application/octet-stream"),), b"s" * size)
        for _ in range(2)
    ]
    # MB-LIMIT-1: "enforce limits on ... the octets of a part body": two bodies within it are
    # within it, whatever their sum.
    _send_within(
        ctx,
        judge,
        f"two part bodies of {size} octets",
        compose_batch(subs, BOUNDARY),
        [s.content_id for s in subs],
        "MB-LIMIT-1",
    )
