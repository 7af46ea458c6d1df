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
  (`Http-Method-Override`, `Content-Ids`, `X-Content-Id`, `X-Http-Method`) or a framing
  field (`Original-Content-Length`, `X-Content-Length`, `Content-Length-Range`); negotiation fields other than Accept
  (`Accept-Charset`, `Accept-Language`); and on parts
  with content, the fields a receiver is tempted to take for the part's own framing or MIME
  metadata: `Content-Length` between, before and after other fields on POST, PUT, PATCH and
  DELETE parts, as zero on POST, PUT and GET parts, and named in lower and upper case;
  `Content-Type` with several and quoted parameters; `Content-Encoding` with content in that
  coding; `Content-Range`; the digest fields (`Content-MD5`, `Digest`, `Content-Digest`,
  `Repr-Digest`, `Want-Content-Digest`); MIME's `MIME-Version`, `Content-Disposition` and
  `Content-Base`; the method-override fields (`X-HTTP-Method-Override`, `X-Method-Override`,
  `X-HTTP-Method`) on a POST part; content fields named in upper case, repeated with another field between
  their lines, and with empty values. `Expect` is left out: MB-PART-9 forbids it in a part.

Spec 3.2.4 leaves `Content-Length` out of the comparison with the same request alone, and
MB-TEST-2 lets the echo list it or not; `_shared.alone.expect_declared_length` learns from the
request alone whether the echo reports a received `Content-Length`, and holds the part to it.
"""

from __future__ import annotations

import base64
import gzip
import hashlib

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

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

#: Proactive negotiation fields (RFC 9110 §12.5) other than Accept, which a receiver may take
#: for the batch's own negotiation rather than the sub-request's.
NEGOTIATION_FIELDS = (
    ("Accept-Charset", "utf-8, iso-8859-1;q=0.5"),
    ("Accept-Language", "de, en;q=0.7"),
)
#: Names that resemble a framing field and are not one (a name is matched whole).
FRAMING_LOOKALIKES = (
    ("Original-Content-Length", "12"),
    ("X-Content-Length", "12"),
    ("Content-Length-Range", "0-9"),
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
        ("negotiation fields", NEGOTIATION_FIELDS),
        ("names like the framing fields", FRAMING_LOOKALIKES),
    ]
    return out


#: The content of the parts with content: text, so the echo shows it as `body`.
CONTENT = b"mb-suite part content"
#: JSON content, for the parts typed as JSON.
JSON_CONTENT = b'{"mb":"suite"}'
#: CONTENT in the gzip coding, with no modification time, so alone and in a part alike.
GZIP_CONTENT = gzip.compress(CONTENT, mtime=0)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _length(content: bytes) -> tuple[str, str]:
    return ("Content-Length", str(len(content)))


#: The digest fields of CONTENT: RFC 1864's Content-MD5, RFC 3230's Digest and RFC 9530's
#: Content-Digest, Repr-Digest and Want-Content-Digest, each with a value that holds for it.
DIGEST_FIELDS = (
    ("Content-MD5", _b64(hashlib.md5(CONTENT, usedforsecurity=False).digest())),
    ("Digest", "SHA-256=" + _b64(hashlib.sha256(CONTENT).digest())),
    ("Content-Digest", f"sha-256=:{_b64(hashlib.sha256(CONTENT).digest())}:"),
    ("Repr-Digest", f"sha-256=:{_b64(hashlib.sha256(CONTENT).digest())}:"),
    ("Want-Content-Digest", "sha-256=1"),
)
#: Fields some frameworks read as the request's real method on a POST: a part's method is its
#: Http-Method (MB-PART-8), so they are ordinary fields, the method the same as alone.
METHOD_OVERRIDES = (
    ("X-HTTP-Method-Override", "PUT"),
    ("X-Method-Override", "PUT"),
    ("X-HTTP-Method", "PUT"),
)
TEXT = ("Content-Type", "text/plain")
AFTER = ("X-Mb-After", "1")


def _framing_kinds(where: str) -> list[tuple[str, SubRequest]]:
    """(label, part to the echo at `where`) for the fields a receiver is tempted to keep as the
    part's own framing or MIME metadata; each part names its own `Content-Length` where it is
    written, or leaves it to `compose_batch`, which writes it after the other fields."""
    n = str(len(CONTENT))
    own = [
        ("POST, Content-Length between fields", "POST", (TEXT, _length(CONTENT), AFTER), CONTENT),
        ("PUT, Content-Length first", "PUT", (_length(CONTENT), TEXT), CONTENT),
        (
            "PATCH, Content-Length last",
            "PATCH",
            (("Content-Type", "application/merge-patch+json"), _length(JSON_CONTENT)),
            JSON_CONTENT,
        ),
        ("DELETE with content, Content-Length", "DELETE", (_length(CONTENT), AFTER), CONTENT),
        ("POST, Content-Length: 0", "POST", (TEXT, ("Content-Length", "0")), b""),
        ("PUT, Content-Length: 0", "PUT", (("Content-Length", "0"), AFTER), b""),
        ("GET, Content-Length: 0", "GET", (("Content-Length", "0"), AFTER), b""),
        ("POST, content-length in lower case", "POST", (("content-length", n), TEXT), CONTENT),
        ("PUT, CONTENT-LENGTH in upper case", "PUT", (TEXT, ("CONTENT-LENGTH", n)), CONTENT),
    ]
    written = [
        (
            "POST, Content-Type with parameters",
            "POST",
            (("Content-Type", 'text/plain; charset=utf-8; format=flowed; delsp="no"'),),
            CONTENT,
        ),
        (
            "POST, content-type in lower case with a quoted parameter",
            "POST",
            (("content-type", 'application/json;charset="utf-8"'),),
            JSON_CONTENT,
        ),
        (
            "POST, Content-Encoding: gzip",
            "POST",
            (TEXT, ("Content-Encoding", "gzip")),
            GZIP_CONTENT,
        ),
        (
            "PUT, Content-Range",
            "PUT",
            (TEXT, ("Content-Range", f"bytes 0-{int(n) - 1}/{n}")),
            CONTENT,
        ),
        ("POST, digest fields", "POST", (TEXT, *DIGEST_FIELDS), CONTENT),
        ("POST, method-override fields", "POST", (TEXT, *METHOD_OVERRIDES), CONTENT),
        (
            "POST, MIME header fields",
            "POST",
            (
                ("MIME-Version", "1.0"),
                TEXT,
                ("Content-Disposition", 'form-data; name="mb"; filename="mb-suite.txt"'),
                ("Content-Base", "/mb-suite/"),
            ),
            CONTENT,
        ),
        (
            "PATCH, content fields in upper case",
            "PATCH",
            (
                ("CONTENT-TYPE", "text/plain"),
                ("CONTENT-LANGUAGE", "de"),
                ("CONTENT-LOCATION", "/mb-suite/elsewhere"),
                ("MIME-VERSION", "1.0"),
            ),
            CONTENT,
        ),
        (
            "POST, content fields on lines apart",
            "POST",
            (
                ("Content-Language", "de"),
                TEXT,
                ("Content-Language", "en-GB"),
                DIGEST_FIELDS[1],
                ("Digest", "MD5=" + DIGEST_FIELDS[0][1]),
            ),
            CONTENT,
        ),
        (
            "POST, content fields with empty values",
            "POST",
            (TEXT, ("Content-Language", ""), ("Content-Encoding", ""), ("Content-Location", "")),
            CONTENT,
        ),
    ]
    kinds = [(label, m, f, body, False) for label, m, f, body in own]
    kinds += [(label, m, f, body, True) for label, m, f, body in written]
    return [
        (label, SubRequest(m, f"{where}?mb-framing={i}", f, body, declared))
        for i, (label, m, f, body, declared) in enumerate(kinds, start=1)
    ]


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
    "Content-Language, Content-Location, Content-Disposition and Content-Description, empty and whitespace-only values, a 4000-octet value, obs-text octets, values edged by octets a Unicode reader takes for whitespace, one name on lines apart, names resembling the control or framing fields, Accept-Charset and Accept-Language reach the echo from GET and PUT parts, and Content-Length (anywhere among the fields, zero, in any case) on POST, PUT, PATCH, DELETE and GET parts, Content-Type with parameters, Content-Encoding, Content-Range, the digest fields, the method-override fields and MIME's fields (in upper case, repeated, empty) from parts with content, each as the same request alone receives it.",
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
    for label, sub in _framing_kinds(where):
        labels.append(label)
        subs.append(sub)
    alone = [ctx.alone(judge, _without_ows(s)) for s in subs]
    # As few batches as a published max_parts allows (MB-LIMIT-3).
    first = 0
    for run in within_max_parts(ctx, judge, list(zip(labels, subs, alone, strict=True))):
        _judge_batch(ctx, judge, run, first)
        first += len(run)


def _judge_batch(
    ctx: Context, judge: Judge, run: list[tuple[str, SubRequest, Response]], first: int
) -> None:
    """One batch of the parts in `run` (each with its label and its answer alone), the first of
    them part `first` of the check."""
    subs = [sub for _, sub, _ in run]
    resp = ctx.batch(judge, subs)
    # MB-PART-11 refuses only a line that is not a valid field-line; each of these is one.
    judge.require("top-level status", resp.status, {200}, "MB-PART-8")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-8")
    for k, (label, sub, single) in enumerate(run):
        i = first + k
        if sub.headers == UNICODE_SPACE_EDGES and not _as_sent(single.body, sub.headers):
            # The server's HTTP stack changed these values alone (a Unicode trim, which RFC
            # 9110 §5.6.3 does not make): the part is held to the values as sent instead.
            judge.note(f"part {i} ({label}): alone the echo did not report the values as sent")
            part_echo = read_echo(env.parts[k].body) if part_status(env, k) == 200 else None
            judge.expect_true(
                f"part {i} ({label}): the values the echo received",
                part_echo is not None and _as_sent(env.parts[k].body, sub.headers),
                repr(part_echo.headers if part_echo else None)[:300],
                f"the values as sent: {sub.headers!r}",
                "MB-PART-8",
            )
            continue
        # MB-PART-8: "take a request part's header fields other than `Http-Method` and
        # `Content-Id` as the sub-request's header fields, in order"; a part's Content-Length
        # among them (`_shared.alone.expect_declared_length`).
        expect_same_as_alone(
            ctx,
            judge,
            f"part {i} ({label})",
            sub,
            (part_status(env, k), env.parts[k].fields, env.parts[k].body),
            (single.status, single.headers, single.body),
        )
