"""A sandbox member written without a media type, read back in every form (spec 6, MB-TEST-3).

Theory of operation: MB-TEST-3 leaves content that is not a member document to the sandbox,
which "may store it or refuse it", and nothing fixes the media type it then reads back with; a
store that keeps "no media type" as a null, and writes the null where a field value goes, shows
it only where a member written without `Content-Type` is read back. The multipart form and the
request alone carry whatever field the store writes; the 207 forms must still be documents
their readers accept (MB-MULTI-4: the JSON form's schema has each field value a string;
MB-MULTI-6: the XML form a `multistatus` document), with the multipart form's fields and body
(MB-MULTI-5). The check creates a member with `sandbox.member`, replaces it with a line of text
sent with no `Content-Type` (a refusal leaves nothing to read: N/A), reads it in a one-part
batch in every form the target declares, and deletes the member.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.forms_alike import expect_entries_as_multipart
from mixbatch_conformance.checks._shared.sandbox_documents import json_write, tagged
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: The member's content once replaced: text, sent with no media type.
UNTYPED = b"a member written with no media type\n"
#: The statuses MB-TEST-3 gives a PUT that replaced an existing member.
REPLACED = {200, 204}


@checker(
    "sandbox-member-without-media-type-in-every-form",
    ("MB-MULTI-4", "MB-MULTI-6", "MB-MULTI-5", "MB-TEST-3"),
    "A sandbox member replaced with content sent without Content-Type, where the sandbox stores it, is read back in a batch in every declared form as a document its reader accepts, each 207 entry carrying the multipart part's fields and body.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_without_media_type_in_every_form(ctx: Context, judge: Judge) -> None:
    if not (ctx.target.claims("json") or ctx.target.claims("xml")):
        judge.not_applicable("the target claims neither the json nor the xml profile")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    made = ctx.alone(judge, json_write("POST", coll, tagged(member, "untyped")))
    loc = created_path(ctx, coll, made.get("Location"))
    if made.status != 201 or not loc:
        judge.not_applicable(f"a POST of sandbox.member alone answered {made.status}")
    try:
        replaced = ctx.alone(judge, SubRequest("PUT", loc, (), UNTYPED)).status
        if replaced not in REPLACED:
            # MB-TEST-3: content that is not a member document "a sandbox may store it or
            # refuse it".
            judge.not_applicable(f"a PUT of content without Content-Type answered {replaced}")
        answers = answers_in_every_form(ctx, judge, [SubRequest("GET", loc)])
        multipart = answers[0][2]
        if multipart[0].status != 200:
            # MB-TEST-3 judges "only what a sandbox that stored it answers": a read of such
            # content that is not 200 leaves no body to carry.
            judge.not_applicable(f"a GET of the member in a batch answered {multipart[0].status}")
        for media, _, entries in answers[1:]:
            # MB-MULTI-5: every representation carries "for each part ... its header fields
            # and its body"; answers_in_every_form has read each 207 form with its strict
            # reader (MB-MULTI-4's schema, MB-MULTI-6's document).
            expect_entries_as_multipart(
                judge, media, entries, multipart, ctx.target.volatile_headers
            )
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))
