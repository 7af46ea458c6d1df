"""Readers for the three representations of a batch result, reduced to comparable entries.

Theory of operation: MB-MULTI-5 says the multipart, XML and JSON forms of one result carry
the same statuses, outcomes, header fields and bodies. Each reader here turns one form into
a list of `Entry` values (index, status, outcome, content_id, fields, body) so that a check
compares lists, not documents. The XML reader follows spec §6.3 (DAV:response with
DAV:status "HTTP/1.1 NNN", mb:index, mb:content-id, mb:outcome, mb:header name=..., mb:body
in base64); the JSON reader validates against spec/schemas/multistatus.schema.json first.
Both readers also judge what every entry of their form must satisfy, so that each check that
reads a 207 form judges it: DAV:status exactly when the part ran (MB-MULTI-6; the JSON
schema already ties `status` null to the skipped and aborted outcomes), and the JSON body in
exactly one member chosen by UTF-8 validity (MB-MULTI-7). Every problem a reader returns opens
with the requirement the document breaks (MB-MULTI-3 for the XML form's structure, MB-MULTI-4
for the JSON schema), and `broken_by` reads it back, so that a check refusing a document cites
the requirement that demands that structure. `MULTISTATUS_FORMS` lists the 207
forms, with the profile that offers each and the Accept value that asks for it;
`answers_in_every_form` sends one batch once per form the target declares (multipart/mixed
first) and reads each answer into entries, for the checks whose requirement binds every form.

`comparable_fields` drops the fields a comparison must ignore: the target's volatile fields,
`Date`, the framing and hop-by-hop fields MB-RESP-4 drops, and the part fields the batch itself
adds (Http-Status-Code, Content-Id, Batch-Outcome). Names compare case-insensitively, order is
kept (spec 3.2.4).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from xml.etree import ElementTree

from mixbatch_conformance.core.base64_text import decode_base64
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.media_types import JSON_FORM, XML_FORM
from mixbatch_conformance.core.numerals import decimal
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.core.validator import Envelope
from mixbatch_conformance.transport.http import Response

__all__ = [
    "BODY_REQUIREMENT",
    "DROPPED_FIELDS",
    "ENTRY_COUNT_REQUIREMENT",
    "FORM_REQUIREMENT",
    "JSON_FORM",
    "MULTISTATUS_FORMS",
    "XML_FORM",
    "Entry",
    "Reader",
    "answers_in_every_form",
    "broken_by",
    "comparable_fields",
    "entries_from_json",
    "entries_from_multipart",
    "entries_from_xml",
    "entry_counts",
    "entry_requirement",
    "expect_form_chosen",
    "lists_references",
]

MB_NS = "https://mixbatch.dev/ns/multistatus"
DAV_NS = "DAV:"
#: Outcomes of a part that did not run (spec 3.3, 5.4): no status in any form.
NOT_RUN = frozenset({"skipped", "aborted"})
#: Outcomes of a part that ran: its own status in every form (MB-PROC-8: "with its real
#: status"); None is a part with no Batch-Outcome.
RAN = frozenset({None, "rolled-back"})
#: MB-RESP-4's drop list: "except the connection-specific and framing fields `Connection`,
#: `Keep-Alive`, `Proxy-Connection`, `TE`, `Transfer-Encoding`, `Upgrade`, `Trailer` and
#: `Content-Length`", which no part carries.
DROPPED_FIELDS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "transfer-encoding",
        "upgrade",
        "trailer",
        "content-length",
    }
)
#: Left out of every comparison (spec 3.2.4: "equal header fields after leaving out the fields
#: MB-RESP-4 drops, `Date` and the declared volatile fields"), with the part fields the batch
#: itself adds (Http-Status-Code, Content-Id, Batch-Outcome; MB-MULTI-5 compares those apart).
IGNORED = {
    *DROPPED_FIELDS,
    "date",
    "http-status-code",
    "content-id",
    "batch-outcome",
}


def comparable_fields(
    fields: Iterable[tuple[str, str]], volatile: Iterable[str]
) -> tuple[tuple[str, str], ...]:
    skip = IGNORED | {v.lower() for v in volatile}
    return tuple((n.lower(), v) for n, v in fields if n.lower() not in skip)


@dataclass(frozen=True)
class Entry:
    """One part's result, whatever the representation it came from."""

    index: int | None
    status: int | None
    outcome: str | None
    content_id: str | None
    fields: tuple[tuple[str, str], ...]
    body: bytes
    #: The resolved target the 207 forms carry (DAV:href, "href"); None in the multipart form,
    #: which has none, and for the abort report.
    href: str | None = None

    def comparable(self, volatile: Iterable[str]) -> tuple[object, ...]:
        return (self.status, self.outcome, comparable_fields(self.fields, volatile), self.body)


def entries_from_multipart(env: Envelope, volatile: Iterable[str] = ()) -> list[Entry]:
    out = []
    for part in env.parts:
        status = part.get("Http-Status-Code")
        cid = part.get("Content-Id")
        out.append(
            Entry(
                part.index,
                decimal(status),
                part.get("Batch-Outcome"),
                cid[1:-1] if cid and cid.startswith("<") and cid.endswith(">") else cid,
                part.fields,
                part.body,
            )
        )
    return out


#: The Batch-Summary members spec 5.5 defines, in the order the spec lists them.
SUMMARY_MEMBERS = ("ok", "failed", "skipped", "rolled-back")


def entry_counts(entries: Iterable[Entry]) -> dict[str, int] | None:
    """The entries of one answer, in any form, counted as spec 5.5 defines the Batch-Summary
    members ("`ok` counts parts that ran with a status below 400 and no `Batch-Outcome`,
    `failed` those that ran with 400 or above ..., and `skipped` and `rolled-back` the parts
    with those outcomes"), or None when the answer aborted ("a response that aborted has no
    reliable count")."""
    counts = dict.fromkeys(SUMMARY_MEMBERS, 0)
    for entry in entries:
        if entry.outcome == "aborted":
            return None
        if entry.outcome in counts:
            counts[entry.outcome] += 1
        elif entry.outcome is None and entry.status is not None:
            counts["ok" if entry.status < 400 else "failed"] += 1
    return counts


_CITED = re.compile(r"(MB-[A-Z]+-[0-9]+): ")


def broken_by(problem: str | None, fallback: str) -> str:
    """The requirement a reader's `problem` names at its start, else `fallback`."""
    m = _CITED.match(problem or "")
    return m.group(1) if m else fallback


def require_readable(judge: Judge, what: str, problem: str | None, fallback: str) -> None:
    """Stop the check unless a reader found no `problem`; a broken document cites the
    requirement its problem names (see `broken_by`), else `fallback`."""
    judge.require(what, problem, {None}, broken_by(problem, fallback), allowed_text="valid")


def _local(tag: str) -> tuple[str, str]:
    m = re.fullmatch(r"\{([^}]*)\}(.*)", tag)
    return (m.group(1), m.group(2)) if m else ("", tag)


def entries_from_xml(body: bytes) -> tuple[list[Entry], str | None]:
    """Entries of a DAV:multistatus document, or a problem in words."""
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as exc:
        return [], f"MB-MULTI-3: not well-formed XML: {exc}"
    if _local(root.tag) != (DAV_NS, "multistatus"):
        return [], f"MB-MULTI-3: root element is {root.tag!r}, not DAV:multistatus"
    out: list[Entry] = []
    for resp in root:
        if _local(resp.tag) != (DAV_NS, "response"):
            continue
        index = status = None
        outcome = cid = href = None
        fields: list[tuple[str, str]] = []
        data = b""
        seen: list[tuple[str, str]] = []
        for child in resp:
            ns, name = _local(child.tag)
            seen.append((ns, name))
            text = child.text or ""
            if (ns, name) == (DAV_NS, "status"):
                # MB-MULTI-6: "`DAV:status` (`HTTP/1.1 NNN`, a space and a reason phrase, which
                # may be empty for a code that has none)"; the prose: "a server that knows no
                # phrase for a code, such as 299, writes `HTTP/1.1 299 ` with nothing after the
                # space". The text is read as written: the space is never optional.
                m = STATUS_LINE.fullmatch(text)
                if not m:
                    return [], (
                        f"MB-MULTI-6: DAV:status {text!r} is not 'HTTP/1.1 NNN', a space and a "
                        "reason phrase (empty or not)"
                    )
                status = int(m.group(1))
            elif (ns, name) == (DAV_NS, "href"):
                href = text
            elif ns == MB_NS and name == "index":
                # MB-MULTI-6: "`mb:index` with the part index", a number in decimal digits;
                # XML white space (S: SP, HTAB, CR, LF) around it is no part of it. A digit of
                # another script is no decimal digit of the index.
                digits = text.strip(XML_SPACE)
                index = decimal(digits)
            elif ns == MB_NS and name == "outcome":
                # "`mb:outcome` when the part has a `Batch-Outcome`": the field's value, a
                # case-sensitive token (spec 3.4), XML white space around it aside.
                outcome = text.strip(XML_SPACE)
            elif ns == MB_NS and name == "content-id":
                cid = text
            elif ns == MB_NS and name == "header":
                fields.append((child.get("name", ""), text))
            elif ns == MB_NS and name == "body":
                # MB-MULTI-6: "one `mb:body` element with the attribute `encoding="base64"`
                # holding the body in base64 (RFC 4648 §4, no line breaks)".
                if child.get("encoding") != "base64":
                    return [], (
                        f"MB-MULTI-6: mb:body has encoding {child.get('encoding')!r}, not 'base64'"
                    )
                # "no line breaks" holds at the ends too: a trailing newline, as MIME encoders
                # write, is a line break.
                try:
                    data = decode_base64(text)
                except ValueError as exc:
                    return [], f"MB-MULTI-6: mb:body {text[:40]!r} is {exc}"
        problem = (
            _status_presence(len(out), status, outcome)
            or _elements_present(len(out), outcome, seen)
            or _abort_names_no_target(len(out), outcome, seen, href)
        )
        if problem is not None:
            return [], problem
        out.append(Entry(index, status, outcome, cid, tuple(fields), data, href))
    return out, None


#: MB-MULTI-6's status line: "HTTP/1.1", the code, a space, a reason phrase that may be empty.
#: RFC 4918 §14.28 makes DAV:status a status-line; its reason-phrase (RFC 9112 §4: HTAB, SP,
#: VCHAR, obs-text) holds no control character, CR and LF included.
STATUS_LINE = re.compile(r"HTTP/1\.1 ([0-9]{3}) [^\x00-\x08\x0a-\x1f\x7f]*")
#: XML 1.0 §2.3: S ::= (#x20 | #x9 | #xD | #xA)+.
XML_SPACE = " \t\r\n"
#: The elements MB-MULTI-6 gives every part's DAV:response exactly once: "`DAV:href` with the
#: resolved target", "`mb:index` with the part index", "`mb:content-id` with the URI
#: reference", "one `mb:body` element". The abort report answers no part: it has no target
#: and no Content-Id (spec 5.4), so only its index and body are asked of it.
ONCE_PER_PART = ((DAV_NS, "href"), (MB_NS, "index"), (MB_NS, "content-id"), (MB_NS, "body"))
ONCE_PER_ABORT = ((MB_NS, "index"), (MB_NS, "body"))


def _elements_present(i: int, outcome: str | None, seen: list[tuple[str, str]]) -> str | None:
    """Why response `i` lacks or repeats an element MB-MULTI-6 gives it once, or None.

    The rule is the same for every kind of part: one that ran, a rolled-back one and a skipped
    one alike ("describe each part with these elements"); only DAV:status follows whether it ran.
    """
    wanted = ONCE_PER_ABORT if outcome == "aborted" else ONCE_PER_PART
    for ns, name in wanted:
        count = seen.count((ns, name))
        if count != 1:
            prefix = "DAV" if ns == DAV_NS else "mb"
            kind = outcome or "ran"
            return (
                f"MB-MULTI-6: response {i} ({kind}) has {count} {prefix}:{name} elements, not one"
            )
    return None


def _abort_names_no_target(
    i: int, outcome: str | None, seen: list[tuple[str, str]], href: str | None
) -> str | None:
    """Why abort report `i` names a target, or None.

    Spec 6.3, of the XML form (MB-MULTI-6): "It names no part's target: it has no
    `mb:content-id`, and either no `DAV:href` or an empty one (`<D:href/>` ...). A client reads
    neither, and a check accepts both." XML white space alone is an empty href's text.
    """
    if outcome != "aborted":
        return None
    if (MB_NS, "content-id") in seen:
        return f"MB-MULTI-6: response {i} (aborted) has an mb:content-id; the abort report has none"
    if seen.count((DAV_NS, "href")) > 1 or (href or "").strip(XML_SPACE):
        return (
            f"MB-MULTI-6: response {i} (aborted) names the target {href!r} in DAV:href; the "
            "abort report has no DAV:href or an empty one"
        )
    return None


def _status_presence(i: int, status: int | None, outcome: str | None) -> str | None:
    """Why response `i`'s DAV:status breaks MB-MULTI-6, or None.

    MB-MULTI-6: "`DAV:status` ... exactly when the part ran". A skipped part and the abort
    report did not run; a part with no outcome, and a rolled-back one (MB-PROC-8: "with its
    real status"), did. An outcome token the spec does not define (MB-RESP-8) is not judged.
    """
    if outcome in NOT_RUN and status is not None:
        return f"MB-MULTI-6: response {i} is {outcome} but has DAV:status {status}"
    if outcome in RAN and status is None:
        return f"MB-MULTI-6: response {i} ran ({outcome or 'no outcome'}) but has no DAV:status"
    return None


def _json_body(item: dict[str, object]) -> tuple[bytes, str | None]:
    """The octets of one JSON entry's body, or why its body members break MB-MULTI-7.

    MB-MULTI-7: "carry each part's body in exactly one member: in `body`, as a JSON string,
    when the body octets are valid UTF-8 (an empty body included, as `""`); otherwise in
    `body_base64`, as base64 (RFC 4648 §4, no line breaks)". The choice follows the octets
    alone, never the part's Content-Type, so it is judged here, where every check that reads
    the JSON form reads it.
    """
    members = [k for k in ("body", "body_base64") if k in item]
    if len(members) != 1:
        return b"", f"MB-MULTI-7: body members {members}, not exactly one"
    value = item[members[0]]
    if not isinstance(value, str):
        return b"", f"MB-MULTI-7: {members[0]} is {value!r}, not a string"
    if members[0] == "body":
        try:
            return value.encode("utf-8"), None
        except UnicodeEncodeError:
            return b"", f"MB-MULTI-7: body holds a lone surrogate, not UTF-8 octets: {value[:40]!r}"
    try:
        data = decode_base64(value)
    except ValueError as exc:
        return b"", f"MB-MULTI-7: body_base64 {value[:40]!r} is {exc}"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data, None
    return data, f"MB-MULTI-7: body_base64 carries valid UTF-8 {data[:40]!r}, which goes in body"


def entries_from_json(body: bytes) -> tuple[list[Entry], str | None]:
    """Entries of a JSON multistatus document, or a problem in words."""
    try:
        doc = loads_json_text(body)
    except ValueError as exc:
        return [], f"MB-MULTI-4: not a JSON text: {exc}"
    # MB-MULTI-4: the JSON form "validates against spec/schemas/multistatus.schema.json"; the
    # schema ties `status` to null for the skipped and aborted outcomes.
    problem = validate_against("multistatus.schema.json", doc)
    if problem is not None:
        return [], f"MB-MULTI-4: {problem}"
    out = []
    for i, item in enumerate(doc["responses"]):
        data, problem = _json_body(item)
        if problem is not None:
            # The requirement stays at the start, where `broken_by` reads it: MB-MULTI-7.
            requirement, _, rest = problem.partition(": ")
            return [], f"{requirement}: entry {i}: {rest}"
        out.append(
            Entry(
                item["index"],
                item["status"],
                item["outcome"],
                item["content_id"],
                tuple((n, v) for n, v in item["headers"]),
                data,
                item["href"],
            )
        )
    return out, None


#: A 207 form's reader: its entries, or a problem in words.
Reader = Callable[[bytes], tuple[list[Entry], str | None]]
#: The 207 forms: (the profile that offers it, the Accept value that asks for it, its reader,
#: the requirement its document breaks when the reader refuses it).
MULTISTATUS_FORMS: tuple[tuple[str, str, Reader, str], ...] = (
    ("xml", XML_FORM, entries_from_xml, "MB-MULTI-6"),
    ("json", JSON_FORM, entries_from_json, "MB-MULTI-4"),
)


#: The requirement that gives each 207 form one entry per part: MB-MULTI-3 "one response per
#: part, in order" for XML, MB-MULTI-4 "one entry per request part, in request order" for JSON.
#: A form with fewer or more entries than parts breaks it, whatever kind the missing entry is.
ENTRY_COUNT_REQUIREMENT = {XML_FORM: "MB-MULTI-3", JSON_FORM: "MB-MULTI-4"}


#: The requirement that says what each 207 form writes for a part: MB-MULTI-6 for the XML
#: form ("`DAV:status` ... exactly when the part ran; `mb:index` with the part index;
#: `mb:content-id` with the URI reference between the angle brackets ...; `mb:outcome` when the
#: part has a `Batch-Outcome`"), MB-MULTI-4 for the JSON form, whose schema gives each entry's
#: `index`, `content_id`, `status` ("The sub-response status") and `outcome` ("The
#: Batch-Outcome: null when the sub-request ran normally").
FORM_REQUIREMENT = {XML_FORM: "MB-MULTI-6", JSON_FORM: "MB-MULTI-4"}

#: The requirement whose sentence makes each form carry a part's body octets: MB-RESP-4 "its
#: content as the part body" in multipart/mixed; MB-MULTI-6 "one `mb:body` element ... holding
#: the body in base64" in the XML form; MB-MULTI-7 `body` "when the body octets are valid UTF-8
#: ... otherwise in `body_base64`" in the JSON form.
BODY_REQUIREMENT = {"multipart/mixed": "MB-RESP-4", XML_FORM: "MB-MULTI-6", JSON_FORM: "MB-MULTI-7"}


def entry_requirement(media: str, decided_right: bool, fallback: str) -> str:
    """The requirement an entry of form `media` breaks when its status or outcome is not the
    one the spec gives the part.

    When the multipart form of the same batch carries what the spec gives (`decided_right`),
    the server decided the part's fate right and wrote the 207 form wrong: the form's own
    requirement (FORM_REQUIREMENT). Otherwise, and for the multipart form, `fallback`, the
    requirement that fixes the status or outcome itself (MB-PROC-6, MB-PROC-8, ...).
    """
    if decided_right and media in FORM_REQUIREMENT:
        return FORM_REQUIREMENT[media]
    return fallback


def lists_references(headers: Iterable[tuple[str, str]]) -> bool:
    """Whether the batch request fields `headers` ask for the references mode (spec 7.7: its
    `Batch-Mode` list, read as RFC 9110 §5.6.1 reads any list, names `references`)."""
    return any(
        mode.strip().lower() == "references"
        for name, value in headers
        if name.lower() == "batch-mode"
        for mode in value.split(",")
    )


def expect_form_chosen(judge: Judge, accept: str, resp: Response) -> None:
    """A batch sent with `Accept` naming the one 207 form `accept` is not answered 200 in
    multipart/mixed, which that Accept does not admit (MB-MULTI-1)."""
    if resp.status == 200 and resp.media_type == "multipart/mixed":
        # MB-MULTI-1: "choose the representation of a batch result by the request's `Accept`
        # field"; multipart/mixed is the choice only when Accept is absent or empty or rates
        # it at least as high as any other form offered.
        judge.expect_true(
            f"{accept} form chosen",
            False,
            "200 multipart/mixed",
            f"{accept}, the one form Accept names",
            "MB-MULTI-1",
        )


def answers_in_every_form(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    headers: tuple[tuple[str, str], ...] = (),
    *,
    refused: str | None = None,
) -> list[tuple[str, Response, list[Entry]]]:
    """(media type, response, entries) of `subs` sent once per form the target declares.

    multipart/mixed comes first and is read by the strict validator (MB-RESP-1..3); each 207
    form is required to be a 207 (MB-MULTI-2) its reader accepts, with one entry per part, each
    entry with its index, an href and the multipart form's Content-Id echo.
    Sending the batch again for each form means a writing batch writes once per form: the
    caller's state rules must allow that. With `refused`, an answer of 400 or above in any
    form is a fault under that requirement: the one that makes the batch a processed one.
    """
    first = ctx.batch(judge, subs, headers=headers)
    if refused is not None and first.status >= 400:
        judge.require("top-level status", first.status, {200}, refused)
    env = expect_processed(ctx, judge, first, [s.content_id for s in subs])
    out = [("multipart/mixed", first, entries_from_multipart(env))]
    for profile, accept, reader, requirement in MULTISTATUS_FORMS:
        if not ctx.target.claims(profile):
            continue
        resp = ctx.batch(judge, subs, headers=(*headers, ("Accept", accept)))
        if refused is not None and resp.status >= 400:
            judge.require(f"{accept} status", resp.status, {207}, refused)
        entries, problem = reader(resp.body)
        if 500 <= resp.status < 600 and problem is None and entries:
            # MB-STATUS-5: "choose the top-level status of a batch without regard to the
            # statuses of its parts ... the batch is still answered as processed": a 5xx
            # carrying the form's entries is a processed batch answered as a failed one.
            judge.require(f"{accept} status with its entries", resp.status, {207}, "MB-STATUS-5")
        expect_form_chosen(judge, accept, resp)
        judge.require(f"{accept} status", resp.status, {207}, "MB-STATUS-1")
        require_readable(judge, f"{accept} readable", problem, requirement)
        count = ENTRY_COUNT_REQUIREMENT[accept]
        judge.require(f"{accept} entry count", len(entries), {len(subs)}, count)
        _expect_entries_name_their_parts(
            judge, accept, requirement, subs, out[0][2], entries, lists_references(headers)
        )
        out.append((accept, resp, entries))
    return out


def _expect_entries_name_their_parts(
    judge: Judge,
    accept: str,
    requirement: str,
    subs: list[SubRequest],
    base: list[Entry],
    entries: list[Entry],
    references: bool,
) -> None:
    """Judge what names each 207 entry's part, whatever kind of entry it is (ran, failed,
    skipped, rolled-back): its index, its href and its Content-Id echo (in a batch that asks
    for `references`, the echo of a part whose target holds `$(` is left to the caller)."""
    for i, (entry, want) in enumerate(zip(entries, base, strict=False)):
        # MB-MULTI-3: each response "carrying its part index"; MB-MULTI-6: "`mb:index` with
        # the part index"; MB-MULTI-4: "one entry per request part, in request order".
        judge.expect(f"{accept} entry {i} index", entry.index, {i}, requirement)
        # MB-MULTI-6: "`DAV:href` with the resolved target"; the JSON schema's href is "null
        # only for an aborted entry".
        judge.expect_true(
            f"{accept} entry {i} href",
            entry.href is not None,
            repr(entry.href),
            "the part's resolved target",
            requirement,
        )
        if references and "$(" in subs[i].target:
            continue  # a reference resolves afresh in each batch sent
        # MB-MULTI-6: "`mb:content-id` with the URI reference between the angle brackets of the
        # request part's `Content-Id`"; the JSON schema's content_id: "The request part's
        # Content-Id value between the angle brackets, as written". MB-MULTI-5 makes it the
        # multipart form's echo too ("its `Content-Id` echo").
        judge.expect(
            f"{accept} entry {i} content-id", entry.content_id, {subs[i].target}, requirement
        )
        judge.expect(
            f"{accept} entry {i} content-id as in multipart/mixed",
            entry.content_id,
            {want.content_id},
            "MB-MULTI-5",
        )
