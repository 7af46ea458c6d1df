"""Batches and the echo addressed in absolute-form, answered as in origin-form (spec 3.2.2,
8.3, 8.4, 14.4).

Theory of operation: RFC 9112 §3.2.2 says a server "MUST accept the absolute-form in
requests", and that an origin server receiving it "MUST ignore the received Host header field
(if any) and instead use the host information of the request-target"; RFC 9110 §7.1 makes the
absolute-form request-target the target URI itself. Everything mixbatch derives from the
batch request's target URI therefore comes out the same for a batch sent as
`POST http://host:port/batch` as for `POST /batch` with `Host: host:port`: the base part
references resolve against (MB-PART-5), the origin part targets must share (MB-SUB-2), the
endpoint a part must not name (MB-SUB-4), and the authority every part is given (MB-PART-13).
A server that takes the request-target string as the target's path resolves `<batch>` against
`http://host:port/batch` and runs it as an ordinary part; one that takes the Host field line for
the authority reports, or compares against, an authority the request was not addressed to.

`batch-absolute-form-as-origin-form` sends the same batches in origin-form and in absolute-form
(the absolute URI built from the target's base_url): parts naming the echo by every reference
form (a relative path, `./`, `../`, a query, a path, an absolute URI of the same origin), and
one-part batches naming the batch endpoint in each of those forms and as `<>`, first with the
Host field agreeing with the absolute-form's authority, then with a Host naming another
authority, and then with the absolute-form's scheme written in upper case (the same URI, RFC
3986 §3.1). Whatever the spec leaves open (which status an echo part gets, what a dot segment
climbing above the root resolves to) is learnt from the origin-form sending; what it fixes is
judged as such: a part naming the endpoint refuses the batch with 400 (MB-SUB-4) in every
form, and under a Host naming another authority, an absolute part target naming that authority
is another origin (MB-SUB-2) while one naming the absolute-form's authority is the batch's own.

`test-resource-echo-absolute-form-authority` sends the echo a GET in absolute-form with a Host
naming another authority, and a batch in the same form whose parts name the echo by a path and
by an absolute URI of the absolute-form's origin: each echo reports the absolute-form's
authority (MB-TEST-2: "`authority`, the authority the request was addressed to (for a
sub-request, the batch request's)"), which is what the echo reports for the origin-form GET
whose Host is that authority (a gateway that gives each request it forwards its origin's
authority reports that one either way).

Both are learnt from the server first. A server that does not answer a plain GET in
absolute-form as in origin-form makes them not applicable (`test-resource-echo-absolute-form`
judges that). Nor is anything sent under the other Host to a server that does not answer a
plain GET alone in absolute-form with `Host: other.example` as in origin-form (the same status,
and for the echo the same target): a server or a front end that refuses the mismatched Host
breaks RFC 9112 §3.2.2, not MB-TEST-2, MB-PART-5 or MB-SUB-2; that is noted, the other-Host
batches of `batch-absolute-form-as-origin-form` are left out, and
`test-resource-echo-absolute-form-authority` is not applicable. An ASGI or WSGI server hands its application the request's path and its Host
field, the absolute-form's authority dropped: when the echo alone and the echo in a part both
report the Host field's authority, the whole server reads the request that way, no resource of
the application can read it otherwise, and the checks judge nothing under that Host. A server
whose resources disagree (the echo reports the Host field, the batch endpoint the absolute-form,
or the other way round) is judged. Both write nothing, and both are direct-only: an intermediary
rewrites the request-target into origin-form, with its Host, before the origin sees it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.absolute_form import NO_ABSOLUTE_FORM_IN_H2, absolute_uri
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import Echo, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-absolute-form-7c2e"
#: An authority no target serves: the Host an absolute-form request is sent with to show
#: whether the server reads the Host field or the request-target.
OTHER = "other.example"
DIRECT_ONLY = (
    "an intermediary rewrites the request-target into origin-form, with its own Host, before "
    "the origin sees it"
)


@dataclass(frozen=True)
class Answer:
    """What a batch answer is compared by: its status, and each part's status, outcome and
    echo (None when the part is not an echo description)."""

    status: int
    parts: tuple[tuple[int | None, str | None, Echo | None], ...] | None


#: A scheme and host to write an absolute-form request-target with, when not the target's own.
Spelling = tuple[str, str]


def _absolute(ctx: Context, path: str, spelling: Spelling | None = None) -> str:
    """`path` (origin-form) as an absolute URI on the target's base_url origin, its scheme and
    host written as `spelling` says (the same URI: RFC 3986 §3.1, §3.2.2 compare both without
    case)."""
    return absolute_uri(ctx, path, *(spelling or ()))


def _spellings(ctx: Context) -> list[Spelling]:
    """The target's scheme in upper case (its host as written: the authority an echo reports
    is then the one the origin-form sending reports)."""
    return [(ctx.scheme.upper(), ctx.host)]


def _send_batch(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    *,
    absolute: bool,
    host: str | None = None,
    spelling: Spelling | None = None,
) -> Response:
    """The batch `subs` to the endpoint in origin-form or absolute-form (its scheme and host
    written as `spelling` says), with Host `host` (the target's own authority when None)."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    target = _absolute(ctx, ctx.batch_path, spelling) if absolute else ctx.batch_path
    body = compose_batch(subs, BOUNDARY)
    return ctx.send(judge, ctx.raw_request("POST", target, head, body, authority=host))


def _answer(ctx: Context, judge: Judge, resp: Response) -> Answer:
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        return Answer(resp.status, None)
    env = ctx.read_batch(judge, resp)
    parts = tuple(
        (
            part_status(env, i),
            part.get("Batch-Outcome"),
            read_echo(part.body) if part_status(env, i) == 200 else None,
        )
        for i, part in enumerate(env.parts)
    )
    return Answer(resp.status, parts)


def _alone_echo(
    ctx: Context, judge: Judge, target: str, host: str | None = None
) -> tuple[int, Echo | None]:
    resp = ctx.send(judge, ctx.raw_request("GET", target, authority=host))
    return resp.status, read_echo(resp.body) if resp.status == 200 else None


def _absolute_form_taken(
    ctx: Context, judge: Judge, path: str, spelling: Spelling | None = None
) -> tuple[bool, str]:
    """Whether a plain GET of `path` in absolute-form, Host agreeing, is answered as in
    origin-form: the same status, and for an echo the same target and authority; and the
    authority the echo reports for the origin-form GET (the target's own when it reports none).

    That authority is the one the absolute-form names, as this server reports it: a gateway
    that gives every request it forwards its origin's authority reports that one for both."""
    o_status, o_echo = _alone_echo(ctx, judge, path)
    a_status, a_echo = _alone_echo(ctx, judge, _absolute(ctx, path, spelling))
    same = o_status == a_status and (
        o_echo is None
        or (
            a_echo is not None
            and (a_echo.target, a_echo.authority) == (o_echo.target, o_echo.authority)
        )
    )
    if not same:
        judge.note(
            f"GET {path}: {o_status} {o_echo and o_echo.target!r} in origin-form, "
            f"{a_status} {a_echo and a_echo.target!r} in absolute-form "
            f"{_absolute(ctx, path, spelling)}"
        )
    return same, (o_echo.authority if o_echo and o_echo.authority else ctx.authority)


def _other_host_taken(ctx: Context, judge: Judge, path: str) -> bool:
    """Whether a plain GET of `path` alone in absolute-form under `Host: other.example` is
    answered as the origin-form GET is: the same status, and for an echo the same target (the
    authority it reports is what test-resource-echo-absolute-form-authority judges).

    RFC 9112 §3.2.2 makes an origin server ignore the Host field of an absolute-form request; a
    server or a stack in front of it that refuses the mismatched Host breaks that rule, not one
    of mixbatch's, so the batches under that Host are not sent to it."""
    o_status, o_echo = _alone_echo(ctx, judge, path)
    a_status, a_echo = _alone_echo(ctx, judge, _absolute(ctx, path), OTHER)
    same = o_status == a_status and (
        o_echo is None or (a_echo is not None and a_echo.target == o_echo.target)
    )
    if not same:
        judge.note(
            f"GET {path} in absolute-form, Host: {OTHER}: {a_status} "
            f"{a_echo and a_echo.target!r}, not as in origin-form ({o_status} "
            f"{o_echo and o_echo.target!r}; RFC 9112 §3.2.2 has the Host field ignored): "
            f"nothing sent under Host: {OTHER}"
        )
    return same


def _host_field_read(
    ctx: Context, judge: Judge, echo: str
) -> tuple[Echo | None, Echo | None, bool]:
    """The echo of a GET in absolute-form under `Host: other.example`, alone and as a
    path-absolute part of a batch sent the same way, and whether both report the Host
    field's authority (the whole server reads the Host, not the request-target)."""
    _, alone = _alone_echo(ctx, judge, _absolute(ctx, f"{echo}?mb-af=alone-other-host"), OTHER)
    sub = SubRequest("GET", f"{echo}?mb-af=part-other-host")
    answer = _answer(ctx, judge, _send_batch(ctx, judge, [sub], absolute=True, host=OTHER))
    part = answer.parts[0][2] if answer.parts and len(answer.parts) == 1 else None
    host_read = (
        alone is not None
        and part is not None
        and alone.authority == OTHER
        and part.authority == OTHER
    )
    if host_read:
        judge.note(
            f"under Host: {OTHER}, the echo alone and in a part both report {OTHER}: the "
            "server hands every resource the Host field's authority for an absolute-form request"
        )
    return alone, part, host_read


def _dot_dot(ctx: Context, path: str) -> str:
    """A `../` reference from the batch endpoint's directory to `path` (from the root, the
    `..` climbs above it, which RFC 3986 §5.2.4 drops)."""
    depth = len([s for s in posixpath.dirname(ctx.batch_path).split("/") if s])
    return "../" * max(depth, 1) + path.lstrip("/")


def _endpoint_refs(ctx: Context) -> list[str]:
    """The batch endpoint in every reference form (spec 8.4: "after resolution ... a target
    is the batch endpoint whenever its path equals the endpoint's path ..., whatever its
    query")."""
    path = ctx.batch_path
    last = posixpath.basename(path)
    refs = [last, f"./{last}", f"x/../{last}", _dot_dot(ctx, path), f"{last}?q=1", ""]
    refs += [path, f"{path}?q=1", _absolute(ctx, path)]
    refs.append(_absolute(ctx, f"{posixpath.dirname(path).rstrip('/')}/x/../{last}"))
    return refs


def _echo_refs(ctx: Context, echo: str) -> list[str]:
    """The echo in every reference form, each with a query telling them apart."""
    rel = ctx.ref(echo, "relative")
    return [
        f"{rel}?mb-af=relative",
        f"./{rel}?mb-af=dot",
        f"{_dot_dot(ctx, echo)}?mb-af=dot-dot",
        f"x/../{rel}?mb-af=dot-segment",
        f"{echo}?mb-af=path",
        f"{_absolute(ctx, echo)}?mb-af=absolute-uri",
    ]


def _compare(
    judge: Judge,
    label: str,
    subs: list[SubRequest],
    got: Answer,
    want: Answer,
    host: str,
    status_requirement: str = "MB-PART-5",
) -> None:
    """`got` (absolute-form) answered as `want` (origin-form, Host the target's own); the
    batch's status judged under `status_requirement`."""
    # MB-PART-5: "resolve the reference inside Content-Id against the batch request's target
    # URI (RFC 9110 §7.1)", which for the absolute-form is the request-target itself; MB-SUB-2
    # for a batch of absolute targets on that URI's origin.
    if not judge.expect(f"{label}: batch status", got.status, {want.status}, status_requirement):
        return
    if got.parts is None or want.parts is None:
        return
    judge.require(f"{label}: part count", len(got.parts), {len(want.parts)}, "MB-RESP-1")
    for sub, (g_status, g_outcome, g_echo), (w_status, w_outcome, w_echo) in zip(
        subs, got.parts, want.parts, strict=True
    ):
        what = f"{label}: part <{sub.target}>"
        # MB-SUB-2 for an absolute part target: its authority is the batch request's own
        # whatever the Host field says; MB-PART-5 for the others.
        requirement = "MB-SUB-2" if "://" in sub.target else "MB-PART-5"
        judge.expect(f"{what} status", g_status, {w_status}, requirement)
        judge.expect(f"{what} outcome", g_outcome, {w_outcome}, requirement)
        if w_echo is None:
            continue
        if not judge.expect_true(
            f"{what} echo",
            g_echo is not None,
            "no echo description" if g_echo is None else "an echo description",
            "the echo description the origin-form batch's part got",
            requirement,
        ):
            continue
        assert g_echo is not None
        # MB-PART-5: "MUST use the result as the sub-request's target URI".
        judge.expect(f"{what} target", g_echo.target, {w_echo.target}, "MB-PART-5")
        if w_echo.authority is not None:
            # MB-PART-13: "give each sub-request the batch request's authority", which the
            # absolute-form names whatever the Host field says (RFC 9112 §3.2.2).
            judge.expect(
                f"{what} authority (Host: {host})",
                g_echo.authority,
                {w_echo.authority},
                "MB-PART-13",
            )


@checker(
    "batch-absolute-form-as-origin-form",
    ("MB-PART-5", "MB-SUB-4", "MB-SUB-2", "MB-PART-13"),
    "The same batches sent in origin-form and in absolute-form, with the Host agreeing, with a Host naming another authority and with the scheme in upper case, are answered alike: parts naming the echo by a relative path, ./, ../, a query, a path or an absolute URI of the absolute-form's origin get the same status, outcome, target and authority; a part naming the batch endpoint in any of those forms or as <> refuses the batch with 400; an absolute target naming the Host's other authority is another origin.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=DIRECT_ONLY,
)
def batch_absolute_form_as_origin_form(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable(NO_ABSOLUTE_FORM_IN_H2)
    echo_role = ctx.target.resource("echo")
    echo = ctx.path(echo_role) if echo_role else None
    ok_role = ctx.target.resource("ok")
    probe = echo or (ctx.path(ok_role) if ok_role else None)
    if probe is None:
        judge.not_applicable("the target declares neither an echo nor an ok resource")
    if not _absolute_form_taken(ctx, judge, probe)[0]:
        judge.not_applicable("the server does not answer a GET in absolute-form as in origin-form")
    hosts = [ctx.authority]
    if echo is None:
        judge.note(f"no echo to learn which authority a Host: {OTHER} batch gets: not sent")
    elif _other_host_taken(ctx, judge, probe) and not _host_field_read(ctx, judge, echo)[2]:
        hosts.append(OTHER)

    for ref in _endpoint_refs(ctx):
        subs = [SubRequest("GET", ref)]
        nested = _send_batch(ctx, judge, subs, absolute=False)
        # MB-SUB-4: "A server MUST answer 400 to a batch request in which any part's target is
        # a batch endpoint, so that batches do not nest"; spec 8.4: "`<>` resolves to the
        # batch endpoint itself".
        judge.expect(f"<{ref}> in origin-form: batch status", nested.status, {400}, "MB-SUB-4")
        for host in hosts:
            sent = _send_batch(ctx, judge, subs, absolute=True, host=host)
            judge.expect(
                f"<{ref}> in absolute-form, Host: {host}: batch status",
                sent.status,
                {400},
                "MB-SUB-4",
            )

    if echo is None:
        return
    subs = [SubRequest("GET", ref) for ref in _echo_refs(ctx, echo)]
    want = _answer(ctx, judge, _send_batch(ctx, judge, subs, absolute=False))
    for host in hosts:
        got = _answer(ctx, judge, _send_batch(ctx, judge, subs, absolute=True, host=host))
        _compare(judge, f"absolute-form, Host: {host}", subs, got, want, host)
    for spelling in _spellings(ctx):
        # The batch's target URI written with its scheme in upper case is the same URI (RFC
        # 3986 §3.1: "schemes are case-insensitive"), so its parts resolve and compare as under the
        # lower-case one; a server that does not take the spelling for a GET alone is left
        # to RFC 9112 §3.2.2 ("MUST accept the absolute-form").
        if not _absolute_form_taken(ctx, judge, probe, spelling)[0]:
            continue
        label = f"absolute-form {_absolute(ctx, ctx.batch_path, spelling)}"
        for ref in _endpoint_refs(ctx):
            sent = _send_batch(
                ctx, judge, [SubRequest("GET", ref)], absolute=True, spelling=spelling
            )
            judge.expect(f"<{ref}> in {label}: batch status", sent.status, {400}, "MB-SUB-4")
        got = _answer(ctx, judge, _send_batch(ctx, judge, subs, absolute=True, spelling=spelling))
        # A refusal of the whole batch is blamed on MB-SUB-2: every part's resolved target
        # has the batch's own origin, whose scheme is the same in either case.
        _compare(judge, label, subs, got, want, ctx.authority, "MB-SUB-2")
    if OTHER in hosts:
        foreign = [SubRequest("GET", f"{ctx.scheme}://{OTHER}{echo}?mb-af=other-host")]
        resp = _send_batch(ctx, judge, foreign, absolute=True, host=OTHER)
        # MB-SUB-2: "answer 400 to a batch request in which any part's target, after
        # resolution, has a scheme or authority other than the batch request's own": the
        # absolute-form names the batch's authority, the Host field does not.
        judge.expect(
            f"<{foreign[0].target}> in absolute-form, Host: {OTHER}: batch status",
            resp.status,
            {400},
            "MB-SUB-2",
        )


@checker(
    "test-resource-echo-absolute-form-authority",
    ("MB-TEST-2", "MB-SUB-2"),
    "The echo sent a GET in absolute-form with a Host naming another authority reports the absolute-form's authority, and so does each part of a batch sent the same way that names the echo by a path or by an absolute URI of that origin.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=DIRECT_ONLY,
)
def echo_absolute_form_authority(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable(NO_ABSOLUTE_FORM_IN_H2)
    echo = ctx.path(ctx.resource(judge, "echo"))
    taken, addressed = _absolute_form_taken(ctx, judge, echo)
    if not taken:
        judge.not_applicable("the server does not answer a GET in absolute-form as in origin-form")
    if not _other_host_taken(ctx, judge, echo):
        judge.not_applicable(
            f"the server does not answer a GET in absolute-form under Host: {OTHER} as in "
            "origin-form (RFC 9112 §3.2.2, not mixbatch, is what that breaks)"
        )
    alone, part, host_read = _host_field_read(ctx, judge, echo)
    if host_read:
        judge.not_applicable(
            "the server hands the echo and the batch endpoint alike the Host field's authority "
            "for an absolute-form request: no resource reads the request-target's"
        )
    # MB-TEST-2: "`authority`, the authority the request was addressed to (for a sub-request,
    # the batch request's)"; RFC 9112 §3.2.2: the server "MUST ignore the received Host header
    # field (if any) and instead use the host information of the request-target". Whatever the
    # Host field says, that is what the echo reports for the origin-form GET with the
    # absolute-form's authority as Host.
    judge.expect(
        f"GET in absolute-form, Host: {OTHER}: echo authority",
        alone.authority if alone else None,
        {addressed},
        "MB-TEST-2",
    )
    if alone is not None:
        # MB-TEST-2: "`target`, the origin-form request target (path and query) as received".
        judge.expect(
            f"GET in absolute-form, Host: {OTHER}: echo target",
            alone.target,
            {f"{echo}?mb-af=alone-other-host"},
            "MB-TEST-2",
        )
    judge.expect(
        f"part </{echo.lstrip('/')}> of a batch in absolute-form, Host: {OTHER}: echo authority",
        part.authority if part else None,
        {addressed},
        "MB-TEST-2",
    )
    target = f"{_absolute(ctx, echo)}?mb-af=absolute-part"
    resp = _send_batch(ctx, judge, [SubRequest("GET", target)], absolute=True, host=OTHER)
    # MB-SUB-2: the absolute target's authority is the batch request's own, the absolute-form's.
    if not judge.expect(f"<{target}>, Host: {OTHER}: batch status", resp.status, {200}, "MB-SUB-2"):
        return
    answer = _answer(ctx, judge, resp)
    seen = answer.parts[0][2] if answer.parts and len(answer.parts) == 1 else None
    judge.expect(
        f"part <{target}>, Host: {OTHER}: echo authority",
        seen.authority if seen else None,
        {addressed},
        "MB-TEST-2",
    )
