"""Every status the status resource answers alone, carried through a part as alone (spec 3.3).

Theory of operation: MB-RESP-4 makes a response part carry the sub-response whatever its
status: "A server MUST put the sub-response's header fields in the response part, except the
connection-specific and framing fields ..., and MUST put the sub-response's content in the part
body". An implementer who reads a status's definition as fixing its content (RFC 9110 §15.3.6
says a 205 response is one "to which the server has no content", yet the status resource of
MB-TEST-6 relies on no such reading) may drop the body of a part with that status, or its
fields, where the same resource alone sends them. So the check learns, code by code, what the
target's status resource answers alone (MB-TEST-6 fixes only the status, and no content for
204 and 304: "The content of the other answers is not relied on"), then sends those requests in
batches of at most `GROUP` parts (and at most the published max_parts), in every form the
target declares, and compares each part with its standalone answer as spec 3.2.4 says: equal
status, equal content, equal fields after leaving out the fields MB-RESP-4 drops, `Date` and the
declared volatile fields (`expect_same_as_alone`). Since MB-TEST-6 does not rely on that content,
and many servers put a per-request identifier (a trace id, an error instance) in a 4xx or 5xx
body, each code is sent alone twice: a part's content is compared only when the two standalone
contents agree, and otherwise the difference is noted and only the status and fields compared.

The codes are every registered final status of RFC 9110 §15 and the WebDAV and other IANA
registrations from 200 to 599, and the unregistered last code of each class (299, 399, 499,
599). 1xx are left out: no resource answers with one (MB-RESP-9, MB-TEST-6). 204 and 304 are
left out too: HTTP framing defines their content as empty (RFC 9110 §15.3.5, §15.4.5), MB-TEST-6
says the status resource sends none, and spec 3.3.3 notes that a 304 describes content it does
not carry; `no-content-parts-as-alone` judges those parts.
A code the resource does not answer alone with that code is noted and not sent.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import Answer, expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__ = ["CODES"]

#: The final statuses sent (see the module docstring), 204 and 304 left out.
CODES: tuple[int, ...] = (
    *(200, 201, 202, 203, 205, 206, 207, 208, 226, 299),
    *(300, 301, 302, 303, 305, 306, 307, 308, 399),
    *range(400, 419),
    *(421, 422, 423, 424, 425, 426, 428, 429, 431, 451, 499),
    *(500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511, 599),
)
#: The most parts in one batch (fewer when the target publishes a lower max_parts).
GROUP = 25


@checker(
    "statuses-carried-as-alone",
    ("MB-RESP-4", "MB-SUB-1", "MB-MULTI-5"),
    "Each final status the status resource answers alone (2xx incl. 205 and 206, 3xx, 4xx, 5xx; not 1xx, 204 or 304) is carried through a part, in every declared form, with the status, fields and content the same request gets alone.",
    state=State.READ_ONLY,
)
def statuses_carried_as_alone(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "status")
    learnt: list[tuple[SubRequest, Answer, bool]] = []
    for code in CODES:
        sub = SubRequest("GET", ctx.path(template.replace("{code}", str(code))))
        resp, again = ctx.alone(judge, sub), ctx.alone(judge, sub)
        if resp.status != code or again.status != code:
            # MB-TEST-6 is judged by test-resource-status; a code the resource does not give
            # alone has no standalone answer to compare a part with.
            judge.note(
                f"status resource for {code} answers {resp.status}, then {again.status} "
                "alone: not sent"
            )
            continue
        # MB-TEST-6: "The content of the other answers is not relied on": a content that
        # differs between two standalone sends is not compared with a part's.
        stable = resp.body == again.body
        if not stable:
            judge.note(
                f"status resource for {code} answers different content on two standalone "
                "sends: the part's content is not compared, its status and fields are"
            )
        learnt.append((sub, (resp.status, resp.headers, resp.body), stable))
    if not learnt:
        judge.not_applicable("the status resource answers none of the codes alone with that code")
    size = min(GROUP, ctx.limit("max_parts") or GROUP)
    for start in range(0, len(learnt), size):
        group = learnt[start : start + size]
        subs = [sub for sub, _, _ in group]
        for media, _, entries in answers_in_every_form(ctx, judge, subs):
            for (sub, alone, stable), entry in zip(group, entries, strict=True):
                label = f"{media} part for status {alone[0]} ({sub.target})"
                broken = len(judge.failed)
                # MB-RESP-4: "MUST put the sub-response's header fields in the response part,
                # except the connection-specific and framing fields ..., and MUST put the
                # sub-response's content in the part body", whatever its status.
                expect_same_as_alone(
                    ctx,
                    judge,
                    label,
                    sub,
                    (entry.status, entry.fields, entry.body),
                    alone,
                    content=stable,
                )
                if media != "multipart/mixed":
                    # MB-MULTI-5: every representation carries "for each part, in order, its
                    # status or outcome, ... its header fields and its body".
                    judge.expect_true(
                        f"{label} is the part's result",
                        len(judge.failed) == broken,
                        "; ".join(e.what for e in judge.failed[broken:]) or "as alone",
                        "the status, fields and body the same request gets alone",
                        "MB-MULTI-5",
                    )
