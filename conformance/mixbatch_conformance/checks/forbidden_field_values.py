"""A forbidden part field is refused whatever its value says (spec 3.2.3).

Theory of operation: MB-PART-10 refuses "a batch request in which a request part carries a
field that MB-PART-9 forbids": the rule names fields, not values. The per-field checks
(`reject-forbidden-field-*`) send each field with a value no server would call harmless, on
a bodiless GET. A server that reads the value first waves through the ones that look like a
no-op: `Content-Transfer-Encoding: binary` (MIME's identity), `Transfer-Encoding: identity`,
`Expect: 100-continue` ("the content is already here"), `Connection: keep-alive`, a `Host`
equal to the batch's own, or any field whose value is empty. This check sends each forbidden
field with such a value, and with an empty one, on a POST part with content, as the last of
three parts of a plain batch, the middle one under `batch-on-error=stop` and the first one of an
atomic batch (each mode only when the target claims its profile): every batch is answered 400.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-forbidden-value-8c41d2"


def benign_values(authority: str) -> tuple[tuple[str, str], ...]:
    """Each forbidden field with a value a lenient reader takes for a no-op."""
    return (
        ("Connection", "keep-alive"),
        ("Connection", "close"),
        ("Keep-Alive", "timeout=5, max=100"),
        ("Proxy-Connection", "keep-alive"),
        ("TE", "trailers"),
        ("Transfer-Encoding", "identity"),
        ("Upgrade", "h2c"),
        ("Expect", "100-continue"),
        ("Host", authority),
        ("Trailer", "Expires"),
        ("Content-Transfer-Encoding", "binary"),
        ("Content-Transfer-Encoding", "8bit"),
        ("Content-Transfer-Encoding", "7bit"),
        ("Http-Status-Code", "200"),
    )


def empty_values() -> tuple[tuple[str, str], ...]:
    """Each forbidden field with an empty value, which names no option, framing or authority."""
    names = dict.fromkeys(name for name, _ in benign_values(""))
    return tuple((name, "") for name in names)


@checker(
    "forbidden-fields-any-value-refused",
    ("MB-PART-10", "MB-STATUS-2"),
    "A POST part with content carrying a forbidden field with a harmless-looking value (Content-Transfer-Encoding: binary, Transfer-Encoding: identity, Expect: 100-continue, Connection: keep-alive, the batch's own Host, an empty value, ...) is refused with 400 as the last part of a plain batch, the middle part under stop and the first part of an atomic batch.",
    state=State.READ_ONLY,
)
def forbidden_fields_any_value_refused(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    ok = ctx.path(ctx.resource(judge, "ok"))
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    # (mode, its top-level fields, the faulty part's index of three)
    ways: list[tuple[str, list[tuple[str, str]], int]] = [("plain", [ctype], 2)]
    if ctx.target.claims("error-policy"):
        ways.append(("batch-on-error=stop", [ctype, ("Prefer", "batch-on-error=stop")], 1))
    if ctx.target.claims("atomic"):
        ways.append(("atomic", [ctype, ("Batch-Mode", "atomic")], 0))
    for mode, head, index in ways:
        for name, value in (*benign_values(ctx.authority), *empty_values()):
            bad = SubRequest(
                "POST",
                f"{echo}?mb-forbidden={name.lower()}",
                (("Content-Type", "text/plain"), (name, value)),
                b"mb forbidden field probe",
            )
            subs = [SubRequest("GET", ok), SubRequest("GET", ok)]
            subs.insert(index, bad)
            body = compose_batch(subs, BOUNDARY)
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
            judge.note(f"{mode}: part {index} POST with {name}: {value} -> {resp.status}")
            # MB-PART-10: "answer 400 to a batch request in which a request part carries a
            # field that MB-PART-9 forbids"; MB-PART-9 lists the field, whatever its value.
            expect_rejected(judge, resp, {400}, "MB-PART-10")
