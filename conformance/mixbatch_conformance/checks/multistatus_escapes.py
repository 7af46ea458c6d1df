"""Values the 207 forms must escape, carried through each form as the multipart form has them.

Theory of operation: the XML form writes header field values "as text" (MB-MULTI-6) and the
JSON form as JSON strings (spec 6.4), so a value holding markup (`]]>`, `<`, `&`, a quote), a
backslash or an HTAB must be escaped by each form's own rules, or the document stops being
XML (MB-MULTI-3: "an RFC 4918 `DAV:multistatus` document") or JSON (MB-MULTI-4: "a document
... that validates"), or reads back as another value (MB-MULTI-5: "the same information in
every representation ... its header fields and its body"). The only field values a client
chooses in a sub-response are those a sandbox member keeps: a member is written with a
Content-Type whose quoted-string parameter (RFC 9110 5.6.4: qdtext and quoted-pair) holds
such characters, and where the sandbox answers that field back on a GET or HEAD of the
member, every form must carry it as the multipart form does. A sandbox that answers a
Content-Type of its own (the spec lets it) leaves only the fields it answers to compare. The
member's string members hold the same characters, so the body read back (when the sandbox
keeps them) is one the JSON form's `body` string must escape as well. The test resources set
no other response field from the request, so hrefs and Content-Id echoes, whose characters a
client also chooses, are judged by `multistatus-content-ids`.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    ENTRY_COUNT_REQUIREMENT,
    MULTISTATUS_FORMS,
    comparable_fields,
    entries_from_multipart,
    require_readable,
)

__all__: list[str] = []

#: Quoted-string parameter values (RFC 9110 5.6.4), each written into its own member's
#: Content-Type: the end of an XML CDATA section, the markup characters and both quotes, a
#: quoted-pair of a quote and of a backslash (JSON escapes both), text that already looks
#: escaped (a writer that decodes entities, or skips them, changes it), values ending in `]`
#: and `]]` (a CDATA section closed after them), an HTAB (valid in a field value; JSON escapes
#: it, XML keeps it as a character), a script end tag and a CDATA start, and obs-text beside
#: `]]>` (mapped one octet to one character, ISO-8859-1, spec 6.3).
PARAMETER_VALUES = (
    '"]]>"',
    '"<&>\'"',
    '"a\\"b\\\\c"',
    '"&amp;&lt;&#93;&#x5D;"',
    '"x]"',
    '"]]"',
    '"a\tb"',
    '"</script><![CDATA[x]]>"',
    '"caf\xe9 ]]> \xff"',
)
#: What the member's string members are set to (MB-TEST-3: "a check may change the values of
#: its string members"): the same characters, with U+2028 and U+2029, which JSON carries as
#: they are and some writers escape.
MEMBER_TEXT = "]]> <&> '\"\\ </script> &amp; \t \u2028\u2029 x]"


def _member(ctx: Context, judge: Judge) -> bytes:
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = {k: MEMBER_TEXT if isinstance(v, str) else v for k, v in member.items()}
    return json.dumps(doc, ensure_ascii=False).encode()


@checker(
    "field-values-escaped-every-form",
    ("MB-MULTI-3", "MB-MULTI-4", "MB-MULTI-5", "MB-MULTI-6"),
    "Header field values and bodies holding characters the XML and JSON forms must escape (]]>, <, &, quotes, backslashes, HTAB, a script end tag, obs-text), read back from sandbox members written with them, leave each 207 form well-formed and carry the multipart form's values.",
    state=State.WRITES_IN_SANDBOX,
)
def field_values_escaped_every_form(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    content = _member(ctx, judge)
    forms = [(a, r, req) for p, a, r, req in MULTISTATUS_FORMS if ctx.target.claims(p)]
    if not forms:
        judge.not_applicable("the target claims neither the xml nor the json profile")
    paths: list[str] = []
    try:
        for value in PARAMETER_VALUES:
            media = f"application/json; mb-note={value}"
            made = ctx.alone(judge, SubRequest("POST", coll, (("Content-Type", media),), content))
            location = made.get("Location")
            if made.status == 201 and location and urlsplit(location).path:
                paths.append(urlsplit(location).path)
            else:
                judge.note(f"POST {coll} with Content-Type {media!r} answered {made.status}")
        if not paths:
            judge.not_applicable("the sandbox created no member with a parameter of these values")
        subs = [SubRequest(m, p) for p in paths for m in ("GET", "HEAD")]
        env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
        volatile = ctx.target.volatile_headers
        base = entries_from_multipart(env)
        kept = sum(
            any(n == "content-type" and "mb-note" in v for n, v in comparable_fields(e.fields, ()))
            for e in base
        )
        judge.note(
            f"{kept} of {len(base)} parts answer the Content-Type their member was written with"
        )
        for accept, reader, _ in forms:
            resp = ctx.batch(judge, subs, headers=(("Accept", accept),))
            judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
            # MB-MULTI-3: "an RFC 4918 `DAV:multistatus` document" is XML, so well-formed (XML
            # 1.0 2.1); MB-MULTI-4: the JSON form "validates against" its schema, so is JSON. A
            # value written unescaped (a CDATA section cut by `]]>`, a bare `&`, a bare
            # backslash or HTAB in a JSON string) breaks the document; the reader's problem
            # names the requirement.
            entries, problem = reader(resp.body)
            require_readable(judge, f"{accept} readable", problem, ENTRY_COUNT_REQUIREMENT[accept])
            judge.require(
                f"{accept} entry count", len(entries), {len(subs)}, ENTRY_COUNT_REQUIREMENT[accept]
            )
            for sub, got, want in zip(subs, entries, base, strict=True):
                label = f"{accept} {sub.method} {sub.target}"
                # MB-MULTI-5: "carry the same information in every representation of one batch
                # result: for each part ... its header fields and its body"; spec 6.3 writes a
                # value "as text" and 6.4 as a string, each "mapped octet to character", so
                # what a form's reader gets back is the multipart form's value, escapes undone.
                judge.expect(
                    f"{label} fields",
                    comparable_fields(got.fields, volatile),
                    [comparable_fields(want.fields, volatile)],
                    "MB-MULTI-5",
                )
                judge.expect(f"{label} body", got.body, {want.body}, "MB-MULTI-5")
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        for path in paths:
            ctx.alone(judge, SubRequest("DELETE", path))
