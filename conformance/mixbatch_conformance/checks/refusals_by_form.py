"""Envelope faults are refused whichever representation the request asks for (spec 5, 6).

Theory of operation: a server that offers the XML or JSON 207 forms often builds them on a
code path of their own, and a validation written on the multipart path can be missing there.
The requirements that refuse a malformed batch name no representation: MB-STATUS-2 answers
"a batch request whose envelope is malformed ... with 400, before any part runs", whatever its
Accept. So the same faulty batches are sent once with `Accept: multipart/mixed` and once with
the Accept of each 207 form the target declares, and once more chunked, and each answer must be the refusal the
fault's requirement gives it (a problem document, MB-STATUS-4), never a 207.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS

__all__: list[str] = []

BOUNDARY = "mb-forms-3b9e71c0d54a2f86"
#: The Accept of the multipart form, sent first.
MULTIPART = "multipart/mixed"


def _faults(ctx: Context, judge: Judge) -> list[tuple[str, str, bytes, int]]:
    """(what, requirement, content, status) for one fault per envelope requirement."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    d = f"--{BOUNDARY}"

    def one(section: str, body: str = "") -> bytes:
        return f"{d}\r\n{section}\r\n{body}\r\n{d}--".encode("latin-1")

    get = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n"
    out = [
        ("a part without Http-Method", "MB-PART-2", one(f"Content-Id: <{ok}>\r\n"), 400),
        ("a part without Content-Id", "MB-PART-4", one("Http-Method: GET\r\n"), 400),
        (
            "a target on another authority",
            "MB-SUB-2",
            one(f"Http-Method: GET\r\nContent-Id: <http://elsewhere.invalid{ok}>\r\n"),
            400,
        ),
        (
            "the batch endpoint as a target",
            "MB-SUB-4",
            one(f"Http-Method: GET\r\nContent-Id: <{ctx.batch_path}>\r\n"),
            400,
        ),
        ("a TRACE part", "MB-SUB-3", one(f"Http-Method: TRACE\r\nContent-Id: <{ok}>\r\n"), 400),
        ("a forbidden field", "MB-PART-10", one(f"{get}Transfer-Encoding: chunked\r\n"), 400),
        ("an obs-fold", "MB-PART-11", one(f"{get}X-Folded: a\r\n b\r\n"), 400),
        (
            "a Content-Length one over the body",
            "MB-WIRE-17",
            one(f"Http-Method: PUT\r\nContent-Id: <{ok}>\r\nContent-Length: 4\r\n", "abc"),
            400,
        ),
        ("no close delimiter", "MB-WIRE-13", one(get)[: -len("--")], 400),
        ("no part", "MB-WIRE-18", f"{d}--".encode(), 400),
    ]
    limit = ctx.limit("max_part_header_bytes")
    if limit is not None and limit <= 1_000_000:
        filler = "x" * limit
        out.append(
            ("a header section over the limit", "MB-STATUS-3", one(f"{get}X-F: {filler}\r\n"), 431)
        )
    return out


@checker(
    "envelope-faults-refused-in-every-form",
    (
        "MB-STATUS-2",
        "MB-STATUS-3",
        "MB-PART-2",
        "MB-PART-4",
        "MB-PART-10",
        "MB-PART-11",
        "MB-SUB-2",
        "MB-SUB-3",
        "MB-SUB-4",
        "MB-WIRE-13",
        "MB-WIRE-17",
        "MB-WIRE-18",
    ),
    "A missing Http-Method or Content-Id, another authority, the batch endpoint, TRACE, a forbidden field, obs-fold, a wrong Content-Length, no close delimiter, no part and a header section over its limit are refused alike when the request asks for multipart/mixed and for each declared 207 form, and when the content is chunked.",
    state=State.READ_ONLY,
)
def envelope_faults_refused_in_every_form(ctx: Context, judge: Judge) -> None:
    accepts = [MULTIPART] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    ctype = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    for what, requirement, body, status in _faults(ctx, judge):
        # Each form's Accept with the content framed by Content-Length, and multipart/mixed
        # with it chunked: a server may read chunked content on a path of its own too.
        sends = [(accept, False) for accept in accepts] + [(MULTIPART, True)]
        for accept, chunk in sends:
            head = [*ctype, ("Accept", accept)]
            if chunk:
                head.append(("Transfer-Encoding", "chunked"))
            content = chunked_content(body)[0] if chunk else body
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))
            framing = "chunked" if chunk else "Content-Length"
            judge.note(f"{what} with Accept {accept}, {framing}: {resp.status}")
            # MB-STATUS-2: "answer a batch request whose envelope is malformed ... with 400,
            # before any part runs" (MB-STATUS-3: 413 or 431 over a limit), whichever form
            # the request asks for; the fault's own requirement names the refusal.
            expect_rejected(judge, resp, {status}, requirement)
