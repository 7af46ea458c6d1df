"""A part's target URI: resolved against the batch request's own, checked in every batch.

Theory of operation: MB-PART-5 resolves a Content-Id "against the batch request's target URI
(RFC 9110 §7.1) by the algorithm of RFC 3986 §5.2", and MB-PART-13 gives every sub-request "the
batch request's authority". Both name the batch request itself: its path, query and authority,
nothing remembered from another request and nothing a field of the batch request claims.

- `references-against-batch-uri`: the reference forms whose result depends on the batch
  request's path (RFC 3986 §5.2.2): a query alone (`?x`, `?`), the empty reference, the
  endpoint's last segment with and without `./` and a query, and `..` up to it. Each resolves to
  the batch endpoint, so each is a nested batch, answered 400 (MB-SUB-4); a receiver that
  resolves them against another path routes them elsewhere. `.`, `./` and `..` resolve to the
  endpoint's directory, and get what the same request alone gets there.
- `forwarding-fields-keep-authority`: a batch request carrying the fields a reverse proxy adds
  (`X-Forwarded-Host`, `Forwarded: host=`, `X-Forwarded-Proto` with `X-Forwarded-Port`,
  `X-Original-Host`, `X-Host`, `X-Forwarded-Server`, `X-Forwarded-Prefix`, `X-Original-URL`)
  still gives each part the batch request's authority and target: the echo shows what the same
  request alone shows, for a relative target and for an absolute one on the batch's origin.
- `part-forwarding-fields-keep-authority`: a part carrying such fields of its own (each set of
  the list above, `X-HTTP-Host-Override`, `X-Forwarded-Scheme` and `X-Rewrite-URL` besides) may
  be refused with 400 (spec 3.2.2, after MB-SUB-2); when it runs, the echo shows the batch
  request's authority and the part's own target, as for the part without them, and the fields
  themselves, each as the echo received it in the same request alone (MB-PART-8: refusing the
  part or handing the field on are the two answers spec 3.2.2 allows, dropping it neither).
- `targets-checked-in-every-batch`: the same absolute target is the batch's own origin in a
  batch addressed to that host and foreign in one addressed to the same machine by another name
  (MB-SUB-2: "a host name is not compared with the address it resolves to"), so the second
  batch is refused whatever the first one did: a receiver that remembers a validated target
  runs it.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

BOUNDARY = "mb-target-resolution-7c41"
#: Loopback addresses and the host name of the same machine, and back.
HOST_ALIASES = {"127.0.0.1": "localhost", "localhost": "127.0.0.1"}


def _nested_references(batch_path: str) -> list[str]:
    """References that RFC 3986 §5.2 resolves against `batch_path` to the batch endpoint."""
    last = batch_path.rsplit("/", 1)[1]
    refs = ["?mb-page=2", "?", ""]
    if last:
        refs += [last, f"./{last}", f"{last}?mb-page=2", f"./{last}?"]
        if batch_path.count("/") == 1:
            # At the root, `..` removes nothing (RFC 3986 §5.2.4).
            refs.append(f"../{last}")
    return refs


def _refuse_nested(ctx: Context, judge: Judge, ref: str) -> None:
    resolved = urljoin(ctx.batch_path, ref) if ref else ctx.batch_path
    body = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ref}>\r\n\r\n\r\n--{BOUNDARY}--\r\n"
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body.encode()))
    what = f"<{ref}> (resolves to {resolved})"
    # MB-SUB-4: "answer 400 to a batch request in which any part's target is a batch endpoint
    # ... whatever its query".
    judge.expect(f"{what}: top-level status", resp.status, {400}, "MB-SUB-4")
    # MB-PART-5: "resolve the reference inside `Content-Id` against the batch request's target
    # URI ... by the algorithm of RFC 3986 §5.2": resolved against another path, the reference
    # is no batch endpoint and its part runs.
    judge.expect(
        f"{what}: resolved against the batch request's target URI, a nested batch refused",
        resp.status,
        {400},
        "MB-PART-5",
    )


@checker(
    "references-against-batch-uri",
    ("MB-PART-5", "MB-SUB-4", "MB-SUB-1"),
    "A query-only, empty, last-segment, ./ and .. reference resolves against the batch request's path: those naming the endpoint are refused as nested batches, and ., ./ and .. get what the same request alone gets.",
    state=State.READ_ONLY,
)
def references_against_batch_uri(ctx: Context, judge: Judge) -> None:
    for ref in _nested_references(ctx.batch_path):
        _refuse_nested(ctx, judge, ref)
    dirs = [r for r in (".", "./", "..", "../") if urljoin(ctx.batch_path, r) != ctx.batch_path]
    subs = [SubRequest("GET", r) for r in dirs]
    alone = [ctx.alone(judge, SubRequest("GET", urljoin(ctx.batch_path, r))) for r in dirs]
    if any(urlsplit(urljoin(ctx.batch_path, r)).path == ctx.batch_path for r in dirs):
        return
    resp = ctx.batch(judge, subs)
    if resp.status != 200:
        # The directory may itself be a batch endpoint, or a path a server refuses in a part.
        judge.note(f"a batch of {', '.join(dirs)} was answered {resp.status}")
        return
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-5")
    for i, (ref, single) in enumerate(zip(dirs, alone, strict=True)):
        # MB-PART-5 with MB-SUB-1: the part's target is the resolved one, so it gets what a
        # request for that target alone gets.
        judge.expect(
            f"<{ref}> (resolves to {urljoin(ctx.batch_path, ref)}) status as alone",
            part_status(env, i),
            {single.status},
            "MB-PART-5",
        )


#: Sets of fields a reverse proxy adds to a request, each naming another authority, scheme,
#: port or path than the batch request's own.
FORWARDING = (
    (("X-Forwarded-Host", "mb-front.example"),),
    (("Forwarded", 'host=mb-front.example;proto=https;for="192.0.2.60"'),),
    (("X-Forwarded-Proto", "https"), ("X-Forwarded-Port", "8443")),
    (("X-Original-Host", "mb-front.example"), ("X-Host", "mb-front.example")),
    (("X-Forwarded-Server", "mb-front.example"), ("X-Forwarded-Host", "mb-front.example:8443")),
    (("X-Forwarded-Prefix", "/mb-prefix"), ("X-Original-URL", "/mb-elsewhere?x=1")),
)


@checker(
    "forwarding-fields-keep-authority",
    ("MB-PART-13", "MB-PART-5"),
    "A batch request carrying X-Forwarded-Host, Forwarded, X-Forwarded-Proto and -Port, X-Original-Host, X-Host, X-Forwarded-Prefix or X-Original-URL gives each part the batch request's authority and target, as the echo shows for the same request alone.",
    state=State.READ_ONLY,
)
def forwarding_fields_keep_authority(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("GET", f"{echo}?mb-forwarded=relative"),
        SubRequest("GET", f"{ctx.scheme}://{ctx.authority}{echo}?mb-forwarded=absolute"),
    ]
    plain = SubRequest("GET", f"{echo}?mb-forwarded=relative")
    single = read_echo(ctx.alone(judge, plain).body)
    if single is None or not single.authority:
        judge.not_applicable("the echo does not say which authority a request was addressed to")
    for fields in FORWARDING:
        shown = ", ".join(f"{n}: {v}" for n, v in fields)
        # A server behind a proxy it trusts may take the scheme from X-Forwarded-Proto as the
        # batch request's own (the ASGI servers do for loopback peers); an absolute `http`
        # target would then name another origin, so such a set goes with the relative one.
        parts = subs[:1] if any(n == "X-Forwarded-Proto" for n, _ in fields) else subs
        resp = ctx.batch(judge, parts, headers=fields)
        # MB-SUB-2: the absolute target names the batch request's own origin, whatever a
        # forwarding field says of another host.
        judge.require(f"[{shown}] top-level status", resp.status, {200}, "MB-SUB-2")
        env = expect_processed(ctx, judge, resp, [s.content_id for s in parts], (), "MB-PART-13")
        for i, sub in enumerate(parts):
            seen = read_echo(env.parts[i].body)
            label = f"[{shown}] part {i} ({sub.target})"
            if seen is None:
                judge.expect_true(label, False, "no echo description", "the echo's", "MB-TEST-2")
                continue
            # MB-PART-13: "give each sub-request the batch request's authority".
            judge.expect(
                f"{label} authority",
                (seen.authority or "").lower(),
                {single.authority.lower()},
                "MB-PART-13",
            )
            # MB-PART-5: the target is the reference resolved against the batch request's
            # target URI, not a path a forwarding field names.
            path = urlsplit(sub.target)
            judge.expect(f"{label} target", seen.target, {f"{path.path}?{path.query}"}, "MB-PART-5")


#: Sets of fields a part may carry that frameworks read as the request's authority or target
#: (spec 3.2.2, after MB-SUB-2): the batch-level sets and the rest the spec lists.
PART_FORWARDING = (
    *FORWARDING,
    (("X-HTTP-Host-Override", "mb-front.example"), ("X-Forwarded-Scheme", "https")),
    (("X-Rewrite-URL", "/mb-elsewhere?x=2"),),
)


@checker(
    "part-forwarding-fields-keep-authority",
    ("MB-PART-13", "MB-PART-5", "MB-PART-8"),
    "A part carrying Forwarded with host=, X-Forwarded-Host, X-Forwarded-Proto and -Port, X-Original-Host, X-Host, X-Forwarded-Server, X-Forwarded-Prefix, X-Original-URL, X-HTTP-Host-Override, X-Forwarded-Scheme or X-Rewrite-URL of its own is refused with 400 or runs with the batch request's authority and its own target, and reaches the echo with those fields as the same request alone does.",
    state=State.READ_ONLY,
)
def part_forwarding_fields_keep_authority(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    plain = SubRequest("GET", f"{echo}?mb-part-forwarded=0")
    single = read_echo(ctx.alone(judge, plain).body)
    if single is None or not single.authority:
        judge.not_applicable("the echo does not say which authority a request was addressed to")
    judged = 0
    for n, fields in enumerate(PART_FORWARDING, start=1):
        shown = ", ".join(f"{name}: {value}" for name, value in fields)
        sub = SubRequest("GET", f"{echo}?mb-part-forwarded={n}", fields)
        resp = ctx.batch(judge, [sub])
        # Spec 3.2.2: "A server or batching proxy may refuse such a part with 400 under this
        # requirement ... a server that hands it on is not at fault either".
        if resp.status == 400:
            judge.note(f"a part carrying [{shown}] was refused with 400")
            continue
        env = expect_processed(ctx, judge, resp, [sub.content_id], (), "MB-PART-13")
        if part_status(env, 0) == 400:
            judge.note(f"a part carrying [{shown}] was answered 400 in its part")
            continue
        judge.require(f"[{shown}] part 0 status", part_status(env, 0), {200}, "MB-PART-13")
        seen = read_echo(env.parts[0].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        # MB-PART-13: "give each sub-request the batch request's authority", whatever a field
        # of the part names.
        judge.expect(
            f"[{shown}] authority",
            (seen.authority or "").lower(),
            {single.authority.lower()},
            "MB-PART-13",
        )
        # MB-PART-5: the part's target is its Content-Id resolved, not a path a field names.
        judge.expect(f"[{shown}] target", seen.target, {sub.target}, "MB-PART-5")
        alone = ctx.alone(judge, sub)
        reached = read_echo(alone.body) if alone.status == 200 else None
        for name, _ in fields:
            if reached is not None and reached.get_all(name):
                # MB-PART-8: "The part's other header fields are the sub-request's header
                # fields"; spec 3.2.2 lets a server refuse such a part, or hand the field on.
                judge.expect(
                    f"[{shown}] {name} received, as alone",
                    tuple(seen.get_all(name)),
                    {tuple(reached.get_all(name))},
                    "MB-PART-8",
                )
        judged += 1
    if not judged:
        # Spec 3.2.2 lets a server refuse every such part; then nothing here is judged.
        judge.not_applicable("every part carrying a forwarding field was refused with 400")


def _batch_at(ctx: Context, judge: Judge, authority: str, target: str) -> int:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    body = compose_batch([SubRequest("GET", target)], BOUNDARY)
    req = ctx.raw_request("POST", ctx.batch_path, head, body, authority=authority)
    return ctx.send(judge, req).status


@checker(
    "targets-checked-in-every-batch",
    ("MB-SUB-2",),
    "An absolute target on the batch's origin, accepted in a batch addressed to that host, is refused in a later batch addressed to the same machine by another name, and the other way round.",
    state=State.READ_ONLY,
)
def targets_checked_in_every_batch(ctx: Context, judge: Judge) -> None:
    alias = HOST_ALIASES.get(ctx.host.lower())
    if alias is None:
        judge.not_applicable(f"the host {ctx.host} has no other name on this machine to use")
    port = "" if ctx.port == DEFAULT_PORTS[ctx.scheme] else f":{ctx.port}"
    own, other = f"{ctx.host}{port}", f"{alias}{port}"
    ok = ctx.path(ctx.resource(judge, "ok"))
    probe = _batch_at(ctx, judge, other, ok)
    if probe != 200:
        judge.not_applicable(f"a batch addressed to {other} was answered {probe}")
    for first, second in ((own, other), (other, own)):
        target = f"{ctx.scheme}://{first}{ok}"
        # MB-SUB-2: the target's authority is the batch request's own in the first batch and
        # "another host" in the second, since "a host name is not compared with the address it
        # resolves to"; each batch is judged by its own authority.
        judge.expect(
            f"<{target}> in a batch to {first}",
            _batch_at(ctx, judge, first, target),
            {200},
            "MB-SUB-2",
        )
        judge.expect(
            f"<{target}> in a later batch to {second}",
            _batch_at(ctx, judge, second, target),
            {400},
            "MB-SUB-2",
        )
