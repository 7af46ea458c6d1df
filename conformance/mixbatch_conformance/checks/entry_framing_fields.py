"""The XML and JSON entries list no framing or connection-specific field (spec 3.3, 6.1).

Theory of operation: the header fields of a 207 entry "are the sub-response's, as
[MB-RESP-4] puts them in the response part" (spec 6.1), and MB-RESP-4 puts every field there
"except the connection-specific and framing fields `Connection`, `Keep-Alive`,
`Proxy-Connection`, `TE`, `Transfer-Encoding`, `Upgrade`, `Trailer` and `Content-Length`";
spec 6.1 adds that a part's own `Content-Length` "frames the multipart form and is not one of
them, so the XML and JSON forms do not list it". The representation comparisons leave those
fields out of every comparison, so they cannot see a server that builds an entry's fields from
its handler's raw header map. This check asks for [HEAD ok, GET ok, PUT echo with 2000
octets] in each 207 form the target declares (a HEAD answer's Content-Length describes a body
it does not carry; a large echo tempts a chunked handler) and finds none of those names in any
entry, in any case.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    DROPPED_FIELDS,
    MULTISTATUS_FORMS,
    answers_in_every_form,
)

__all__: list[str] = []

#: Octets of the echoed body: large enough that a handler may stream or chunk it.
ECHO_OCTETS = 2000


@checker(
    "multistatus-entries-without-framing-fields",
    ("MB-RESP-4", "MB-MULTI-5"),
    "No XML or JSON entry of [HEAD ok, GET ok, PUT echo with 2000 octets] lists Content-Length, Transfer-Encoding, Connection, Keep-Alive, Proxy-Connection, TE, Trailer or Upgrade.",
    state=State.READ_ONLY,
)
def entries_without_framing_fields(ctx: Context, judge: Judge) -> None:
    if not any(ctx.target.claims(profile) for profile, *_ in MULTISTATUS_FORMS):
        judge.not_applicable("the target claims neither the xml nor the json profile")
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("HEAD", ok),
        SubRequest("GET", ok),
        SubRequest("PUT", echo, (("Content-Type", "text/plain"),), b"e" * ECHO_OCTETS),
    ]
    for media, _, entries in answers_in_every_form(ctx, judge, subs)[1:]:
        for entry in entries:
            listed = [n for n, _ in entry.fields if n.lower() in DROPPED_FIELDS]
            # Spec 6.1 (MB-MULTI-5): a part's own `Content-Length` "frames the multipart form
            # and is not one of them, so the XML and JSON forms do not list it".
            judge.expect(
                f"{media} entry {entry.index}: Content-Length listed",
                [n for n in listed if n.lower() == "content-length"],
                [[]],
                "MB-MULTI-5",
                allowed_text="no Content-Length",
            )
            # MB-RESP-4: the part carries the sub-response's fields "except the
            # connection-specific and framing fields `Connection`, `Keep-Alive`,
            # `Proxy-Connection`, `TE`, `Transfer-Encoding`, `Upgrade`, `Trailer`".
            judge.expect(
                f"{media} entry {entry.index}: connection-specific fields listed",
                [n for n in listed if n.lower() != "content-length"],
                [[]],
                "MB-RESP-4",
                allowed_text="none of Connection, Keep-Alive, Proxy-Connection, TE, "
                "Transfer-Encoding, Upgrade, Trailer",
            )
