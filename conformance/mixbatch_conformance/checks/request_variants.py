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
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.variant_probe import probe_answer
from mixbatch_conformance.core.variants import ALONE_VARIANTS, BATCH_VARIANTS, spellings

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
    ("MB-STATUS-1", "MB-PART-8", "MB-INTER-5", "MB-TEST-2"),
    "A one-part batch of a GET of the echo resource, and a GET of the echo resource alone, each sent in every form HTTP makes the same request (absolute-form, field names in lower and in upper case, the framing fields moved, whitespace around the values, the batch media type respelt, the part field names recased, chunked content, HTTP/1.0 for the GET alone), are answered as the request written, the echo describing the same request.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=DIRECT_ONLY,
)
def request_variants_answered_as_written(ctx: Context, judge: Judge) -> None:
    ctx.resource(judge, "echo")
    volatile = tuple(ctx.target.volatile_headers)
    for batch, variants in ((True, BATCH_VARIANTS), (False, ALONE_VARIANTS)):
        written = ctx.variant_probe(batch)
        if written is None:
            continue
        alone = ctx.send(judge, written, as_written=True)
        want = probe_answer(alone, volatile)
        kind = "the one-part batch" if batch else "the GET of the echo alone"
        if batch and alone.status != 200:
            judge.not_applicable(f"{kind} as written was answered {alone.status}, not 200")
        for variant in variants:
            for what, request in _spellings(ctx, variant, written):
                got = ctx.send(judge, request, as_written=True)
                label = f"{kind} in the {what} variant"
                if not batch and variant == "http10" and got.status != alone.status:
                    judge.note(
                        f"{label}: {got.status} (the version refused), as written {alone.status}"
                    )
                    continue
                requirement = (
                    "MB-INTER-5"
                    if variant == "chunked"
                    else "MB-STATUS-1"
                    if batch
                    else "MB-TEST-2"
                )
                judge.expect(f"{label}: status", got.status, {alone.status}, requirement)
                if got.status != alone.status:
                    continue
                # MB-PART-8 / MB-TEST-2: the same request described; MB-INTER-5 for chunked.
                judge.expect_true(
                    f"{label}: the answer and the request the echo saw",
                    probe_answer(got, volatile) == want,
                    repr(probe_answer(got, volatile))[:400],
                    f"as written: {repr(want)[:400]}",
                    "MB-INTER-5" if variant == "chunked" else "MB-PART-8" if batch else "MB-TEST-2",
                )
