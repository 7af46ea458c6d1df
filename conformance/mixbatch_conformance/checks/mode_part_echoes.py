"""What a sub-request receives under every declared mode and in every form (spec 3.2.3, 7.5,
7.7, 8.2): the part's control fields in any spelling never, its other fields in order, and the
batch's credentials where the part has none of its own.

Theory of operation: the other checks of MB-PART-8 and MB-SUB-5 send their parts in batches
without `Batch-Mode`. A server that builds sub-requests on another path for an atomic or a
references batch (the references path walks each field value for `$(` and must leave the
control fields out as it goes) can get them wrong there alone: skip `Http-Method` and
`Content-Id` only as the spec spells them, say, and hand `http-method` on. Each check here writes
its parts octet for octet and gives them to `_shared.mode_echoes`, which runs them without
`Batch-Mode`, under each mode the target declares (atomic, references, both) and in each
representation it offers, and judges each echo against the spec and against the same part's
echo without `Batch-Mode`:

- `part-control-fields-in-every-mode`: `Http-Method` and `Content-Id` named in lower, upper and
  alternating case, with no whitespace around the value, with spaces and tabs around it, and
  after or between the part's other fields; names that resemble them or a framing field; a
  field name on two lines with another between. None of the control fields reaches the echo,
  every other field does, in order, octet for octet (MB-PART-8; MB-PROC-18 for the same request
  in a references batch);
- `part-credentials-in-every-mode`: a batch with an Authorization and two Cookie lines, and
  parts with none of their own, with their own Authorization or Cookie named in other cases or
  with whitespace around the value, with both, and one inheriting again after those: each sees
  the batch's lines where it has none of its own and only its own where it has them (MB-SUB-5).

Both write nothing: the echo keeps no state.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.checks._shared.mode_echoes import WrittenPart, expect_parts_in_every_mode
from mixbatch_conformance.checks._shared.spellings import spellings
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Names that resemble the control fields or a framing field and are not them (a name is
#: matched whole, RFC 9110 §5.1), each with a value no server makes up.
LOOKALIKES = (
    ("Http-Method-Override", "DELETE"),
    ("Content-Ids", "<mb-suite-other>"),
    ("X-Content-Id", "<mb-suite-other>"),
    ("content-id-note", "mb"),
    ("X-Content-Length", "12"),
    ("Content-Length-Range", "0-9"),
    ("Original-Content-Length", "12"),
)


def _control_parts(echo: str) -> list[WrittenPart]:
    """Parts whose control fields are spelled every way RFC 9110 makes one field."""
    text = ("Content-Type", " text/plain")
    out = [
        WrittenPart(((m, " GET"), (c, f" <{echo}?mb-control={i}>"), ("X-Mb-Control", f" {m}")))
        for i, (m, c) in enumerate(
            zip(spellings("Http-Method"), spellings("Content-Id"), strict=True)
        )
    ]
    out += [
        # RFC 9112 §5.1: "A field value might be preceded and/or followed by optional whitespace
        # (OWS)": none, and spaces and tabs.
        WrittenPart(
            (("http-method", "GET"), ("CONTENT-ID", f"<{echo}?mb-control=tight>"), ("X-Mb-A", "a"))
        ),
        WrittenPart(
            (
                ("Http-Method", " \t PUT\t "),
                ("content-id", f"\t<{echo}?mb-control=spaced> \t"),
                text,
                ("X-Mb-A", "\t a  b\tc "),
            ),
            b"mb-put",
        ),
        # MB-PART-8: the others "in order", whatever stands between them.
        WrittenPart(
            (
                ("X-Mb-Order", " 1"),
                ("cOnTeNt-Id", f" <{echo}?mb-control=between>"),
                ("X-Mb-Other", " 2"),
                ("HTTP-METHOD", " POST"),
                ("X-Mb-Order", " 3"),
                text,
            ),
            b"mb-post",
        ),
        WrittenPart(
            (
                ("http-method", " GET"),
                ("content-id", f" <{echo}?mb-control=lookalikes>"),
                *((n, f" {v}") for n, v in LOOKALIKES),
            )
        ),
    ]
    return out


@checker(
    "part-control-fields-in-every-mode",
    ("MB-PART-8", "MB-PROC-18"),
    "Http-Method and Content-Id in lower, upper or alternating case, with or without whitespace around the value, before, between or after other fields, reach no echo, while look-alike names and the part's other fields reach it in order, in a batch without Batch-Mode, under every declared mode and in every offered form.",
    state=State.READ_ONLY,
)
def part_control_fields_in_every_mode(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    expect_parts_in_every_mode(ctx, judge, _control_parts(echo), tuple(ctx.target.credentials))


def _configured(ctx: Context, name: str) -> str | None:
    return next((v for n, v in ctx.target.credentials if n.lower() == name.lower()), None)


@checker(
    "part-credentials-in-every-mode",
    ("MB-SUB-5", "MB-PROC-18"),
    "The batch's Authorization and two Cookie lines reach every part without its own, and a part's own Authorization or Cookie (named in any case, with whitespace around the value) replaces them, in a batch without Batch-Mode, under every declared mode and in every offered form.",
    state=State.READ_ONLY,
)
def part_credentials_in_every_mode(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    nonce = secrets.token_hex(6)
    outer = (
        ("Authorization", _configured(ctx, "Authorization") or f"Bearer mb-suite-outer-{nonce}"),
        ("Cookie", _configured(ctx, "Cookie") or f"mb-suite-outer={nonce}"),
        ("Cookie", f"mb-suite-outer-2={nonce}"),
        *(
            (n, v)
            for n, v in ctx.target.credentials
            if n.lower() not in ("authorization", "cookie")
        ),
    )

    def part(
        i: str, *fields: tuple[str, str], method: str = "GET", body: bytes = b""
    ) -> WrittenPart:
        control = (("Http-Method", f" {method}"), ("Content-Id", f" <{echo}?mb-credentials={i}>"))
        return WrittenPart((*control, *fields), body)

    text = ("Content-Type", " text/plain")
    parts = [
        part("inherits"),
        part(
            "own-auth",
            ("authorization", f" Bearer mb-suite-part-{nonce}"),
            text,
            method="POST",
            body=b"mb",
        ),
        part(
            "own-cookie", text, ("COOKIE", f"\t mb-suite-part={nonce} \t"), method="PUT", body=b"mb"
        ),
        part(
            "own-both",
            ("AuThOrIzAtIoN", f" Bearer mb-suite-both-{nonce}"),
            ("cOoKiE", f" mb-both={nonce}"),
        ),
        part("inherits-again", ("X-Mb-Credentials", " after")),
        part("inherits-delete", method="DELETE"),
    ]
    expect_parts_in_every_mode(ctx, judge, parts, outer)
