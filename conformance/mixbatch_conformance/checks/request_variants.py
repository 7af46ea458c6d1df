"""Requests HTTP makes the same, answered the same (core.variants).

Theory of operation: a run sends a seeded half of its requests in a variant, each first
learned from the target with a probe (core.variant_probe); a variant the target does not take
is left out of the run, so that one fault of request handling does not fail every check that
happens to send it. This check judges that fault itself: it sends the probe as written and
in every variant, each case of the case variants, and compares the answers as the probe does.

- A one-part batch of a GET of the echo resource, written and in each batch variant: the
  status of a well-formed batch is 200 (MB-STATUS-1: "A well-formed batch that was processed
  is answered 200"), and its chunked form is answered as its Content-Length form (MB-INTER-5:
  "answer it as it answers the same content framed by `Content-Length`"); the part's
  sub-request is the same request whatever the spelling of the batch around it (MB-PART-8,
  spec 3.2.4).
- A GET of the echo resource alone, written and in each variant of a request alone: the echo
  "answers any request with a description of the request it received" (MB-TEST-2), and a
  request HTTP makes the same (RFC 9112 §3.2.2 absolute-form, RFC 9110 §5.1 field-name case,
  RFC 9112 §5.1 the whitespace around a value, RFC 9110's semantics in HTTP/1.0) is the same
  request received. A target that refuses HTTP/1.0 outright may (RFC 9112 §2.3 leaves a
  server free to answer 505), so a status other than the one written is noted, not failed,
  for HTTP/1.0 alone.
- The variants that respell values (RFC 9110 §5.3 a list field's lines combined, §5.6.1.2 its
  empty elements and the whitespace around its commas, spec 3.1.1 an empty media type
  parameter), each probe then carrying an `Accept` list. On the batch, `Accept` chooses the
  representation (MB-MULTI-1: "by the request's `Accept` field (RFC 9110 §12.5.1)", the field
  RFC 9110 §5.3 makes of its lines and §5.6.1 reads as a list), and an empty parameter of the
  batch media type is valid (MB-WIRE-4, spec 3.1.1: "An empty parameter is no fault"), so a
  status or a media type other than the one written breaks MB-MULTI-1, or MB-WIRE-4 for a
  refused respelt media type. On the GET alone, which a run never sends in these variants
  (checks compare the echo's lines octet for octet, spec 3.2.4), the echo must still report
  every line and member it received (MB-TEST-2: "the request's header fields as an array of
  `[name, value]` pairs in the order received"), compared as RFC 9110 reads lists
  (core.variant_probe).
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.variant_probe import probe_answer
from mixbatch_conformance.core.variants import (
    ALONE_VARIANTS,
    BATCH_VARIANTS,
    VALUE_VARIANTS,
    spellings,
)
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

DIRECT_ONLY = "an intermediary may respell a request before the origin sees it"


def _spellings(ctx: Context, variant: str, written: bytes) -> list[tuple[str, bytes]]:
    """`written` in `variant`, in both cases for the case variants, each with its label."""
    out = []
    for request, flip in spellings(variant, written, ctx.scheme, ctx.authority).items():
        case = (" (upper case)" if flip else " (lower case)") if "case" in variant else ""
        out.append((variant + case, request))
    return out


@checker(
    "request-variants-answered-as-written",
    ("MB-STATUS-1", "MB-PART-8", "MB-INTER-5", "MB-TEST-2", "MB-MULTI-1", "MB-WIRE-4"),
    "A one-part batch of a GET of the echo resource, and a GET of the echo resource alone, each sent in every form HTTP makes the same request (absolute-form, field names in lower and in upper case, the framing fields moved, whitespace around the values, the batch media type respelt, the part field names recased, chunked content, HTTP/1.0 for the GET alone, an Accept list split into lines, written with empty elements, or its media ranges and the batch media type with empty parameters), are answered as the request written, the echo describing the same request.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=DIRECT_ONLY,
)
def request_variants_answered_as_written(ctx: Context, judge: Judge) -> None:
    ctx.resource(judge, "echo")
    volatile = tuple(ctx.target.volatile_headers)
    # A run sends the value variants on batches only; the GET alone is judged in them too.
    kinds = ((True, BATCH_VARIANTS), (False, (*ALONE_VARIANTS, *VALUE_VARIANTS)))
    for batch, variants in kinds:
        kind = "the one-part batch" if batch else "the GET of the echo alone"
        answered: dict[bytes, Response] = {}
        for variant in variants:
            written = ctx.variant_probe(batch, variant)
            if written is None:
                break
            lists = variant in VALUE_VARIANTS
            if written not in answered:
                answered[written] = ctx.send(judge, written, as_written=True)
                if batch and not lists and answered[written].status != 200:
                    judge.not_applicable(
                        f"{kind} as written was answered {answered[written].status}, not 200"
                    )
            alone = answered[written]
            if batch and lists and alone.status != 200:
                # MB-MULTI-1 binds the answer written; its own checks judge it.
                judge.note(f"{kind} with Accept as written: {alone.status}, not 200")
                continue
            want = probe_answer(alone, volatile, lists=lists)
            for what, request in _spellings(ctx, variant, written):
                got = ctx.send(judge, request, as_written=True)
                label = f"{kind} in the {what} variant"
                if not batch and variant == "http10" and got.status != alone.status:
                    judge.note(
                        f"{label}: {got.status} (the version refused), as written {alone.status}"
                    )
                    continue
                judge.expect(
                    f"{label}: status",
                    got.status,
                    {alone.status},
                    _status_requirement(variant, batch, got.status),
                )
                if got.status != alone.status:
                    continue
                seen = probe_answer(got, volatile, lists=lists)
                # MB-PART-8 / MB-TEST-2: the same request described; MB-INTER-5 for chunked;
                # MB-MULTI-1: the representation chosen by the same Accept.
                judge.expect_true(
                    f"{label}: the answer and the request the echo saw",
                    seen == want,
                    repr(seen)[:400],
                    f"as written: {repr(want)[:400]}",
                    _answer_requirement(variant, batch, got.media_type != alone.media_type),
                )


def _status_requirement(variant: str, batch: bool, status: int) -> str:
    """The requirement a status other than the one written breaks."""
    if not batch:
        return "MB-TEST-2"
    if variant == "chunked":
        return "MB-INTER-5"
    if variant == "parameter-spelling" and status != 406:
        # Spec 3.1.1: "An empty parameter is no fault"; MB-WIRE-4 bounds the 400s.
        return "MB-WIRE-4"
    return "MB-MULTI-1" if variant in VALUE_VARIANTS else "MB-STATUS-1"


def _answer_requirement(variant: str, batch: bool, media_differs: bool) -> str:
    """The requirement an answer other than the one written breaks."""
    if not batch:
        return "MB-TEST-2"
    if variant == "chunked":
        return "MB-INTER-5"
    return "MB-MULTI-1" if variant in VALUE_VARIANTS and media_differs else "MB-PART-8"
