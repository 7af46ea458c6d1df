"""Refusals of inputs that hold octets past US-ASCII: their problem documents stay UTF-8 JSON
(spec 5.3, MB-STATUS-4, RFC 8259 §8.1).

Theory of operation: a server that names the input it refuses in its problem's `detail` copies
the refused octets into a JSON text, and one that read its head one octet to a character (ISO
8859-1) and writes the document in that charset again sends octets that are not UTF-8, which
RFC 8259 §8.1 forbids of JSON exchanged between systems ("MUST be encoded using UTF-8"). The
check sends a batch whose Content-Encoding names a coding spelt with obs-text, one whose
Batch-Mode is obs-text, and one whose part method holds it (RFC 9110 §5.5 lets a field value
carry obs-text; none of them is a token), each once as the octet 0xE9 and once as its UTF-8
form. Each is refused with the statuses the spec gives that input, and each refusal's problem
document must be a UTF-8 JSON object valid against the problem schema. The batches run nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.media_types import PROBLEM_JSON
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-obs-text-refusal-61c2"
#: The refused letter, as one ISO 8859-1 octet and as UTF-8.
SPELLINGS = (("the octet 0xE9", "\u00e9"), ("UTF-8 C3 A9", "\u00c3\u00a9"))


@checker(
    "refusals-of-obs-text-inputs-are-utf8-problems",
    ("MB-STATUS-4", "MB-INTER-6", "MB-PROC-12", "MB-SUB-3"),
    "A batch whose Content-Encoding, Batch-Mode or part method holds octets past US-ASCII (0xE9 alone, or é in UTF-8) is refused as the spec refuses that input, with a problem document that is UTF-8 JSON.",
    state=State.READ_ONLY,
)
def refusals_of_obs_text_inputs_are_utf8_problems(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    plain = compose_batch([ok], BOUNDARY)
    for how, letter in SPELLINGS:
        cases = (
            # MB-INTER-6: a coding the server does not support is answered 415; a value that
            # is no token may be refused 400 as a malformed field (spec 5.3).
            (f"Content-Encoding x-{letter}", [ctype, ("Content-Encoding", f"x-{letter}")], plain,
             {400, 415}, "MB-INTER-6"),
            # MB-PROC-12: a Batch-Mode the server does not implement is answered 501.
            (f"Batch-Mode {letter}", [ctype, ("Batch-Mode", letter)], plain, {400, 501},
             "MB-PROC-12"),
            # MB-SUB-3 and MB-PART-11: a part method that is no token is refused 400 (spec 5.3),
            # one the server does not know 501.
            (f"part method G{letter}T", [ctype],
             compose_batch([SubRequest(f"G{letter}T", ok.target)], BOUNDARY), {400, 501},
             "MB-SUB-3"),
        )  # fmt: skip
        for what, head, body, statuses, requirement in cases:
            label = f"{what} ({how})"
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
            judge.expect(f"{label}: status", resp.status, statuses, requirement)
            if resp.status < 400:
                continue
            judge.expect(f"{label}: media type", resp.media_type, {PROBLEM_JSON}, "MB-STATUS-4")
            try:
                loads_json_text(resp.body)
            except ValueError as exc:
                reason = str(exc)
            else:
                reason = ""
            # MB-STATUS-4: a refusal carries "an application/problem+json document"; RFC 8259
            # §8.1: "JSON text exchanged between systems ... MUST be encoded using UTF-8".
            judge.expect_true(
                f"{label}: problem document",
                not reason,
                reason or "UTF-8 JSON",
                "a JSON text in UTF-8",
                "MB-STATUS-4",
            )
