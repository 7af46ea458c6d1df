"""A part may not name another spelling of the batch endpoint that the server routes there
(spec 8.4).

Theory of operation: MB-SUB-4 refuses a part whose target "is a batch endpoint", and spec 8.4
defines that by routing: "A target is a batch endpoint when the server, given it as the target
of a standalone request, would route that request to one of its batch endpoints". Paths are
case-sensitive and `/batch/` is not `/batch`, so `</BATCH>` or `</batch/>` "names the batch
endpoint only on a server that routes it there, and such a server rejects it too". A server
whose router forgives a trailing slash, case, a path parameter or a doubled slash, but whose
nesting test compares the literal path, runs a nested batch. Which spellings a server routes
to its batch endpoint is learnt from the same server: each is sent a valid batch alone, and
only those answered as a batch are then named by a part, which must be refused. The same
spellings, and the endpoint's path with unreserved characters percent-encoded (RFC 3986
§6.2.2.2: the same path; `encoded_spellings` below), each answered as a batch alone, also receive a batch whose part names
the endpoint's own path: a nesting test that compares the part with the path the batch arrived
on, not with the endpoint it was routed to, runs the nested batch there.

The converse is judged too: spec 8.4 ends "A target that the server would route elsewhere, to a
404 or a redirect, is an ordinary sub-request". A nesting test that trims a trailing slash,
folds case, drops a path parameter or an extra segment, or decodes a reserved octet before
comparing refuses a batch whose part names a path the router sends elsewhere.
`nesting-unrouted-lookalikes-run` sends each lookalike of the endpoint's path (those above,
plus an extra segment, a suffix, a trailing dot, percent-encoded reserved octets, the
endpoint's inner slashes percent-encoded, the path less
its last character, the path under another segment and a query holding the path) a valid
batch alone; each not answered as a batch is then named by a GET part and by a POST part
carrying a batch as its content, which must run (MB-SUB-4) and be answered as the same requests
alone (MB-SUB-1), under continue and, when claimed, stop and atomic, and in every form the
target offers. A path that differs from the endpoint's only by percent-encoded unreserved
characters is the endpoint whatever the router does (spec 8.4), so none is sent here.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-nest-spelling-41f7"


def spellings(batch_path: str) -> list[str]:
    """Other paths a lenient router may take for `batch_path`: a trailing slash, upper case,
    a capital first letter, a path parameter and a doubled leading slash."""
    head, last = batch_path.rsplit("/", 1)
    out = [
        f"{batch_path}/",
        batch_path.upper(),
        f"{head}/{last[:1].upper()}{last[1:]}",
        f"{batch_path};mb=1",
        f"/{batch_path}",
    ]
    return [s for i, s in enumerate(out) if s != batch_path and s not in out[:i]]


def _expect_nested_refused(judge: Judge, label: str, resp: Response) -> None:
    """MB-SUB-4: "answer 400 to a batch request in which any part's target is a batch
    endpoint", the problem naming MB-SUB-4 (MB-STATUS-4)."""
    if not judge.expect(f"{label}: status", resp.status, {400}, "MB-SUB-4"):
        return
    doc = problem_of(resp)
    judge.expect(
        f"{label}: problem requirement",
        None if doc is None else doc.get("requirement"),
        {"MB-SUB-4"},
        "MB-STATUS-4",
    )


def _batch(ref: str) -> bytes:
    d = f"--{BOUNDARY}"
    return f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ref}>\r\n\r\n\r\n{d}--".encode()


@checker(
    "nesting-routed-spellings-refused",
    ("MB-SUB-4",),
    "A part whose target is another spelling of the batch endpoint's path (a trailing slash, upper case, a path parameter, a doubled slash) is refused with 400 naming MB-SUB-4 whenever the server answers a batch sent alone to that spelling as a batch, and so is a part naming the endpoint's own path in a batch sent to such a spelling or to the path with a letter percent-encoded.",
    state=State.READ_ONLY,
)
def nesting_routed_spellings(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    # MB-STATUS-1: the probe is a well-formed batch, so the batch endpoint itself answers it
    # "with 200 (OK)"; a spelling answered the same way is routed to a batch endpoint.
    own = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _batch(ok)))
    judge.require("the probe batch at the batch endpoint: status", own.status, {200}, "MB-STATUS-1")
    encoded = [path for _, path in encoded_spellings(ctx.batch_path)]
    for spelling in [*spellings(ctx.batch_path), *encoded]:
        alone = ctx.send(judge, ctx.raw_request("POST", spelling, head, _batch(ok)))
        routed = alone.status == 200 and alone.media_type == "multipart/mixed"
        judge.note(f"a batch sent alone to {spelling}: {alone.status} {alone.media_type}")
        if not routed:
            continue
        arrived = ctx.send(judge, ctx.raw_request("POST", spelling, head, _batch(ctx.batch_path)))
        # MB-SUB-4: the part's target is the batch endpoint whatever path its batch came on.
        _expect_nested_refused(
            judge, f"a batch sent to {spelling} with a part naming {ctx.batch_path}", arrived
        )
        if spelling in encoded:
            continue  # a part naming it: refused whatever the router does, judged elsewhere
        # A path that starts with `//` is written as an absolute URI: as a reference it would
        # be a network-path reference, refused under MB-SUB-2 for another reason.
        ref = f"{ctx.target.base_url}{spelling}" if spelling.startswith("//") else spelling
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _batch(ref)))
        # Spec 8.4: "`</BATCH>` or `</batch/>` names the batch endpoint only on a server that
        # routes it there, and such a server rejects it too".
        _expect_nested_refused(
            judge, f"a part naming {spelling}, which the server routes to a batch endpoint", resp
        )


def lookalikes(batch_path: str) -> list[str]:
    """Paths that look like `batch_path` and that a router may send elsewhere: the spellings
    above, an extra segment, a suffix, a trailing dot, percent-encoded reserved octets (a
    slash, a semicolon, a question mark) appended, the path's own inner slashes written
    `%2F` and `%2f` (RFC 3986 §2.2: an encoded reserved octet is data, not a delimiter, so
    `/api%2Fbatch` is one segment), the path less its last character, the path under a
    segment of its own, and another path whose query holds it."""
    inner = batch_path[1:] if batch_path.startswith("/") else batch_path
    out = [
        *spellings(batch_path),
        f"{batch_path}/mb-suite",
        f"{batch_path}x",
        f"{batch_path}.",
        f"{batch_path}%2F",
        f"{batch_path}%3Bmb=1",
        f"{batch_path}%3F",
        f"/{inner.replace('/', '%2F')}",
        f"/{inner.replace('/', '%2f')}",
        batch_path[:-1] if len(batch_path.rsplit("/", 1)[1]) > 1 else batch_path,
        f"/mb-suite{batch_path}",
        f"/mb-suite?next={batch_path}",
    ]
    return [s for i, s in enumerate(out) if s != batch_path and s not in out[:i]]


def _modes(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The error policies and modes the target implements, with the fields that ask for each."""
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [("continue", ())]
    if ctx.target.claims("error-policy"):
        out.append(("stop", (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        out.append(("atomic", (("Batch-Mode", "atomic"),)))
    return out


@checker(
    "nesting-unrouted-lookalikes-run",
    ("MB-SUB-4", "MB-SUB-1"),
    "A GET part, and a POST part carrying a batch, whose target looks like the batch endpoint (a trailing slash, another case, a path parameter, an extra segment, a suffix, an encoded reserved octet) but which the server does not answer as a batch when sent one alone, run as ordinary sub-requests answered as alone, under continue, stop and atomic, in every form.",
    state=State.READ_ONLY,
)
def nesting_unrouted_lookalikes_run(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    own = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _batch(ok)))
    judge.require("the probe batch at the batch endpoint: status", own.status, {200}, "MB-STATUS-1")
    unrouted: list[tuple[str, SubRequest, SubRequest]] = []
    alone = {}
    for spelling in lookalikes(ctx.batch_path):
        ref = f"{ctx.target.base_url}{spelling}" if spelling.startswith("//") else spelling
        post = SubRequest("POST", ref, tuple(head), _batch(ok))
        get = SubRequest("GET", ref)
        probe = ctx.alone(judge, post)
        judge.note(f"a batch sent alone to {spelling}: {probe.status} {probe.media_type}")
        if probe.status == 200 and probe.media_type == "multipart/mixed":
            continue  # the batch endpoint: nesting-routed-spellings-refused judges it
        single = ctx.alone(judge, get)
        alone[ref] = {"POST": (probe.status, probe.headers, probe.body)}
        alone[ref]["GET"] = (single.status, single.headers, single.body)
        unrouted.append((spelling, get, post))
    if not unrouted:
        judge.not_applicable("the server answers every lookalike of its endpoint as a batch")
    # Each lookalike alone in a batch of its own: a refusal names the one that was refused.
    for spelling, get, post in unrouted:
        resp = ctx.batch(judge, [get, post])
        # MB-SUB-4 (spec 8.4): "A target that the server would route elsewhere, to a 404 or a
        # redirect, is an ordinary sub-request": not a nested batch, so not refused.
        judge.expect(
            f"parts naming {spelling}, which the server does not route to a batch endpoint: status",
            resp.status,
            {200},
            "MB-SUB-4",
        )
    subs = [sub for _, get, post in unrouted for sub in (get, post)]
    for mode, fields in _modes(ctx)[1:]:
        resp = ctx.batch(judge, subs, headers=fields)
        if not judge.expect(
            f"{mode} batch naming them all: status", resp.status, {200}, "MB-SUB-4"
        ):
            continue
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-SUB-4")
        # Under stop and atomic the first part runs whatever follows; spec 3.2.4: it is
        # answered as the same request alone.
        first = subs[0]
        judge.expect(
            f"{mode} batch part 0 ({first.method} <{first.target}>) status",
            part_status(env, 0),
            {alone[first.target][first.method][0]},
            "MB-SUB-1",
        )
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, (sub, entry) in enumerate(zip(subs, entries, strict=True)):
            # Spec 3.2.4: an ordinary sub-request is answered as the same request alone.
            expect_same_as_alone(
                ctx,
                judge,
                f"{media} part {i} ({sub.method} <{sub.target}>)",
                sub,
                (entry.status, entry.fields, entry.body),
                alone[sub.target][sub.method],
            )


#: RFC 3986 §2.3: the unreserved characters, whose percent-encodings are equivalent to them.
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def encoded_spellings(batch_path: str) -> list[tuple[str, str]]:
    """(what, path) for `batch_path` with unreserved characters percent-encoded: every one of
    its last segment, its last one alone, and the first whose encoding holds a hex letter
    written in lower-case hex (RFC 3986 §2.1: "The uppercase hexadecimal digits 'A' through 'F'
    are equivalent to the lowercase digits 'a' through 'f'"), when it has one."""
    head, last = batch_path.rsplit("/", 1)
    out: list[tuple[str, str]] = []
    if any(c in UNRESERVED for c in last):
        every = "".join(f"%{ord(c):02X}" if c in UNRESERVED else c for c in last)
        out.append(("every character of its last segment encoded", f"{head}/{every}"))
    if last and last[-1] in UNRESERVED:
        out.append(("its last character encoded", f"{head}/{last[:-1]}%{ord(last[-1]):02X}"))
    for i, c in enumerate(batch_path):
        if c in UNRESERVED and any(h in "ABCDEF" for h in f"{ord(c):02X}"):
            lower = f"{batch_path[:i]}%{ord(c):02x}{batch_path[i + 1 :]}"
            out.append((f"{c} encoded in lower-case hex", lower))
            break
    return out


@checker(
    "nesting-encoded-spellings-refused",
    ("MB-SUB-4",),
    "A part naming the batch endpoint's path with unreserved characters percent-encoded (every character of its last segment, its last character, one encoded in lower-case hex) is refused with 400 naming MB-SUB-4.",
    state=State.READ_ONLY,
)
def nesting_encoded_spellings(ctx: Context, judge: Judge) -> None:
    spelled = encoded_spellings(ctx.batch_path)
    if not spelled:
        judge.not_applicable(
            f"the batch endpoint's path {ctx.batch_path} has no unreserved character"
        )
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    for what, path in spelled:
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _batch(path)))
        judge.note(f"<{path}> ({what}): {resp.status}")
        # MB-SUB-4 (spec 8.4): "a target is the batch endpoint whenever its path equals the
        # endpoint's path once percent-encoded unreserved characters are decoded (RFC 3986
        # §6.2.2.2), whatever its query".
        _expect_nested_refused(judge, f"<{path}> ({what})", resp)
