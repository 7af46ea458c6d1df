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

`multistatus-entry-fields-as-sub-response` judges what an entry's fields are, not only what
they leave out. Spec 6.1 (MB-MULTI-5): "The header fields meant are the sub-response's, as
[MB-RESP-4] puts them in the response part", and spec 3.3 puts the mixbatch fields
`Http-Status-Code`, `Content-Id` and `Batch-Outcome` in the part's header section beside the
sub-response's own, so a server that lists a part's whole header section in an entry writes
them among the sub-response's fields. The representation comparisons leave those names out of
every comparison (they compare status, outcome and Content-Id apart), which is why they never
saw such an entry. The check sends, in each declared 207 form, a batch of parts that run (the
echo with a query and with content, ok, HEAD ok, a 204 from the status resource when declared)
and one that fails (not_found), each also sent alone; each entry's fields, with `Date` and the
target's volatile fields left out on both sides, are the fields the same request alone answers
less MB-RESP-4's drop list, in order, and list none of the part's framing fields
(`Content-Id`, `Http-Status-Code`, `Batch-Outcome`, `Content-Length`, `MIME-Version`,
`Content-Transfer-Encoding`) unless the request alone answered that field itself. With the
error-policy profile a batch stopped by `Prefer: batch-on-error=stop` adds skipped parts: a
part that never ran has no sub-response, so its entry lists none of those names, and the same
fields as its multipart part once they are left out (a problem document's Content-Type, or
nothing). The abort report's one field, Content-Type (MB-MULTI-12), is judged by
`batch-abort-in-every-form`.
"""

from __future__ import annotations

from collections.abc import Iterable

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    DROPPED_FIELDS,
    MULTISTATUS_FORMS,
    Entry,
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


#: The fields a multipart response part carries for its own framing, which are none of the
#: sub-response's: spec 3.3's "mixbatch fields `Http-Status-Code`, `Content-Id` and, when
#: needed, `Batch-Outcome`", the part's own `Content-Length` (MB-WIRE-15), and the MIME fields
#: a multipart writer may add.
PART_FRAMING_FIELDS = frozenset(
    {
        "content-id",
        "http-status-code",
        "batch-outcome",
        "content-length",
        "mime-version",
        "content-transfer-encoding",
    }
)


def _kept(fields: Iterable[tuple[str, str]], skip: frozenset[str]) -> list[tuple[str, str]]:
    """`fields` with names lower-cased and the names in `skip` left out, order kept."""
    return [(n.lower(), v) for n, v in fields if n.lower() not in skip]


def _expect_entry_fields(
    judge: Judge,
    label: str,
    entry: Entry,
    want: list[tuple[str, str]],
    sent_by_resource: set[str],
    skip: frozenset[str],
) -> None:
    """Judge one 207 entry's fields against `want`, the sub-response's comparable fields."""
    framing = [
        n
        for n, _ in entry.fields
        if n.lower() in PART_FRAMING_FIELDS and n.lower() not in sent_by_resource
    ]
    # MB-MULTI-5 (spec 6.1): "The header fields meant are the sub-response's, as [MB-RESP-4]
    # puts them in the response part"; a response part's `Http-Status-Code`, `Content-Id`,
    # `Batch-Outcome` and own `Content-Length` are the batch's framing, not the sub-response's.
    judge.expect(
        f"{label}: part framing fields listed",
        framing,
        [[]],
        "MB-MULTI-5",
        allowed_text="none of Content-Id, Http-Status-Code, Batch-Outcome, Content-Length, "
        "MIME-Version, Content-Transfer-Encoding the sub-response did not send",
    )
    # MB-MULTI-5: "carry the same information in every representation of one batch result:
    # for each part, in order, ... its header fields".
    judge.expect(
        f"{label}: fields",
        _kept(entry.fields, skip),
        [want],
        "MB-MULTI-5",
        allowed_text=f"the sub-response's fields {want!r}",
    )


@checker(
    "multistatus-entry-fields-as-sub-response",
    ("MB-MULTI-5",),
    "Each XML and JSON entry lists exactly the fields the same request alone answers (Date, volatile and MB-RESP-4's dropped fields aside), never the part's Content-Id, Http-Status-Code, Batch-Outcome, Content-Length, MIME-Version or Content-Transfer-Encoding, for parts that ran, a failing part and, with the error-policy profile, skipped parts.",
    state=State.READ_ONLY,
)
def entry_fields_as_sub_response(ctx: Context, judge: Judge) -> None:
    if not any(ctx.target.claims(profile) for profile, *_ in MULTISTATUS_FORMS):
        judge.not_applicable("the target claims neither the xml nor the json profile")
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("GET", f"{echo}?mb-entry-fields=1"),
        SubRequest("GET", ok),
        SubRequest("HEAD", ok),
        SubRequest("GET", nf),
        SubRequest("PUT", f"{echo}?mb-entry-fields=2", (("Content-Type", "text/plain"),), b"e"),
    ]
    status = ctx.target.resource("status")
    if status and "{code}" in status:
        subs.append(SubRequest("GET", ctx.path(status.replace("{code}", "204"))))
    volatile = frozenset({"date", *(v.lower() for v in ctx.target.volatile_headers)})
    alone = [ctx.alone(judge, sub).headers for sub in subs]
    for media, _, entries in answers_in_every_form(ctx, judge, subs)[1:]:
        for i, (sub, entry, fields) in enumerate(zip(subs, entries, alone, strict=True)):
            _expect_entry_fields(
                judge,
                f"{media} entry {i} ({sub.method} {sub.target})",
                entry,
                _kept(fields, volatile | DROPPED_FIELDS),
                {n.lower() for n, _ in fields},
                volatile,
            )
    if not ctx.target.claims("error-policy"):
        judge.note("no error-policy profile: no skipped part to judge")
        return
    # A failing part under stop, then parts that never run (MB-PROC-6).
    stopped = [SubRequest("GET", ok), SubRequest("GET", nf), SubRequest("GET", f"{echo}?s=1")]
    answers = answers_in_every_form(ctx, judge, stopped, (("Prefer", "batch-on-error=stop"),))
    base = answers[0][2]
    judge.require("multipart part 2 outcome", base[2].outcome, {"skipped"}, "MB-PROC-6")
    for media, _, entries in answers[1:]:
        for i, (sub, entry) in enumerate(zip(stopped, entries, strict=True)):
            label = f"{media} stopped batch entry {i} ({sub.method} {sub.target})"
            if base[i].outcome == "skipped":
                # A skipped part "never ran" (spec 3.3.4): it has no sub-response, so no
                # field of its part's header section is the sub-response's framing.
                want = _kept(base[i].fields, volatile | PART_FRAMING_FIELDS)
                _expect_entry_fields(judge, label, entry, want, set(), volatile)
            elif sub.target in (ok, nf):
                # subs[1] is GET ok and subs[3] GET not_found, each already sent alone.
                fields = alone[1] if sub.target == ok else alone[3]
                _expect_entry_fields(
                    judge,
                    label,
                    entry,
                    _kept(fields, volatile | DROPPED_FIELDS),
                    {n.lower() for n, _ in fields},
                    volatile,
                )
