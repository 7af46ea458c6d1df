"""What the 207 forms say about each part, judged in both forms (spec 6.3, 6.4, 5.4).

Theory of operation: the XML and JSON forms carry, besides statuses and bodies, an index and
a Content-Id and an href per entry, a summary (JSON), and, for a batch stopped after its response began,
an abort report. Each check here asks for every form the target claims, not one of them:

- `multistatus-content-ids`: each entry's index is its position and its content-id is the
  request's reference "between the angle brackets" (MB-MULTI-4, MB-MULTI-6), and its href the
  resolved target in origin-form (MB-MULTI-6; the JSON schema's href), over relative,
  absolute-path, absolute-URI and query-bearing references, one query holding `&`, `'`,
  entity-like text and percent-encoded markup, which each form must escape or keep as is
  (a document a bare `&` breaks is not XML: MB-MULTI-3);
- `multistatus-status-codes`: parts answered with codes from 200 to 599, with a registered
  reason phrase or none, carry their codes in every form, each XML DAV:status "`HTTP/1.1
  NNN`, a space and a reason phrase, which may be empty" (MB-MULTI-6), so `HTTP/1.1 299 `;
- `multistatus-json-summary`: the JSON summary counts parts as the Batch-Summary trailer
  would (spec 6.4: "a `summary` object with the counts the `Batch-Summary` trailer would
  give"), for a batch that ran everything and, with the error-policy profile, one that stopped,
  and for the batches of `_shared.counted_batches` (304, 204, 302, 307, a refused 1xx and 503
  parts, plain, stopped and atomic), each count judged against the spec's number for it;
- `multistatus-skipped-entries`: a batch stopped by the stop policy, with an empty-bodied
  part before the failing one, read in every form: each entry equals the multipart form's
  part (MB-MULTI-5), its Content-Id echo included, a skipped entry has no status
  (MB-MULTI-6: "DAV:status only when it ran"; the JSON schema gives it a null status) but its
  href, the target as written (MB-MULTI-6), and an empty body is written as such
  (MB-MULTI-7: "'body' when the octets are valid UTF-8 (empty included)");
- `batch-abort-in-every-form`: the abort report of MB-MULTI-12 in XML and in JSON: the last
  entry, indexed by the problem's `part_index`, with `Content-Type` as its one header field,
  its problem holding 503, the status of a spent time budget; a server that lets the batch run past its declared limit
  without an abort breaks MB-SEC-1 ("aborts a batch over budget"), and an entry before the
  report written with a 5xx for the part the budget cut off stands where the report goes
  (MB-STATUS-6); the forms are asked for at once, so the check waits out one budget;
- `created-fields-every-form`: a part that creates a sandbox member, asked for in every form:
  each form carries the fields the same POST sent alone answers, in the same order, and a
  `Location` written as the alone answer writes it (relative stays relative, the same scheme
  and authority when absolute, the same collection path), since each creation names a new
  member and only the form of the reference can be compared (MB-MULTI-5);
- `field-octets-every-form`: header field values holding obs-text octets (0x80 to 0xFF),
  which no test resource is required to produce: a sandbox member is written with such
  octets in a quoted Content-Type parameter, and where the sandbox answers that field back
  on a GET or HEAD of the member, every form must carry the same octets (MB-MULTI-5; spec
  6.4 maps field values "one octet to one character", ISO-8859-1, as the XML form's
  characters do). A sandbox that answers a Content-Type of its own leaves nothing to compare
  but the fields it does answer.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.counted_batches import COUNTED, counted_batches
from mixbatch_conformance.checks._shared.delay_answers import (
    delay_waits,
    expect_no_stand_in_for_abort,
)
from mixbatch_conformance.checks._shared.outlast import ABORT_INDEXES, outlasting_batch
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.status_parts import require_status_code
from mixbatch_conformance.core.context import Context, SubRequest, json_object
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    ENTRY_COUNT_REQUIREMENT,
    JSON_FORM,
    MULTISTATUS_FORMS,
    Reader,
    broken_by,
    comparable_fields,
    entries_from_json,
    entries_from_multipart,
    require_readable,
)
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

PROBLEM_JSON = "application/problem+json"


def _forms(ctx: Context, judge: Judge) -> list[tuple[str, Reader, str]]:
    forms = [(a, r, req) for p, a, r, req in MULTISTATUS_FORMS if ctx.target.claims(p)]
    if not forms:
        judge.not_applicable("the target claims neither the xml nor the json profile")
    return forms


#: A query (RFC 3986 3.4: pchar, "/" and "?") of sub-delims, ":" and "@" with entity-like text
#: and percent-encoded markup and backslash: every character allowed there that an XML writer
#: must escape (`&`) or that a hand-made escaper may touch (`'`, `;`, `%`).
QUERY_TO_ESCAPE = "?a=1&amp;b='c'&lt;;!$()*+,=:@/?%3C%5D%5D%3E%5C%22%26amp%3B"


@checker(
    "multistatus-content-ids",
    ("MB-MULTI-4", "MB-MULTI-6", "MB-MULTI-3"),
    "In the XML and JSON forms each entry's index is its position and its content-id is the part's reference without angle brackets, for every reference form.",
    state=State.READ_ONLY,
)
def multistatus_content_ids(ctx: Context, judge: Judge) -> None:
    ok_path = ctx.resource(judge, "ok")
    nf = ctx.path(ctx.resource(judge, "not_found"))
    query = ctx.ref(ok_path) + "?mb-suite=1&Case=Kept"
    # A query of the characters RFC 3986 allows there that XML or JSON text must escape or
    # may mistake for an escape: `&` and `'` (XML markup), text that looks like an entity, and
    # the percent-encoded `<]]>` and `\`, which stay encoded (the reference is not decoded).
    marked = ctx.ref(ok_path) + QUERY_TO_ESCAPE
    subs = [
        SubRequest("GET", ctx.ref(ok_path, "relative")),
        SubRequest("GET", ctx.ref(ok_path, "absolute-uri")),
        SubRequest("GET", nf),
        SubRequest("GET", query),
        SubRequest("GET", marked),
    ]
    # Each reference resolved against the batch's target URI, in origin-form (path and query).
    resolved = [ctx.ref(ok_path), ctx.ref(ok_path), nf, query, marked]
    for accept, reader, requirement in _forms(ctx, judge):
        resp = ctx.batch(judge, subs, headers=(("Accept", accept),))
        judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
        entries, problem = reader(resp.body)
        require_readable(judge, f"{accept} readable", problem, requirement)
        judge.require(
            f"{accept} entry count", len(entries), {len(subs)}, ENTRY_COUNT_REQUIREMENT[accept]
        )
        for i, (entry, sub) in enumerate(zip(entries, subs, strict=True)):
            # MB-MULTI-3 / spec 6.4: each entry "carrying its part index"; MB-MULTI-6:
            # "`mb:content-id` with the URI reference between the angle brackets".
            judge.expect(f"{accept} entry {i} index", entry.index, {i}, requirement)
            judge.expect(
                f"{accept} entry {i} content-id", entry.content_id, {sub.target}, requirement
            )
            # MB-MULTI-6: "`DAV:href` with the resolved target in origin-form"; the JSON
            # schema's href is "The resolved origin-form target of the sub-request".
            judge.expect(f"{accept} entry {i} href", entry.href, {resolved[i]}, requirement)


#: Codes the status resource answers (MB-TEST-6: "a code from 200 to 599"), one part each: the
#: ends of each class, codes with a registered reason phrase, codes with none (226 has one; 299,
#: 399, 425 in some tables, 499 and 599 have none in most), the bodiless 204 and 304.
STATUS_CODES = (200, 204, 226, 299, 304, 399, 404, 418, 425, 499, 500, 599)


@checker(
    "multistatus-status-codes",
    ("MB-MULTI-6", "MB-MULTI-5", "MB-MULTI-4", "MB-RESP-2", "MB-TEST-6"),
    "Parts answered with codes from 200 to 599, registered or not, carry their codes in every form, each XML DAV:status written as HTTP/1.1, the code, a space and a reason phrase that may be empty.",
    state=State.READ_ONLY,
)
def multistatus_status_codes(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "status")
    forms = _forms(ctx, judge)
    room = ctx.limit("max_parts")
    codes = STATUS_CODES[: room if room else None]
    subs = [SubRequest("GET", ctx.path(template.replace("{code}", str(c)))) for c in codes]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    base = entries_from_multipart(env)
    for sub, code, entry in zip(subs, codes, base, strict=True):
        # MB-RESP-2: "exactly one `Http-Status-Code` field holding the sub-response's
        # three-digit status code", where the resource alone answers the code (MB-TEST-6).
        require_status_code(
            ctx, judge, f"multipart status of {sub.target}", sub, entry.status, code
        )
    for accept, reader, requirement in forms:
        resp = ctx.batch(judge, subs, headers=(("Accept", accept),))
        judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
        entries, problem = reader(resp.body)
        # The XML reader holds each DAV:status to MB-MULTI-6: "`HTTP/1.1 NNN`, a space and a
        # reason phrase, which may be empty for a code that has none".
        require_readable(judge, f"{accept} readable", problem, requirement)
        judge.require(
            f"{accept} entry count", len(entries), {len(subs)}, ENTRY_COUNT_REQUIREMENT[accept]
        )
        for code, entry in zip(codes, entries, strict=True):
            # MB-MULTI-6: the XML form's "`DAV:status` (`HTTP/1.1 NNN`, ...)"; MB-MULTI-4: the
            # JSON entry's status is "The sub-response status" (MB-MULTI-5: "carry the same
            # information in every representation of one batch result: ... its status").
            judge.expect(f"{accept} status of the part answered {code}", entry.status, {code},
                         requirement)  # fmt: skip


def _summary(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    prefer: str | None,
    fields: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    headers = [("Accept", JSON_FORM), *fields]
    if prefer:
        headers.append(("Prefer", prefer))
    resp = ctx.batch(judge, subs, headers=tuple(headers))
    judge.require("status", resp.status, {207}, "MB-STATUS-1")
    _entries, problem = entries_from_json(resp.body)
    judge.require(
        "JSON document",
        problem,
        {None},
        broken_by(problem, "MB-MULTI-4"),
        allowed_text="valid by schema",
    )
    doc = loads_json_text(resp.body)
    summary = doc.get("summary")
    judge.require_true("summary object", isinstance(summary, dict), repr(summary), "an object")
    assert isinstance(summary, dict)
    return summary


@checker(
    "multistatus-json-summary",
    ("MB-MULTI-4",),
    "The JSON form's summary counts ok, failed, skipped and rolled-back parts as the Batch-Summary trailer would, over parts answered 2xx, 304, other 3xx, a refused 1xx, 4xx and 5xx under the plain, stop and atomic modes.",
    profile="json",
    state=State.READ_ONLY,
)
def multistatus_json_summary(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    # Spec 5.5: "`ok` counts parts that ran with a status below 400 and no `Batch-Outcome`,
    # `failed` those that ran with 400 or above ..., and `skipped` and `rolled-back` the parts
    # with those outcomes"; spec 6.4 gives the JSON summary "the counts the `Batch-Summary`
    # trailer would give".
    summary = _summary(ctx, judge, [ok, nf, ok], None)
    for name, want in (("ok", 2), ("failed", 1), ("skipped", 0)):
        judge.expect(f"summary {name}", summary.get(name), {want}, "MB-MULTI-4")
    template = ctx.target.resource("status")
    if template:
        # Spec 7.4: "A part **fails** when its status is 400 or above": 399 and 204 count as
        # ok, 400 and 599 as failed.
        codes = (399, 400, 204, 599)
        edges = [SubRequest("GET", ctx.path(template.replace("{code}", str(c)))) for c in codes]
        counted = _summary(ctx, judge, edges, None)
        for name, want in (("ok", 2), ("failed", 2), ("skipped", 0), ("rolled_back", 0)):
            judge.expect(f"summary {name} over {codes}", counted.get(name), {want}, "MB-MULTI-4")
    if ctx.target.claims("error-policy"):
        stopped = _summary(ctx, judge, [ok, nf, ok, ok], "batch-on-error=stop")
        for name, want in (("ok", 1), ("failed", 1), ("skipped", 2)):
            judge.expect(f"stopped summary {name}", stopped.get(name), {want}, "MB-MULTI-4")
    for batch in counted_batches(ctx, judge):
        if not all(ctx.target.claims(p) for p in batch.profiles):
            continue
        given = _summary(ctx, judge, batch.subs, None, batch.headers)
        # Spec 6.4: "The summary counts outcomes under the member `rolled_back`, where the
        # trailer spells it `rolled-back`"; each count is the spec's, whatever the parts say.
        for name in COUNTED:
            member = name.replace("-", "_")
            judge.expect(
                f"summary {member} ({batch.what})",
                given.get(member),
                {batch.counts[name]},
                "MB-MULTI-4",
            )


@checker(
    "multistatus-skipped-entries",
    ("MB-MULTI-5", "MB-MULTI-6", "MB-MULTI-4", "MB-MULTI-7"),
    "A stopped batch with an empty-bodied part reads the same in every form: skipped entries carry no status, the empty body is empty.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def multistatus_skipped_entries(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, SubRequest("HEAD", ok.target), nf, ok]
    if ctx.target.resource("status"):
        # A 204 is a GET with no content: the JSON form writes it as "body": "".
        code = ctx.path(ctx.resource(judge, "status").replace("{code}", "204"))
        subs[1] = SubRequest("GET", code)
    prefer = ("Prefer", "batch-on-error=stop")
    multipart = ctx.batch(judge, subs, headers=(prefer,))
    env = expect_processed(ctx, judge, multipart, [s.content_id for s in subs])
    base = entries_from_multipart(env, ctx.target.volatile_headers)
    judge.require("multipart part 3 outcome", base[3].outcome, {"skipped"}, "MB-PROC-6")
    volatile = ctx.target.volatile_headers
    for accept, reader, requirement in _forms(ctx, judge):
        resp = ctx.batch(judge, subs, headers=(("Accept", accept), prefer))
        judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
        entries, problem = reader(resp.body)
        require_readable(judge, f"{accept} readable", problem, requirement)
        judge.require(
            f"{accept} entry count", len(entries), {len(subs)}, ENTRY_COUNT_REQUIREMENT[accept]
        )
        # MB-MULTI-6: "DAV:status only when it ran"; a skipped part did not run.
        judge.expect(f"{accept} skipped entry status", entries[3].status, {None}, requirement)
        # MB-MULTI-6: "describe each part with ... `DAV:href` with the resolved target in
        # origin-form"; the JSON schema's href is "null only for an aborted entry". A skipped
        # part has its target as much as one that ran (parts 0 and 3 are the same GET).
        judge.expect(f"{accept} skipped entry href", entries[3].href, {subs[3].target}, requirement)
        # MB-MULTI-7: the JSON form writes an empty body "as `\"\"`"; MB-MULTI-6: the XML form's
        # `mb:body` is "empty for an empty body".
        empty = "MB-MULTI-7" if accept == JSON_FORM else requirement
        judge.expect(f"{accept} empty body", entries[1].body, {b""}, empty)
        for i, (got, want) in enumerate(zip(entries, base, strict=True)):
            judge.expect(
                f"{accept} entry {i}", got.comparable(volatile), {want.comparable(volatile)},
                "MB-MULTI-5",
            )  # fmt: skip
            # MB-MULTI-5: "for each part, in order, its status or outcome, its `Content-Id`
            # echo, ..." in every representation: a skipped part's echo as well.
            judge.expect(
                f"{accept} entry {i} content-id", got.content_id, {want.content_id}, "MB-MULTI-5"
            )


@checker(
    "batch-abort-in-every-form",
    ("MB-MULTI-12", "MB-STATUS-14", "MB-SEC-1", "MB-MULTI-4", "MB-MULTI-6"),
    "A batch outlasting its declared time limit ends, in the XML and in the JSON form, with one abort entry indexed by its part_index whose one header field is Content-Type, in the JSON form with href and content_id null and in the XML form with no mb:content-id and no DAV:href or an empty one; no entry before it is a failure the budget caused.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_in_every_form(ctx: Context, judge: Judge) -> None:
    subs = outlasting_batch(ctx, judge)
    forms = _forms(ctx, judge)
    # Each form waits out the budget: sent at once, they cost the check one budget.
    with ThreadPoolExecutor(len(forms), thread_name_prefix="mixbatch-abort-forms") as pool:
        sent = [pool.submit(_abort_in, ctx, judge, subs, accept) for accept, _, _ in forms]
        answers = [f.result() for f in sent]
    for (accept, reader, _), resp in zip(forms, answers, strict=True):
        judge.require(f"{accept} status after a part ran", resp.status, {207}, "MB-STATUS-12")
        entries, problem = reader(resp.body)
        require_readable(judge, f"{accept} readable", problem, "MB-MULTI-12")
        aborted = [e.outcome == "aborted" for e in entries]
        if not any(aborted) and len(entries) < len(subs):
            # The server stopped: it answered fewer parts than were sent. MB-MULTI-5: every
            # representation carries "the abort report when there is one", in these forms a
            # final entry (spec 6.3: "a final `DAV:response` with `mb:outcome` `aborted`"; 6.4).
            judge.expect_true(
                f"{accept} abort report",
                False,
                f"{len(entries)} entries for {len(subs)} parts, none of them an abort entry",
                "a final abort entry after the parts answered",
                "MB-MULTI-5",
            )
        # MB-SEC-1: a server "bounds the time ... of one batch and aborts a batch over budget".
        judge.require(
            f"{accept} abort entry",
            [*aborted[-1:], any(aborted[:-1])],
            [[True, False]],
            "MB-SEC-1",
            allowed_text="exactly one abort entry, the last",
        )
        entry = entries[-1]
        answered = len(entries) - 1
        judge.expect(f"{accept} entries before the abort", answered, ABORT_INDEXES, "MB-STATUS-6")
        for i, ms in delay_waits(ctx, judge, subs).items():
            if i < answered:
                # Spec 5.4: the entries before the abort report are sub-responses ("parts 0
                # to k"), never a failure written for the part the budget cut off.
                label = f"{accept}: "
                expect_no_stand_in_for_abort(ctx, judge, label, entries[i].status, subs[i], i, ms)
        doc = json_object(entry.body)
        part_index = doc.get("part_index") if doc else None
        status = doc.get("status") if doc else None
        # MB-STATUS-14: "the 5xx status ... and `part_index`, the first part not answered";
        # its prose: "The status is 503 when the server stops because it is ... out of its
        # time budget", the one cause an outlasting batch gives.
        judge.expect(f"{accept} abort part_index", part_index, {answered}, "MB-STATUS-14")
        judge.expect(f"{accept} abort status (time budget spent)", status, {503}, "MB-STATUS-14")
        # MB-STATUS-14 prose: "its `requirement` member is optional; when present it names
        # MB-STATUS-6", and "`byte_offset` is absent"; the same document in every form.
        named = doc.get("requirement") if doc else None
        judge.expect(f"{accept} abort requirement", named, {None, "MB-STATUS-6"}, "MB-STATUS-14")
        offset = doc is not None and "byte_offset" in doc
        judge.expect(f"{accept} abort byte_offset", offset, {False}, "MB-STATUS-14")
        # MB-MULTI-12: "the abort report's part index is the first part not answered, and its
        # one header field is Content-Type".
        judge.expect(f"{accept} abort entry index", entry.index, {answered}, "MB-MULTI-12")
        judge.expect(
            f"{accept} abort entry header fields",
            [(n.lower(), v.split(";")[0].strip().lower()) for n, v in entry.fields],
            [[("content-type", PROBLEM_JSON)]],
            "MB-MULTI-12",
        )
        if accept == JSON_FORM:
            # Spec 6.4 (MB-MULTI-4's form): "the abort report is a final entry with `outcome`
            # `aborted`, `href`, `content_id` and `status` null"; it names no part's target.
            judge.expect(
                f"{accept} abort entry href and content_id",
                (entry.href, entry.content_id),
                {(None, None)},
                "MB-MULTI-4",
                allowed_text="(None, None): both null",
            )
        else:
            # Spec 6.3 (MB-MULTI-6's form): the abort report "has no `mb:content-id`, and either
            # no `DAV:href` or an empty one (`<D:href/>`...). A client reads neither, and a
            # check accepts both."
            judge.expect(
                f"{accept} abort entry DAV:href and mb:content-id",
                (entry.href or None, entry.content_id),
                {(None, None)},
                "MB-MULTI-6",
                allowed_text="no DAV:href or an empty one, and no mb:content-id",
            )


def _abort_in(ctx: Context, judge: Judge, subs: list[SubRequest], accept: str) -> Response:
    return ctx.batch(judge, subs, headers=(("Accept", accept),))


def _location_form(value: str | None) -> tuple[str, str, str] | None:
    """How a Location is written, without the member it names: scheme, authority, parent path."""
    if value is None:
        return None
    url = urlsplit(value.strip())
    return (url.scheme.lower(), url.netloc.lower(), url.path.rsplit("/", 1)[0])


def _field(fields: tuple[tuple[str, str], ...], name: str) -> str | None:
    return next((v for n, v in fields if n.lower() == name.lower()), None)


@checker(
    "created-fields-every-form",
    ("MB-MULTI-5", "MB-PROC-10", "MB-MULTI-6", "MB-MULTI-4"),
    "A part that creates a sandbox member carries, in the multipart, XML and JSON forms alike, the field names the same POST answers alone (its ETag and Last-Modified among them, with the conditional profile) and its Location written as the alone answer writes it; each 207 form's href names the collection the POST was sent to.",
    state=State.WRITES_IN_SANDBOX,
)
def created_fields_every_form(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    forms = [("multipart/mixed", None, ""), *_forms(ctx, judge)]
    sub = SubRequest(
        "POST", coll, (("Content-Type", "application/json"),), json.dumps(member).encode()
    )
    made: list[str] = []
    seen: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    try:
        alone = ctx.alone(judge, sub)
        if alone.status == 201 and alone.get("Location"):
            made.append(alone.get("Location") or "")
        for accept, reader, requirement in forms:
            if reader is None:
                env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
                entries = entries_from_multipart(env)
            else:
                resp = ctx.batch(judge, [sub], headers=(("Accept", accept),))
                judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
                entries, problem = reader(resp.body)
                judge.require(
                    f"{accept} readable",
                    problem,
                    {None},
                    broken_by(problem, "MB-MULTI-5"),
                    allowed_text="readable",
                )
            if entries and entries[0].status == 201 and _field(entries[0].fields, "Location"):
                made.append(_field(entries[0].fields, "Location") or "")
            if entries:
                seen.append((accept, entries[0].fields))
            if entries and reader is not None:
                # MB-MULTI-6: "`DAV:href` with the resolved target in origin-form"; the JSON
                # schema's href is "The resolved origin-form target of the sub-request": the
                # collection the POST was sent to, not the member its Location names.
                judge.expect(f"{accept} href of the 201", entries[0].href, {coll}, requirement)
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        for location in made:
            path = created_path(ctx, coll, location)
            if path:
                ctx.alone(judge, SubRequest("DELETE", path))
    if alone.status != 201 or not alone.get("Location"):
        judge.setup_error(f"POST {coll} alone answered {alone.status} without a Location")
    volatile = ctx.target.volatile_headers
    want_names = [n.lower() for n, _ in comparable_fields(tuple(alone.headers), volatile)]
    want_location = _location_form(alone.get("Location"))
    for accept, fields in seen:
        if ctx.target.claims("conditional"):
            for name in ("ETag", "Last-Modified"):
                if alone.get(name) is None:
                    continue
                # MB-PROC-10: "MUST pass a sub-response's `ETag` and `Last-Modified` fields
                # through to the response part unchanged", a 201's as any other's. The values
                # name each creation's own member, so their presence is what compares.
                judge.expect(
                    f"{accept} {name} of the 201 passed through",
                    _field(fields, name) is not None,
                    {True},
                    "MB-PROC-10",
                )
        names = [n.lower() for n, _ in comparable_fields(fields, volatile)]
        # MB-MULTI-5: "carry the same information in every representation of one batch
        # result: for each part ... its header fields", "the sub-response's, as MB-RESP-4 puts
        # them in the response part": the fields a creation answers alone, in order.
        judge.expect(f"{accept} field names", names, [want_names], "MB-MULTI-5")
        # Each creation names a new member, so the reference itself differs; how it is written
        # (relative or absolute, which authority, which collection) is the sub-response's.
        judge.expect(
            f"{accept} Location as written",
            _location_form(_field(fields, "Location")),
            {want_location},
            "MB-MULTI-5",
        )


#: A quoted-string parameter of obs-text octets, each a code point ISO-8859-1 maps one to one
#: (RFC 9110 5.6.4: qdtext includes obs-text), the lowest, a letter and the highest.
OBS_TEXT_PARAMETER = '; mb-note="caf\xe9 \x80 \xff"'


@checker(
    "field-octets-every-form",
    ("MB-MULTI-5", "MB-MULTI-6", "MB-MULTI-4"),
    "Header field values holding obs-text octets, read back from a sandbox member written with them, are carried octet for octet in the multipart, XML and JSON forms alike.",
    state=State.WRITES_IN_SANDBOX,
)
def field_octets_every_form(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    forms = _forms(ctx, judge)
    media = "application/json" + OBS_TEXT_PARAMETER
    sub = SubRequest("POST", coll, (("Content-Type", media),), json.dumps(member).encode())
    made = ctx.alone(judge, sub)
    location = made.get("Location")
    if made.status != 201 or not location:
        judge.not_applicable(
            f"POST {coll} with a Content-Type holding obs-text answered {made.status}"
        )
    path = created_path(ctx, coll, location)
    assert path is not None
    try:
        subs = [SubRequest("GET", path), SubRequest("HEAD", path)]
        env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
        volatile = ctx.target.volatile_headers
        base = [comparable_fields(e.fields, volatile) for e in entries_from_multipart(env)]
        for accept, reader, requirement in forms:
            resp = ctx.batch(judge, subs, headers=(("Accept", accept),))
            judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
            entries, problem = reader(resp.body)
            require_readable(judge, f"{accept} readable", problem, requirement)
            for i, (entry, want) in enumerate(zip(entries, base, strict=False)):
                # MB-MULTI-5: "carry the same information in every representation of one batch
                # result: for each part ... its header fields"; the form's own section says how:
                # 6.3 maps field values "to XML text one octet to one character (ISO-8859-1)"
                # and 6.4 "octet to character as in the XML form", so 0xE9 is U+00E9, never
                # U+FFFD. A form that maps otherwise breaks its own requirement.
                got = comparable_fields(entry.fields, volatile)
                judge.expect(f"{accept} {subs[i].method} member fields", got, [want], requirement)
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        ctx.alone(judge, SubRequest("DELETE", path))
