"""A forbidden method's name in another case is an unknown method, answered in its part (spec
3.2.1, 8.3, 5.1).

Theory of operation: MB-SUB-3 refuses a batch with a `CONNECT` or `TRACE` part, and method
names are case-sensitive (RFC 9110 §9.1), so `trace` and `connect` are other methods. Spec 3.2.1
says such a method "is answered in its part like any unknown method (typically 501 or 405); it
is not an envelope error". A server that upper-cases a method before comparing it with its
forbidden list refuses the whole batch instead. Each lower-case name is sent in a batch of one
part, and the same request alone tells which answer the part owes.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: MB-SUB-3's methods in another case: methods no server's batch rules forbid.
OTHER_CASE_FORBIDDEN = ("trace", "connect", "Trace")


@checker(
    "forbidden-method-other-case-answered-in-part",
    ("MB-STATUS-5", "MB-SUB-1", "MB-SUB-3"),
    "A part whose Http-Method is trace, connect or Trace, which are not TRACE or CONNECT, is answered in its part as the same request alone is answered, and the batch is processed.",
    state=State.READ_ONLY,
)
def forbidden_method_other_case(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    for method in OTHER_CASE_FORBIDDEN:
        sub = SubRequest(method, ok)
        single = ctx.alone(judge, sub)
        resp = ctx.batch(judge, [sub])
        # Spec 3.2.1: "`get` is a different, probably unknown, method and is answered in its
        # part like any unknown method (typically 501 or 405); it is not an envelope error";
        # MB-STATUS-5: "a part that fails with a 4xx or 5xx status is reported in that part,
        # and the batch is still answered as processed". MB-SUB-3 names `CONNECT` and `TRACE`.
        # A refusal whose problem document names MB-SUB-3 applied that rule to a method it
        # does not name: MB-SUB-3 is what was read too wide.
        doc = problem_of(resp) or {}
        cited = "MB-SUB-3" if doc.get("requirement") == "MB-SUB-3" else "MB-STATUS-5"
        if not judge.expect(f"{method} part: top-level status", resp.status, {200}, cited):
            continue
        env = expect_processed(ctx, judge, resp, [sub.content_id])
        got = part_status(env, 0)
        judge.note(f"{method} alone: {single.status}; in a part: {got}")
        if single.status is not None and single.status >= 400:
            # MB-SUB-1: the same checks "as the same request sent on its own, and report a
            # check's failure in the part"; which layer refuses it may differ in a batch.
            judge.expect(
                f"{method} part status",
                got,
                lambda s: isinstance(s, int) and s >= 400,
                "MB-SUB-1",
                allowed_text=f"a refusal (4xx or 5xx), as alone ({single.status})",
            )
        else:
            judge.expect(f"{method} part status", got, {single.status}, "MB-SUB-1")
