"""Property checks over the inputs around a batch (standard tier; the deep tier runs longer).

Theory of operation: each check draws one input from `_shared.inputs` together with the
outcome the spec gives it, sends it, and compares; `_shared.property_runs.hold` runs it with
the run's seed and example budget and folds the minimal failing example into the report.
The smoke tier runs the fixed cases of the negotiation, conditional, preference, target and
body-size checks; these draw the combinations around them:

- `property-negotiation`: Accept with quality values, wildcards, case and q=0 (MB-MULTI-1,
  MB-STATUS-9);
- `property-conditional-fields`: any combination of the four conditional fields on GET and
  HEAD parts, against RFC 9110's order of evaluation and the same request alone (MB-PROC-9);
- `property-prefer-lists`: batch-on-error anywhere among other preferences, any spelling,
  one field line or several (MB-PROC-6, MB-PROC-13);
- `property-target-spellings`: dot segments and percent-encoded queries, and inherited
  credential names in any case, as the echo resource receives them (MB-PART-5, MB-SUB-5);
- `property-body-sizes`: bodies across orders of magnitude and around 64 KiB (MB-PART-8);
- `property-limit-edges`: a part header section one under, at and one over the published
  `max_part_fields` and `max_part_header_bytes` (MB-LIMIT-1, MB-LIMIT-5, MB-STATUS-3).
"""

from __future__ import annotations

from typing import Any

from mixbatch_conformance.checks._shared.property_runs import hold
from mixbatch_conformance.checks._shared.requests import etag_of, ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

STATUS = {"multipart/mixed": 200, "application/xml": 207}


def _offered(ctx: Context) -> tuple[str, ...]:
    from mixbatch_conformance.checks._shared.inputs import JSON_FORM, MULTIPART, XML_FORM

    forms = [MULTIPART]
    if ctx.target.claims("xml"):
        forms.append(XML_FORM)
    if ctx.target.claims("json"):
        forms.append(JSON_FORM)
    return tuple(forms)


@checker(
    "property-negotiation",
    ("MB-MULTI-1", "MB-STATUS-9"),
    "For generated Accept values (quality values, wildcards, case, q=0) the batch is answered in a form the spec allows, or 406.",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def property_negotiation(ctx: Context, judge: Judge) -> None:
    from mixbatch_conformance.checks._shared.inputs import accept_fields

    ok, _ = ok_and_not_found(ctx, judge)

    def body(ctx: Context, j: Judge, drawn: Any) -> None:
        accept, allowed = drawn
        resp = ctx.batch(j, [ok], headers=(("Accept", accept),))
        got = "406" if resp.status == 406 else resp.media_type
        j.expect(
            f"form for Accept {accept!r}",
            got,
            allowed,
            "MB-STATUS-9" if allowed == {"406"} else "MB-MULTI-1",
        )

    hold(ctx, judge, accept_fields(_offered(ctx)), body, "negotiation by Accept")


@checker(
    "property-conditional-fields",
    ("MB-PROC-9",),
    "For generated combinations of If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since, a GET or HEAD part gives the status RFC 9110 gives alone.",
    tier="standard",
    profile="conditional",
    state=State.READ_ONLY,
    draws_examples=True,
)
def property_conditional_fields(ctx: Context, judge: Judge) -> None:
    from hypothesis import strategies as st

    from mixbatch_conformance.checks._shared.inputs import conditional_fields

    path, etag = etag_of(ctx, judge)
    modified = ctx.alone(judge, SubRequest("GET", path)).get("Last-Modified")
    if not modified:
        judge.setup_error(f"GET {path} alone carries no Last-Modified")

    def body(ctx: Context, j: Judge, drawn: Any) -> None:
        method, (fields, want) = drawn
        sub = SubRequest(method, path, fields)
        alone = ctx.alone(j, sub)
        if alone.status != want:
            # The model and the resource disagree alone: not the batch's doing.
            return
        env = expect_processed(ctx, j, ctx.batch(j, [sub]), [sub.content_id])
        j.expect(f"{method} with {dict(fields)}", part_status(env, 0), {want}, "MB-PROC-9")

    strategy = st.tuples(st.sampled_from(["GET", "HEAD"]), conditional_fields(etag, modified))
    hold(ctx, judge, strategy, body, "conditional fields as RFC 9110 evaluates them")


@checker(
    "property-prefer-lists",
    ("MB-PROC-6", "MB-PROC-13", "MB-PROC-5"),
    "For generated Prefer field lines the batch stops after a failure exactly when batch-on-error=stop is among them, in any spelling.",
    tier="standard",
    profile="error-policy",
    state=State.READ_ONLY,
    draws_examples=True,
)
def property_prefer_lists(ctx: Context, judge: Judge) -> None:
    from mixbatch_conformance.checks._shared.inputs import prefer_fields

    ok, nf = ok_and_not_found(ctx, judge)
    subs = [nf, ok]

    def body(ctx: Context, j: Judge, drawn: Any) -> None:
        lines, stop = drawn
        resp = ctx.batch(j, subs, headers=tuple(("Prefer", v) for v in lines))
        env = expect_processed(ctx, j, resp, [s.content_id for s in subs])
        j.expect(
            f"part 1 outcome with Prefer {lines!r}",
            env.parts[1].get("Batch-Outcome"),
            {"skipped"} if stop else {None},
            "MB-PROC-13" if stop else "MB-PROC-5",
        )

    hold(ctx, judge, prefer_fields(), body, "batch-on-error among other preferences")


@checker(
    "property-target-spellings",
    ("MB-PART-5", "MB-SUB-5"),
    "For generated targets with dot segments and percent-encoded queries, and credentials named in any case, the echo resource receives the resolved target and the part's own credential.",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def property_target_spellings(ctx: Context, judge: Judge) -> None:
    from hypothesis import strategies as st

    from mixbatch_conformance.checks._shared.inputs import name_spellings, target_spellings

    echo = ctx.path(ctx.resource(judge, "echo"))
    if ctx.target.credentials:
        judge.not_applicable("the target needs its own credentials, which the parts would replace")
    outer = (("Authorization", "Bearer mb-suite-outer"),)

    def body(ctx: Context, j: Judge, drawn: Any) -> None:
        (spelled, resolved), name = drawn
        sub = SubRequest("GET", spelled, ((name, "Bearer mb-suite-part"),))
        env = expect_processed(ctx, j, ctx.batch(j, [sub], headers=outer), [sub.content_id])
        j.require("part status", part_status(env, 0), {200}, "MB-PART-5")
        seen = read_echo(env.parts[0].body)
        if seen is None:
            return
        j.expect(f"target received for {spelled!r}", seen.target, {resolved}, "MB-PART-5")
        j.expect(
            f"Authorization received with the part's {name!r}",
            seen.get_all("Authorization"),
            [["Bearer mb-suite-part"]],
            "MB-SUB-5",
        )

    strategy = st.tuples(target_spellings(echo), name_spellings("Authorization"))
    hold(ctx, judge, strategy, body, "target spellings and credential names")


@checker(
    "property-body-sizes",
    ("MB-PART-8",),
    "For generated body sizes across orders of magnitude and around 64 KiB, the echo resource receives every octet of the part body.",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def property_body_sizes(ctx: Context, judge: Judge) -> None:
    from hypothesis import strategies as st

    from mixbatch_conformance.checks._shared.inputs import body_sizes

    echo = ctx.path(ctx.resource(judge, "echo"))

    def body(ctx: Context, j: Judge, drawn: Any) -> None:
        sizes = drawn
        subs = [
            SubRequest(
                "PUT", echo, (("Content-Type", "application/octet-stream"),), bytes([i % 251]) * n
            )
            for i, n in enumerate(sizes)
        ]
        env = expect_processed(ctx, j, ctx.batch(j, subs), [s.content_id for s in subs])
        for i, sub in enumerate(subs):
            seen = read_echo(env.parts[i].body)
            j.expect_true(
                f"part {i}: {len(sub.body)} octets received",
                seen is not None and seen.body == sub.body,
                f"{len(seen.body) if seen else 'no'} octets",
                f"the {len(sub.body)} octets sent",
                "MB-PART-8",
            )

    limit = ctx.limit("max_part_bytes")
    hold(ctx, judge, st.lists(body_sizes(limit), min_size=1, max_size=3), body, "body sizes")


def _section(target: str, fields: int | None = None, octets: int | None = None) -> bytes | None:
    """A GET part's header section of exactly `fields` field lines or `octets` octets (with
    their CRLFs), or None when it cannot hold Http-Method and Content-Id."""
    head = f"Http-Method: GET\r\nContent-Id: <{target}>\r\n".encode("latin-1")
    if fields is not None:
        return (
            head + b"".join(f"X-F{i}: a\r\n".encode() for i in range(fields - 2))
            if fields >= 2
            else None
        )
    assert octets is not None
    room = octets - len(head) - len(b"X-Fill: \r\n")
    return head + b"X-Fill: " + b"f" * room + b"\r\n" if room >= 1 else None


@checker(
    "property-limit-edges",
    ("MB-LIMIT-1", "MB-LIMIT-5", "MB-STATUS-3"),
    "For part header sections one under, at and one over the published max_part_fields and max_part_header_bytes, a batch within the limit is processed and one over it is answered 431.",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def property_limit_edges(ctx: Context, judge: Judge) -> None:
    from hypothesis import strategies as st

    from mixbatch_conformance.checks._shared.inputs import counts_around

    ok = ctx.path(ctx.resource(judge, "ok"))
    fields_limit = ctx.limit("max_part_fields")
    octets_limit = ctx.limit("max_part_header_bytes")
    drawn: list[Any] = []
    if fields_limit is not None:
        drawn.append(st.tuples(st.just("max_part_fields"), counts_around(fields_limit)))
    if octets_limit is not None:
        drawn.append(st.tuples(st.just("max_part_header_bytes"), counts_around(octets_limit)))
    if not drawn:
        judge.not_applicable(
            "the target publishes neither max_part_fields nor max_part_header_bytes"
        )
    boundary = "mb-edge-5b0f3c9e71d2a846"

    def body(ctx: Context, j: Judge, example: Any) -> None:
        name, n = example
        if name == "max_part_fields":
            section = _section(ok, fields=n)
            over = n > (fields_limit or n)
            # Both limits bind one section: a count of field lines must keep to the octets.
            if section is None or (octets_limit is not None and len(section) > octets_limit):
                return
        else:
            section = _section(ok, octets=n)
            over = n > (octets_limit or n)
            lines = section.count(b"\r\n") if section else 0
            if section is None or (fields_limit is not None and lines > fields_limit):
                return
        content = f"--{boundary}\r\n".encode() + section + f"\r\n\r\n--{boundary}--".encode()
        head = [("Content-Type", f"multipart/mixed; boundary={boundary}")]
        resp = ctx.send(j, ctx.raw_request("POST", ctx.batch_path, head, content))
        limit = fields_limit if name == "max_part_fields" else octets_limit
        if over:
            # MB-STATUS-3: "431 ... when a part header section exceeds max_part_header_bytes
            # or max_part_fields".
            j.expect(f"{name} {limit}, sent {n}", resp.status, {431}, "MB-STATUS-3")
        else:
            requirement = "MB-LIMIT-5" if name == "max_part_fields" else "MB-LIMIT-1"
            j.expect(f"{name} {limit}, sent {n}", resp.status, {200}, requirement)

    hold(ctx, judge, st.one_of(*drawn), body, "part header sections around the published limits")
