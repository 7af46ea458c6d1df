"""The capabilities document's representations and modes agree with how the server answers.

Theory of operation: the capabilities document states "the profiles the server offers
(`profiles`) and the media types of the batch representations it offers (`representations`)"
(spec 9.2, under MB-LIMIT-2). The other checks take what a target offers from its target
description, never from the document it serves, so a document that claims a form the server
refuses, or hides one it serves, would pass them. This check reads the served document and
holds the server to it, learning nothing from the target description: a one-part batch
[GET ok] with exactly each known batch media type in Accept is answered in that type (200
multipart/mixed, 207 for the XML and JSON forms) when the document lists it, and 406 when it
does not (MB-STATUS-9 then leaves nothing else). `Batch-Mode: atomic` and `Batch-Mode:
references` are run when the document lists the profile, and answered 501 when it does not
(MB-PROC-7, MB-PROC-12). Media types or profiles the suite does not know are left unjudged.
N/A when the target serves no capabilities document.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import JSON_FORM, XML_FORM

__all__: list[str] = []

#: The batch media types the spec defines, with the status a batch processed in each gets
#: (MB-STATUS-1's table: 200 for multipart/mixed, 207 for the XML or JSON representation).
BATCH_MEDIA = {"multipart/mixed": 200, XML_FORM: 207, JSON_FORM: 207}
#: The modes a profile adds, with the requirement that makes an unoffered one a 501.
MODES = {"atomic": "MB-PROC-7", "references": "MB-PROC-12"}


def _strings(doc: dict[str, object], key: str) -> list[str] | None:
    value = doc.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return [v.lower() for v in value]


@checker(
    "capabilities-agree-with-answers",
    ("MB-LIMIT-2", "MB-STATUS-9", "MB-PROC-7", "MB-PROC-12"),
    "Each batch media type the capabilities document lists answers [GET ok] in that type and each it omits is 406; Batch-Mode atomic and references run when their profile is listed and are 501 when not.",
    profile="limits",
    state=State.READ_ONLY,
)
def capabilities_agree(ctx: Context, judge: Judge) -> None:
    doc = ctx.fetch_capabilities(judge)
    if doc is None:
        judge.not_applicable("the target serves no capabilities document")
    listed = _strings(doc, "representations")
    profiles = _strings(doc, "profiles")
    if listed is None or profiles is None:
        judge.not_applicable("the document's representations or profiles are not string lists")
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    for media, status in BATCH_MEDIA.items():
        resp = ctx.batch(judge, [ok], headers=(("Accept", media),))
        if media in listed:
            # Spec 9.2 (MB-LIMIT-2): the document states "the media types of the batch
            # representations it offers (`representations`)"; MB-STATUS-1: 200 for
            # multipart/mixed, 207 for the XML or JSON representation.
            judge.expect(
                f"Accept {media} (listed): status and media type",
                (resp.status, resp.media_type),
                {(status, media)},
                "MB-LIMIT-2",
            )
        else:
            # MB-STATUS-9: "A server MUST answer 406 (Not Acceptable) to a batch request whose
            # Accept field admits none of the batch representations the server offers", the
            # ones its document lists (spec 9.2).
            judge.expect(f"Accept {media} (not listed): status", resp.status, {406}, "MB-STATUS-9")
    for mode, requirement in MODES.items():
        resp = ctx.batch(judge, [ok], headers=(("Batch-Mode", mode),))
        if mode in profiles:
            # Spec 9.2 (MB-LIMIT-2): the document states "the profiles the server offers".
            judge.expect(
                f"Batch-Mode: {mode} (profile listed): status", resp.status, {200}, "MB-LIMIT-2"
            )
        else:
            # MB-PROC-7: "A server that does not offer the `atomic` profile MUST answer a batch
            # request carrying `Batch-Mode: atomic` with 501"; MB-PROC-12: "a batch request
            # whose `Batch-Mode` value it does not implement with 501".
            judge.expect(
                f"Batch-Mode: {mode} (profile not listed): status", resp.status, {501}, requirement
            )
