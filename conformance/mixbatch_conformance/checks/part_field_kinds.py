"""Part fields of every kind reach the resource as the same fields alone (spec 3.2, MB-PART-8).

Theory of operation: MB-PART-8 makes "a request part's header fields other than `Http-Method`
and `Content-Id`" the sub-request's header fields, "in order". No other field is set apart:
a part's `Content-*` fields are not MIME metadata of the body part that a receiver may keep for
itself, a field whose value is empty or only whitespace is still a field line (RFC 9110 §5.5:
`field-value = *field-content`, which may be empty), a value may be long and hold obs-text
octets, and a name may repeat with other fields between its lines. A receiver that drops any of
these, or takes a name that only resembles a control field for one, builds another request
than the part. Each kind goes to the `echo` in a part and alone, compared as spec 3.2.4 says
(`_shared.alone`); the request alone is sent with the whitespace around each value taken off,
since RFC 9110 §5.5 makes it no part of the value.

- `part-field-kinds-reach-resource`: Content-Language, Content-Location, Content-Disposition
  and Content-Description on GET and PUT parts; empty values and values of whitespace only,
  alone and between other fields; a value of several kilobytes; obs-text octets, and values
  that open and end with octets a Unicode reader takes for whitespace (a no-break space, a next
  line, an ideographic space, an en quad, a byte order mark, in UTF-8 and as 0xA0 and 0x85
  alone), which are no optional whitespace (RFC 9110 §5.6.3: `OWS = *( SP / HTAB )`) and so
  part of each value; one name on lines apart; and names that resemble the control fields
  (`Http-Method-Override`, `Content-Ids`, `X-Content-Id`, `X-Http-Method`).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Content fields other than Content-Type and Content-Length (RFC 9110 §8, RFC 6266, RFC 2045
#: §8), which MIME would read as the body part's own metadata and MB-PART-8 passes on.
CONTENT_FIELDS = (
    ("Content-Language", "de, en-GB"),
    ("Content-Location", "/mb-suite/elsewhere?x=1"),
    ("Content-Disposition", 'attachment; filename="mb-suite.txt"'),
    ("Content-Description", "mb-suite part"),
)
#: A value length well past a typical 1 KiB line buffer and below the 8 KiB many servers
#: allow a whole header section.
LONG_VALUE_OCTETS = 4000
#: Octets 0x80-0xFF a field value may hold as obs-text (RFC 9110 §5.5), as latin-1 characters.
OBS_TEXT = "caf\u00e9 \u00ff\u0080"
#: Values that open and end with obs-text octets that are whitespace to a Unicode reader: a
#: no-break space, a next line, an ideographic space, an en quad and a byte order mark in UTF-8,
#: and 0xA0 and 0x85 alone (Latin-1). RFC 9110 §5.6.3 makes only SP and HTAB optional whitespace,
#: so these octets are part of each value.
UNICODE_SPACE_EDGES = (
    ("X-Mb-Edge-C2-A0", "\xc2\xa0a\xc2\xa0"),
    ("X-Mb-Edge-C2-85", "\xc2\x85b\xc2\x85"),
    ("X-Mb-Edge-E3-80-80", "\xe3\x80\x80c\xe3\x80\x80"),
    ("X-Mb-Edge-E2-80-80", "\xe2\x80\x80d\xe2\x80\x80"),
    ("X-Mb-Edge-EF-BB-BF", "\xef\xbb\xbfe\xef\xbb\xbf"),
    ("X-Mb-Edge-A0", "\xa0f\xa0"),
    ("X-Mb-Edge-85", "\x85g\x85"),
)
#: Names that resemble the control fields and are not them (a name is matched whole).
CONTROL_LOOKALIKES = (
    ("Http-Method-Override", "DELETE"),
    ("X-Http-Method", "PUT"),
    ("Content-Ids", "<mb-suite-other>"),
    ("X-Content-Id", "<mb-suite-other>"),
)


def _kinds() -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """(label, field lines) for each kind of field a part may carry."""
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [
        (f"content field {n}", ((n, v),)) for n, v in CONTENT_FIELDS
    ]
    out += [
        ("all content fields", CONTENT_FIELDS),
        ("an empty value", (("X-Mb-Empty", ""),)),
        ("an empty value between fields", (("X-Mb-A", "1"), ("X-Mb-Empty", ""), ("X-Mb-B", "2"))),
        ("a value of whitespace only", (("X-Mb-Blank", " \t "),)),
        ("an empty Accept-Language", (("Accept-Language", ""),)),
        ("a long value", (("X-Mb-Long", "v" * LONG_VALUE_OCTETS),)),
        ("obs-text octets", (("X-Mb-Obs-Text", OBS_TEXT),)),
        ("values edged by Unicode whitespace", UNICODE_SPACE_EDGES),
        (
            "one name on lines apart",
            (("X-Mb-Twice", "1"), ("X-Mb-Between", "b"), ("x-mb-twice", "2")),
        ),
        ("names like the control fields", CONTROL_LOOKALIKES),
    ]
    return out


def _without_ows(sub: SubRequest) -> SubRequest:
    """The same request alone: whitespace around a value is no part of it (RFC 9110 §5.5)."""
    fields = tuple((n, v.strip(" \t")) for n, v in sub.headers)
    return SubRequest(sub.method, sub.target, fields, sub.body, sub.content_length)


def _as_sent(content: bytes, fields: tuple[tuple[str, str], ...]) -> bool:
    """Whether the echo in `content` reports each of `fields` with its value as sent."""
    echo = read_echo(content)
    if echo is None:
        return False
    return all(echo.get_all(name) == [value] for name, value in fields)


@checker(
    "part-field-kinds-reach-resource",
    ("MB-PART-8", "MB-SUB-1"),
    "Content-Language, Content-Location, Content-Disposition and Content-Description, empty and whitespace-only values, a 4000-octet value, obs-text octets, values edged by octets a Unicode reader takes for whitespace, one name on lines apart and names resembling the control fields reach the echo from GET and PUT parts as the same request alone receives them.",
    state=State.READ_ONLY,
)
def part_field_kinds_reach_resource(ctx: Context, judge: Judge) -> None:
    where = ctx.path(ctx.resource(judge, "echo"))
    labels: list[str] = []
    subs: list[SubRequest] = []
    for i, (label, fields) in enumerate(_kinds(), start=1):
        labels.append(f"GET, {label}")
        subs.append(SubRequest("GET", f"{where}?mb-kind={i}", fields))
    # The content fields describe content, so they go on a part with a body too.
    put_fields = (("Content-Type", "text/plain"), *CONTENT_FIELDS)
    labels.append("PUT, content fields")
    subs.append(SubRequest("PUT", f"{where}?mb-kind=put", put_fields, b"mb-suite content"))
    alone = [ctx.alone(judge, _without_ows(s)) for s in subs]
    resp = ctx.batch(judge, subs)
    # MB-PART-11 refuses only a line that is not a valid field-line; each of these is one.
    judge.require("top-level status", resp.status, {200}, "MB-PART-8")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-8")
    for i, (label, sub, single) in enumerate(zip(labels, subs, alone, strict=True)):
        if sub.headers == UNICODE_SPACE_EDGES and not _as_sent(single.body, sub.headers):
            # The server's HTTP stack changed these values alone (a Unicode trim, which RFC
            # 9110 §5.6.3 does not make): the part is held to the values as sent instead.
            judge.note(f"part {i} ({label}): alone the echo did not report the values as sent")
            part_echo = read_echo(env.parts[i].body) if part_status(env, i) == 200 else None
            judge.expect_true(
                f"part {i} ({label}): the values the echo received",
                part_echo is not None and _as_sent(env.parts[i].body, sub.headers),
                repr(part_echo.headers if part_echo else None)[:300],
                f"the values as sent: {sub.headers!r}",
                "MB-PART-8",
            )
            continue
        # MB-PART-8: "take a request part's header fields other than `Http-Method` and
        # `Content-Id` as the sub-request's header fields, in order".
        expect_same_as_alone(
            ctx,
            judge,
            f"part {i} ({label})",
            sub,
            (part_status(env, i), env.parts[i].fields, env.parts[i].body),
            (single.status, single.headers, single.body),
        )
