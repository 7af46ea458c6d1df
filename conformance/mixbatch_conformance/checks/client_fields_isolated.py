"""The fields a client puts on every request stay on the batch request (spec 8.2, MB-SUB-6).

Theory of operation: MB-SUB-5 passes on Authorization and Cookie, and MB-SUB-6 nothing else:
"A server MUST NOT apply any other header field of the batch request to a sub-request". The
fields a server is most tempted to pass on are those real clients write on every request
(User-Agent, Accept-Language, Accept-Encoding, Referer, Origin, From, DNT, the Sec-Fetch and
client-hint fields, the forwarding and request-id fields), because a resource's logs and
negotiation read them; and the batch's own Content-Type, which a server may take for the type of
a part's content that names none. The suite writes none of them by default, on the batch or alone, so a
server that copies one into its parts is only seen when the batch carries it and the request
alone does not. Each is sent here, with a value no server makes up, on the batch only; echo
parts without any of them, and a part with its own value of some, must each receive what the
same request alone receives (spec 3.2.4): no line of the batch's, whatever the part carries,
and only what the request alone receives besides its own lines. One echo part carries content
and no Content-Type.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_request, readable_echoes
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Fields browsers, HTTP libraries and the hops before a server add to every request, each
#: with a value that names the batch, so a part that shows it received the batch's line.
CLIENT_FIELDS = (
    ("User-Agent", "mb-suite-batch-agent/1.0 (batch only)"),
    ("Accept-Language", "x-mb-batch-language"),
    ("Accept-Encoding", "x-mb-batch-coding, identity"),
    ("Accept-Charset", "x-mb-batch-charset"),
    ("Referer", "http://mb-batch-referer.example/page"),
    ("Origin", "http://mb-batch-origin.example"),
    ("From", "mb-suite@mb-batch-from.example"),
    ("DNT", "1"),
    ("Sec-GPC", "1"),
    ("X-Requested-With", "mb-batch-requested-with"),
    ("Sec-Fetch-Site", "same-origin"),
    ("Sec-Fetch-Mode", "cors"),
    ("Sec-Fetch-Dest", "empty"),
    ("Sec-CH-UA", '"mb-batch-hint";v="1"'),
    ("Upgrade-Insecure-Requests", "1"),
    ("Save-Data", "on"),
    ("Priority", "u=3"),
    ("X-Real-IP", "192.0.2.71"),
    ("True-Client-IP", "192.0.2.72"),
    ("X-Forwarded-For", "192.0.2.73"),
    ("Via", "1.1 mb-batch-via"),
    ("Max-Forwards", "9"),
    ("X-Request-Id", "mb-batch-request-id"),
    ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
    ("Cache-Control", "max-age=0"),
    ("Pragma", "no-cache"),
    ("X-Mb-Batch-Probe", "mb-batch-only"),
)

#: Fields that travel with a client's credentials: anti-CSRF tokens read beside a session
#: cookie, API keys and session or auth tokens read beside Authorization, and the credential
#: fields of other schemes. A server may pass one on only where it passes on the batch's
#: credentials, so they are sent with Authorization and Cookie on the batch.
CREDENTIAL_COMPANIONS = (
    ("X-CSRF-Token", "mb-batch-csrf-token"),
    ("X-XSRF-Token", "mb-batch-xsrf-token"),
    ("X-CSRFToken", "mb-batch-csrftoken"),
    ("X-Requested-By", "mb-batch-requested-by"),
    ("X-Api-Key", "mb-batch-api-key"),
    ("X-Auth-Token", "mb-batch-auth-token"),
    ("X-Session-Id", "mb-batch-session-id"),
    ("X-Access-Token", "mb-batch-access-token"),
    ("X-Amz-Security-Token", "mb-batch-security-token"),
    ("Proxy-Authorization", "Basic bWItYmF0Y2g6cHJveHk="),
    ("Cookie2", '$Version="1"'),
)

#: A part's own values of some of those fields: the part keeps them, and gets no batch line
#: besides (a replacement, as MB-SUB-5 makes it for credentials, is no licence to merge).
OWN_FIELDS = (
    ("User-Agent", "mb-suite-part-agent/2.0"),
    ("Accept-Language", "fr"),
    ("Referer", "http://mb-part-referer.example/"),
    ("X-Request-Id", "mb-part-request-id"),
)


@checker(
    "client-fields-not-inherited",
    ("MB-SUB-6", "MB-PART-8"),
    "User-Agent, Accept-Language, Accept-Encoding, Referer, Origin, From, DNT, Sec-Fetch and client-hint fields, forwarding, request-id, trace and caching fields on the batch request only reach no part: echo parts without them, with their own values of some, and with content but no Content-Type receive what the same request alone receives.",
    state=State.READ_ONLY,
)
def client_fields_not_inherited(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("GET", f"{echo}?mb-client=bare"),
        SubRequest(
            "POST",
            f"{echo}?mb-client=content",
            (("Content-Type", "text/plain"),),
            b"mb-suite client fields",
        ),
        SubRequest("GET", f"{echo}?mb-client=own", OWN_FIELDS),
        SubRequest("DELETE", f"{echo}?mb-client=delete"),
        # Content without a Content-Type: the batch's own Content-Type describes the envelope,
        # not this content, and the part gets none of it (spec 8.2).
        SubRequest("POST", f"{echo}?mb-client=untyped", (), b"mb-suite untyped content"),
    ]
    alone = [ctx.alone(judge, s).body for s in subs]
    resp = ctx.batch(judge, subs, headers=CLIENT_FIELDS)
    env = expect_processed(
        ctx, judge, resp, [s.content_id for s in subs], [{200}] * len(subs), "MB-SUB-6"
    )
    for i, (sub, single) in enumerate(zip(subs, alone, strict=True)):
        seen, single_seen = readable_echoes(judge, env.parts[i].body, single)
        label = f"part {i} ({sub.method} {sub.target})"
        for name, value in CLIENT_FIELDS:
            own = [v for n, v in sub.headers if n.lower() == name.lower()]
            # MB-SUB-6: "MUST NOT apply any other header field of the batch request to a
            # sub-request": the batch's line is never among the part's. A field the hops add
            # to every request (a proxy's own Via) reaches the request alone as well, and is
            # judged below with everything else the part received.
            judge.expect_true(
                f"{label} received the batch's {name}",
                value in own or value not in seen.get_all(name),
                repr(seen.get_all(name)),
                f"not the batch's {value!r}",
                "MB-SUB-6",
            )
        # MB-SUB-6 with spec 3.2.4: the sub-request is the same request as the part sent
        # alone, whose fields are the part's own (MB-PART-8) and nothing of the batch's.
        expect_same_request(ctx, judge, label, seen, single_seen, "MB-SUB-6")


@checker(
    "credential-companion-fields-not-inherited",
    ("MB-SUB-6",),
    "On a batch that carries Authorization and Cookie, the fields that travel with credentials (anti-CSRF tokens, API keys, session and auth tokens, Proxy-Authorization, Cookie2) reach no part: not a part that inherits the batch's credentials, not an unsafe one, not one with its own Cookie or Authorization.",
    state=State.READ_ONLY,
)
def credential_companion_fields_not_inherited(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    configured = {n.lower(): v for n, v in ctx.target.credentials}
    outer = (
        ("Authorization", configured.get("authorization", "Bearer mb-suite-outer-companion")),
        ("Cookie", configured.get("cookie", "mb-suite-outer=companion")),
    )
    subs = [
        SubRequest("GET", f"{echo}?mb-companion=inherits"),
        SubRequest(
            "POST",
            f"{echo}?mb-companion=unsafe",
            (("Content-Type", "text/plain"),),
            b"mb-suite companion fields",
        ),
        SubRequest("GET", f"{echo}?mb-companion=own-cookie", (("Cookie", "mb-suite-part=own"),)),
        SubRequest(
            "DELETE",
            f"{echo}?mb-companion=own-authorization",
            (("Authorization", "Bearer mb-suite-part-own"),),
        ),
    ]
    resp = ctx.batch(judge, subs, headers=(*outer, *CREDENTIAL_COMPANIONS))
    env = expect_processed(
        ctx, judge, resp, [s.content_id for s in subs], [{200}] * len(subs), "MB-SUB-6"
    )
    for i, sub in enumerate(subs):
        (seen,) = readable_echoes(judge, env.parts[i].body)
        label = f"part {i} ({sub.method} {sub.target})"
        for name, value in CREDENTIAL_COMPANIONS:
            # MB-SUB-6: "A server MUST NOT apply any other header field of the batch request
            # to a sub-request"; spec 8.2: "The two fields that carry identity are therefore
            # inherited ... Nothing else is inherited", whether the part inherits those two
            # or carries its own.
            judge.expect_true(
                f"{label} received the batch's {name}",
                value not in seen.get_all(name),
                repr(seen.get_all(name)),
                f"not the batch's {value!r}",
                "MB-SUB-6",
            )
