"""Parts written octet for octet to the echo resource, run under every mode and form the target
declares, and judged by what the echo received (spec 3.2.3, 3.2.4, 7.5, 7.7, 8.2).

Theory of operation: MB-PART-8, MB-SUB-5 and MB-SUB-6 say what every sub-request receives,
whatever the batch asks for; a server may still build sub-requests on one code path for a batch
without `Batch-Mode` and on another for an atomic batch (a transaction's loop) or a references
batch (a loop that substitutes references in each field value and must skip the control fields
as it goes). A fault in the second path shows only there. So a given set of parts goes:

1. in a batch without `Batch-Mode`, answered in multipart/mixed: the baseline, learned from the
   same server;
2. in a batch under each mode the target declares (`Batch-Mode: atomic`, `references`, and
   `atomic, references` when it declares both), and the baseline's batch too, once in each
   representation the target offers whose echo content is readable (multipart/mixed, the XML
   and the JSON 207 forms, which carry each part's content whole).

Each part's echo is judged twice. Against the spec: the part's header fields other than
`Http-Method` and `Content-Id` (in whatever case the part names them), in order, with their
values as written less the optional whitespace around them, and the batch's credentials that
MB-SUB-5 hands on where the part carries none of its own (`owed_fields`). Fields the echo adds
beside them (a stack's own, the framing fields MB-TEST-2 lets it list) are not the part's and
are not compared here. Against the baseline: the echo of the same part without `Batch-Mode`,
compared as spec 3.2.4 compares two requests, under MB-PROC-18 in a batch that lists
`references` ("MUST run the part as the same request sent alone with those values") and under
MB-PART-8 otherwise (the atomic profile asks for all or nothing, and MB-PART-8 binds every
request part whatever its batch asks for). A mode the target does not declare is not sent: the
baseline alone is judged then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.echo import Echo, comparable_headers, differences
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS, require_readable

__all__ = [
    "CONTROL",
    "CREDENTIALS",
    "WrittenPart",
    "declared_modes",
    "expect_parts_in_every_mode",
    "owed_fields",
]

#: The part's own control fields, which are not the sub-request's (MB-PART-8), lower-case.
CONTROL = frozenset({"http-method", "content-id"})
#: The fields MB-SUB-5 hands on from the batch request, lower-case.
CREDENTIALS = ("authorization", "cookie")
#: The boundary of the batches written here.
BOUNDARY = "mb-mode-echo-3f9a61c0d2b74e58"
#: Statuses a server that checks credentials may give a part carrying the suite's own.
REFUSED = frozenset({401, 403})


@dataclass(frozen=True)
class WrittenPart:
    """A request part as written: its header lines (name, the text after the colon with the
    whitespace around the value kept), the control lines among them in any spelling, and its
    body, to which a `Content-Length` line is added when it has one."""

    lines: tuple[tuple[str, str], ...]
    body: bytes = b""

    def control(self, name: str) -> str:
        return next((v.strip(" \t") for n, v in self.lines if n.lower() == name), "")

    @property
    def method(self) -> str:
        return self.control("http-method")

    @property
    def content_id(self) -> str:
        return self.control("content-id")

    def written(self) -> bytes:
        head = "".join(f"{n}:{v}\r\n" for n, v in self.lines)
        if self.body:
            head += f"Content-Length: {len(self.body)}\r\n"
        return head.encode("latin-1") + b"\r\n" + self.body

    def shown(self) -> str:
        return "; ".join(f"{n}:{v!r}" for n, v in self.lines)


def owed_fields(
    part: WrittenPart, batch_credentials: Sequence[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    """The header fields the part's sub-request has under the spec, as 3.2.4 compares them.

    MB-PART-8: "take a request part's header fields other than `Http-Method` and `Content-Id`
    as the sub-request's header fields, in order" (a value being what RFC 9110 §5.5 makes it,
    without the whitespace around it); MB-SUB-5: "apply the batch request's `Authorization` and
    `Cookie` fields to each sub-request whose part carries no field of the same name"."""
    own = [(n.lower(), v.strip(" \t")) for n, v in part.lines if n.lower() not in CONTROL]
    for name in CREDENTIALS:
        if all(n != name for n, _ in own):
            own += [(name, v) for n, v in batch_credentials if n.lower() == name]
    return comparable_headers(tuple(own))


def declared_modes(ctx: Context) -> list[str]:
    """The `Batch-Mode` values of the modes the target declares: each mode alone, and both
    together when it declares both (spec 7.7: `Batch-Mode` is a list of modes)."""
    modes = [m for m in ("atomic", "references") if ctx.target.claims(m)]
    return modes + ([", ".join(modes)] if len(modes) == 2 else [])


def _forms(ctx: Context) -> list[str | None]:
    """No Accept (multipart/mixed), then the Accept of each 207 form the target offers."""
    return [None] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]


def _answers(
    ctx: Context,
    judge: Judge,
    label: str,
    parts: Sequence[WrittenPart],
    head: list[tuple[str, str]],
    accept: str | None,
    refused: str,
) -> list[tuple[int | None, bytes]]:
    """(status, content) of each part of the batch of `parts` sent with `head`, in the form
    `accept` asks for; a batch not processed is a fault under `refused`."""
    dash = f"--{BOUNDARY}".encode()
    body = b"\r\n".join(dash + b"\r\n" + p.written() for p in parts) + b"\r\n" + dash + b"--"
    fields = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *head]
    if accept is not None:
        fields.append(("Accept", accept))
    request = ctx.raw_request("POST", ctx.batch_path, fields, body, credentials=False)
    # Written as the check spells it: the spellings of the control fields are what is judged.
    resp = ctx.send(judge, request, as_written=True)
    if accept is None:
        # MB-PART-8 (or the mode's own rule): a batch of valid parts is processed, and every
        # spelling of the control fields here is one RFC 9110 §5.1 and §5.5 make valid.
        judge.require(f"{label}: top-level status", resp.status, {200}, refused)
        env = ctx.read_batch(judge, resp)
        judge.require(f"{label}: part count", len(env.parts), {len(parts)}, "MB-RESP-1")
        return [(part_status(env, i), env.parts[i].body) for i in range(len(parts))]
    reader, form_rule = next((r, q) for _, a, r, q in MULTISTATUS_FORMS if a == accept)
    judge.require(f"{label}: top-level status", resp.status, {207}, refused)
    entries, problem = reader(resp.body)
    require_readable(judge, f"{label}: readable", problem, form_rule)
    judge.require(f"{label}: entry count", len(entries), {len(parts)}, form_rule)
    return [(e.status, e.body) for e in entries]


def _expect_owed(
    ctx: Context,
    judge: Judge,
    label: str,
    part: WrittenPart,
    seen: Echo,
    owed: tuple[tuple[str, str], ...],
) -> None:
    """Expect the echo `seen` to have received the part's fields as the spec owes them."""
    names = {n for n, _ in owed} | CONTROL
    got = comparable_headers(
        tuple((n, v) for n, v in seen.headers if n.lower() in names), ctx.target.volatile_headers
    )
    # MB-PART-8: "A receiver MUST take a request part's header fields other than `Http-Method`
    # and `Content-Id` as the sub-request's header fields": field names are case-insensitive
    # (RFC 9110 §5.1), so a control field in any case is no field of the sub-request.
    judge.expect(
        f"{label} control fields received",
        sorted(n for n, _ in got if n in CONTROL),
        [[]],
        "MB-PART-8",
    )
    # MB-PART-8: the part's other fields, "in order", each value octet for octet.
    judge.expect(
        f"{label} the part's fields received",
        [f for f in got if f[0] not in CREDENTIALS and f[0] not in CONTROL],
        [[f for f in owed if f[0] not in CREDENTIALS]],
        "MB-PART-8",
    )
    # MB-SUB-5: "MUST apply the batch request's `Authorization` and `Cookie` fields to each
    # sub-request whose part carries no field of the same name, and MUST use a part's own
    # `Authorization` or `Cookie` instead of the batch request's when the part has one".
    judge.expect(
        f"{label} credentials received",
        [f for f in got if f[0] in CREDENTIALS],
        [[f for f in owed if f[0] in CREDENTIALS]],
        "MB-SUB-5",
    )


def expect_parts_in_every_mode(
    ctx: Context,
    judge: Judge,
    parts: Sequence[WrittenPart],
    batch_fields: Sequence[tuple[str, str]] = (),
    *,
    refused: str = "MB-PART-8",
) -> None:
    """Send `parts` (each to the echo resource) in a batch carrying `batch_fields` without
    `Batch-Mode`, then under each declared mode, each in every readable form, and judge each
    part's echo against the spec (`owed_fields`) and against its echo without `Batch-Mode`."""
    credentials = [(n, v) for n, v in batch_fields if n.lower() in CREDENTIALS]
    owed = [owed_fields(p, credentials) for p in parts]
    base = _answers(ctx, judge, "without Batch-Mode", parts, list(batch_fields), None, refused)
    for i, (status, _) in enumerate(base):
        if status in REFUSED and ctx.target.credentials:
            judge.not_applicable(
                f"the target refuses part {i} carrying the suite's own credentials ({status}), "
                "so the credentials a part receives cannot be observed"
            )
        # MB-TEST-2: the echo answers "every request to that resource whose method a
        # sub-request may carry, other than `HEAD`, with 200".
        judge.expect(f"without Batch-Mode: part {i} status", status, {200}, "MB-TEST-2")
    baseline = readable_echoes(judge, *(content for _, content in base))
    for mode in [None, *declared_modes(ctx)]:
        head = list(batch_fields) + ([("Batch-Mode", mode)] if mode else [])
        # MB-PROC-18: a references batch "MUST run the part as the same request sent alone
        # with those values". Spec 7.5: "`Batch-Mode: atomic` asks for all or nothing", which
        # changes no part's request: MB-PART-8 binds it as in any batch.
        rule = "MB-PROC-18" if mode and "references" in mode else "MB-PART-8"
        for accept in _forms(ctx):
            if mode is None and accept is None:
                answers, echoes = base, baseline
            else:
                label = f"Batch-Mode: {mode}" if mode else "without Batch-Mode"
                label += f", Accept: {accept}" if accept else ""
                judge.note(f"a batch {label}")
                answers = _answers(
                    ctx, judge, label, parts, head, accept, rule if mode else refused
                )
                echoes = readable_echoes(judge, *(content for _, content in answers))
            label = f"Batch-Mode: {mode}" if mode else "without Batch-Mode"
            label += f", {accept}" if accept else ""
            for i, (part, (status, _), seen) in enumerate(zip(parts, answers, echoes, strict=True)):
                what = f"{label}: part {i} ({part.shown()})"
                # A part that ran without Batch-Mode runs alike in every mode: the same request.
                judge.expect(f"{what} status", status, {base[i][0]}, rule)
                _expect_owed(ctx, judge, what, part, seen, owed[i])
                found = differences(seen, baseline[i], ctx.target.volatile_headers)
                # MB-PROC-18: "MUST run the part as the same request sent alone with those
                # values"; without references, MB-PART-8 binds each part whatever the batch asks
                # for. Compared as spec 3.2.4 compares two requests.
                judge.expect_true(
                    f"{what} is the request it is without Batch-Mode",
                    not found,
                    "; ".join(found) or "the same request",
                    "the same method, target, authority, content and fields (spec 3.2.4)",
                    rule,
                )
