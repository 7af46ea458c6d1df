"""Targets that only look like what a refusal rule names run as ordinary sub-requests
(spec 8.3, MB-SUB-8, 3.2.2, MB-PART-4).

Theory of operation: two refusal rules are keyed on a part's target. MB-SUB-8 refuses a batch
"in which any part's `Content-Id` value is `<*>`": the field value, not the path it resolves to.
MB-SUB-2 refuses a target that "after resolution, has a scheme or authority other than the
batch request's own ..., is a network-path reference (`//host/...`), or has a fragment": the
parsed reference, in which a percent-encoded `/`, `#` or `@` is data, not a delimiter (RFC 3986
§2.2: "URIs that differ in the replacement of a reserved character with its corresponding
percent-encoded octet are not equivalent"). MB-PART-4 adds that a batch is refused "for what
such a target names ... never for how a valid reference is written". A server that applies a
rule to the resolved or percent-decoded path, to a prefix of the value or to a substring
anywhere in it refuses batches whose parts name ordinary resources.

- `asterisk-lookalikes-run`: GET and OPTIONS parts for `</*>`, `<./*>`, `</%2A>`, `<%2A>`,
  `<*/>`, `<**>`, `<*?mb-suite=1>` and the absolute URI of `/*` on the batch's origin.
- `origin-lookalikes-run`: GET parts for paths that decode to a network-path reference or a
  fragment (`</%2F%2Fmb-other.example/x>`, `<%2F%2Fmb-other.example/x>`, `</mb-suite%23top>`),
  that hold an absolute URI, a host and port or an `@` as path segments, and a query holding
  an absolute URI.

- `scheme-lookalikes-run`: GET parts for relative references with a colon where RFC 3986 §3
  reads no scheme: in the query or a later segment of a one-segment relative path
  (`<mb-suite?at=10:30>`, `<mb-suite?:>`, `<mb-suite/x:y>`), after `./` (`<./mb-suite:x>`),
  percent-encoded in the first segment (`<mb-suite%3Ax>`) and in a path-absolute reference
  (`</mb-suite:x>`). A reader that takes the text before the first colon for a scheme when no
  `/` comes before it refuses them (MB-PART-4: "whatever characters of that grammar it holds").

None of these rules names these targets, so each batch is answered 200. What each part gets is not
fixed by the spec (a router may answer 404, 405 or 301): it is learnt from the same server,
each request sent alone to its resolved target, and the part must get the same answer (spec
3.2.4, MB-SUB-1). Each target goes in a batch of its own, so a refusal names the one refused.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: A host name no test server is: the other origin a decoding reader sees in a path.
OTHER_HOST = "mb-other.example"


def asterisk_lookalikes(ctx: Context) -> list[str]:
    """References that resolve or decode to the path `/*`, or begin with `*`, and are not the
    Content-Id value `<*>`."""
    return [
        "/*",
        "./*",
        "/%2A",
        "%2A",
        "*/",
        "**",
        "*?mb-suite=1",
        f"{ctx.scheme}://{ctx.authority}/*",
    ]


def origin_lookalikes(ctx: Context) -> list[str]:
    """References on the batch's origin, without a fragment, whose octets decoded or read as a
    substring look like another authority, a network-path reference or a fragment."""
    return [
        f"/%2F%2F{OTHER_HOST}/x",
        f"%2F%2F{OTHER_HOST}/x",
        f"{ctx.scheme}://{ctx.authority}/%2F%2F{OTHER_HOST}/x",
        "/mb-suite%23top",
        f"/http://{OTHER_HOST}/x",
        f"./{OTHER_HOST}:8443/x",
        f"/mb-suite/user@{OTHER_HOST}/x",
        f"/mb-suite?next=http://{OTHER_HOST}/x",
    ]


def _resolved(ctx: Context, ref: str) -> str:
    """`ref` resolved against the batch request's target URI (MB-PART-5: "by the algorithm of
    RFC 3986 §5.2"), as an origin-form path and query."""
    parts = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{ctx.batch_path}", ref))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _run_as_alone(
    ctx: Context, judge: Judge, refs: list[str], methods: tuple[str, ...], rule: str, what: str
) -> None:
    for ref in refs:
        target = _resolved(ctx, ref)
        subs = [SubRequest(m, ref) for m in methods]
        # Spec 3.2.4: "the standalone request to the batch request's origin with the part's
        # method, the part's resolved target".
        alone = [ctx.alone(judge, SubRequest(m, target)) for m in methods]
        resp = ctx.batch(judge, subs)
        doc = problem_of(resp) if resp.status != 200 else None
        named = None if doc is None else doc.get("requirement")
        judge.note(f"<{ref}> resolves to {target}; the batch was answered {resp.status} {named}")
        # `what` quotes the rule: it names none of these targets, so the batch is not refused.
        if not judge.expect(f"<{ref}> ({what}): top-level status", resp.status, {200}, rule):
            continue
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), rule)
        for i, (sub, single) in enumerate(zip(subs, alone, strict=True)):
            # MB-SUB-1: "the same routing ... as the same request sent on its own": an
            # ordinary sub-request is answered as the same request alone.
            expect_same_as_alone(
                ctx,
                judge,
                f"part {i} ({sub.method} <{ref}>)",
                sub,
                (part_status(env, i), env.parts[i].fields, env.parts[i].body),
                (single.status, single.headers, single.body),
            )


@checker(
    "asterisk-lookalikes-run",
    ("MB-SUB-8", "MB-SUB-1"),
    "GET and OPTIONS parts whose Content-Id resolves or decodes to /* or begins with an asterisk but is not <*> (</*>, <./*>, </%2A>, <%2A>, <*/>, <**>, <*?query>, the absolute URI of /*) run, each answered as the same request alone.",
    state=State.READ_ONLY,
)
def asterisk_lookalikes_run(ctx: Context, judge: Judge) -> None:
    # MB-SUB-8: "answer 400 to a batch request in which any part's `Content-Id` value is
    # `<*>`": the value, not the path `/*` it resolves to; MB-PART-4: "never for how a valid
    # reference is written".
    _run_as_alone(
        ctx,
        judge,
        asterisk_lookalikes(ctx),
        ("GET", "OPTIONS"),
        "MB-SUB-8",
        "not the Content-Id value <*>",
    )


@checker(
    "origin-lookalikes-run",
    ("MB-SUB-2", "MB-SUB-1"),
    "GET parts on the batch's origin whose targets decode to a network-path reference or a fragment (%2F%2F, %23), or hold an absolute URI, a host and port or an @ as path segments or an absolute URI in the query, run, each answered as the same request alone.",
    state=State.READ_ONLY,
)
def origin_lookalikes_run(ctx: Context, judge: Judge) -> None:
    # MB-SUB-2: "answer 400 to a batch request in which any part's target, after resolution,
    # has a scheme or authority other than the batch request's own ..., is a network-path
    # reference (`//host/...`), or has a fragment": each of these resolves to a path on the
    # batch's origin, with no fragment; a percent-encoded delimiter is data (RFC 3986 §2.2).
    _run_as_alone(
        ctx,
        judge,
        origin_lookalikes(ctx),
        ("GET",),
        "MB-SUB-2",
        "the batch's origin, no network-path reference, no fragment",
    )


def scheme_lookalikes() -> list[str]:
    """Relative references with a colon where RFC 3986 §3 reads no scheme: the scheme ends at
    the first colon only when no `/`, `?` or `#` comes before it, and a relative path's first
    segment holds none (§4.2, `segment-nz-nc`)."""
    return [
        "mb-suite?at=10:30",
        "mb-suite?:",
        "mb-suite?a=b:c/d",
        "mb-suite/x:y",
        "./mb-suite:x",
        "mb-suite%3Ax",
        "/mb-suite:x",
    ]


@checker(
    "scheme-lookalikes-run",
    ("MB-PART-4", "MB-SUB-1"),
    "GET parts whose relative reference holds a colon where no scheme can be (in the query or a later segment of a one-segment path, after ./, percent-encoded, in a path-absolute reference) run, each answered as the same request alone.",
    state=State.READ_ONLY,
)
def scheme_lookalikes_run(ctx: Context, judge: Judge) -> None:
    # MB-PART-4: a server MUST "take a `Content-Id` that is such a value as the part's target
    # whatever characters of that grammar it holds: a batch is refused for what such a target
    # names ..., never for how a valid reference is written"; each of these is a
    # relative-ref of RFC 3986 §4.2, its colon in a query, a later segment or after "./".
    _run_as_alone(
        ctx,
        judge,
        scheme_lookalikes(),
        ("GET",),
        "MB-PART-4",
        "a valid relative reference, no scheme",
    )
