"""Planted refusal rules applied one step off their edge, too wide (a valid neighbour of a refused
value refused) or too narrow (a refused neighbour of a valid value run).

- Media type and boundary (MB-WIRE-2, MB-WIRE-4): a multipart subtype that `mixed` begins with,
  or the media ranges `multipart/*` and `*/*`, taken for multipart/mixed; a quoted boundary's
  length left unchecked, or counted with its quoted-pairs; a parameter whose name holds
  `boundar` taken for the boundary, or the boundary found as a substring after such a
  parameter; the whitespace before the next `;` kept in the boundary; a quoted boundary's
  characters left unchecked; a boundary's last character held to letters, digits and the hyphen.
- Part lengths (MB-WIRE-17, MB-WIRE-20): a Content-Length of a part without its empty line left
  unchecked, or a zero one refused there; leading whitespace before the digits refused; Unicode
  digits read as digits, from UTF-8 or one octet to a character; a field whose name holds
  `content-length` counted as one.
- Delimiter lines (MB-WIRE-19): a body line holding the dash-boundary less its last character,
  or the boundary after fewer hyphens, taken for a delimiter line; one hyphen after a delimiter
  taken for transport padding.
- Part fields (MB-PART-2, MB-PART-4, MB-PART-8, MB-SUB-3, MB-SUB-8): a part without any field
  line skipped as padding; leading whitespace before
  the method refused; a method holding a token delimiter or a non-ASCII letter run; whitespace
  inside a Content-Id's brackets trimmed, for a path and for the asterisk; the asterisk and the
  forbidden methods looked up under the field name's canonical case, or compared with the
  whitespace around them; the text `Http-Method:` counted wherever it stands; `Proxy-*`
  fields refused beside Proxy-Connection.
- Nesting (MB-SUB-4): the endpoint's path found at the end of a longer path or in a query, or a
  path that begins it taken for it; only the first percent-encoded octet of a target decoded,
  or a last one left encoded.
- References (MB-PROC-19): `$$(` read as a reference, and references in part content validated.
- Statuses (MB-STATUS-2): a batch refused for a forbidden part field answered 501.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Pred,
    RespEdit,
    accepts,
    boundary_of,
    edit_problem,
    header_has,
    is_batch,
    parts_of,
    problem_doc,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: bchars (RFC 2046 §5.1.1) other than letters and digits.
_BCHARS_SPECIALS = "'()+_,-./:=? "
#: The delimiters RFC 9110 §5.6.2 keeps out of a token.
_TOKEN_DELIMITERS = '"(),/:;<=>?@[\\]{}'
_QUOTED_BOUNDARY = re.compile(r'(?i)(?:^|;)[ \t]*boundary="((?:[^"\\]|\\.)*)"')
_PARAMETER_NAMES = re.compile(r";[ \t]*([^=; \t]+)[ \t]*=")


def _ctype(req: RelayRequest) -> str:
    return req.get("Content-Type") or ""


def _quoted_boundary(req: RelayRequest) -> tuple[str, str] | None:
    """(as written between the quotes, unquoted) of the batch's quoted boundary, if it has one."""
    m = _QUOTED_BOUNDARY.search(_ctype(req))
    return None if m is None else (m.group(1), re.sub(r"\\(.)", r"\1", m.group(1)))


def _parameter_names(req: RelayRequest) -> list[str]:
    return [n.lower() for n in _PARAMETER_NAMES.findall(_ctype(req))]


def _lines(pattern: bytes) -> Pred:
    """A batch whose content matches `pattern` (multiline, case-insensitive)."""
    rx = re.compile(b"(?im)" + pattern)
    return lambda req: is_batch(req) and rx.search(req.body) is not None


def _field_values(name: str) -> Callable[[RelayRequest], list[tuple[str, str]]]:
    """(name as written, raw value between the colon and the line end) of each line of the
    content that names `name` in any case."""
    rx = re.compile(rb"(?im)^(" + re.escape(name.encode()) + rb"):([^\r\n]*)\r?$")

    def values(req: RelayRequest) -> list[tuple[str, str]]:
        if not is_batch(req):
            return []
        return [(n.decode("latin-1"), v.decode("latin-1")) for n, v in rx.findall(req.body)]

    return values


_methods = _field_values("Http-Method")
_content_ids = _field_values("Content-Id")


def _with_boundary(test: Callable[[bytes], bool]) -> Pred:
    """A batch whose content `test` holds for, given its dash-boundary."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req) if is_batch(req) else None
        return b is not None and test(b"--" + b.encode("latin-1"))

    return pred


def _body_lines(test: Callable[[bytes, bytes], bool]) -> Pred:
    """A batch with a line after a CRLF for which `test(line, dash_boundary)` holds."""
    return lambda req: _with_boundary(
        lambda dash: any(test(line, dash) for line in req.body.split(b"\r\n")[1:])
    )(req)


def _prefix_line(line: bytes, dash: bytes) -> bool:
    return line.startswith(dash[:-1]) and not line.startswith(dash)


def _fewer_hyphens(line: bytes, dash: bytes) -> bool:
    return line.lstrip(b"-").startswith(dash[2:]) and not line.startswith(b"--")


def _part_targets(req: RelayRequest) -> list[str]:
    """The Content-Id references of a batch's parts, without their brackets."""
    return [v.strip(" \t")[1:-1] for _, v in _content_ids(req) if v.strip(" \t").startswith("<")]


def _paths(req: RelayRequest) -> list[tuple[str, str]]:
    """(path, query) of each part's reference."""
    out = []
    for ref in _part_targets(req):
        path, _, query = ref.partition("?")
        out.append((path, query))
    return out


def _endpoint_inside(req: RelayRequest) -> bool:
    """A part whose path ends in the endpoint's path after a segment's other characters, or
    whose query holds it."""
    endpoint = req.target.split("?", 1)[0]
    return any(
        (path.endswith(endpoint) and path != endpoint and not path.endswith(f"/{endpoint}"))
        or endpoint in query
        for path, query in _paths(req)
    )


def _endpoint_begun(req: RelayRequest) -> bool:
    """A part whose path, more than a slash, begins the endpoint's path."""
    endpoint = req.target.split("?", 1)[0]
    return any(
        len(path) > 1 and path != endpoint and endpoint.startswith(path) for path, _ in _paths(req)
    )


def _parts_with(test: Callable[[list[tuple[str, str]], bytes], bool]) -> Pred:
    """A batch with a part (its fields, body) that `test` holds for."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req) if is_batch(req) else None
        parts = parts_of(req.body, b) if b else None
        return any(test(list(f), body) for f, body in parts or [])

    return pred


def _control_text_elsewhere(fields: list[tuple[str, str]], body: bytes) -> bool:
    """The text `Http-Method:` in a field value or in the body, counted as a field line."""
    text = " ".join(v for _, v in fields).encode("latin-1") + body
    return re.search(rb"(?i)http-method:", text) is not None


def _references(req: RelayRequest) -> bool:
    return is_batch(req) and "references" in (req.get("Batch-Mode") or "")


def _parts_holding(test: Callable[[int, list[tuple[str, str]], bytes], bool]) -> Pred:
    """A references batch with a part (its index, fields, body) that `test` holds for."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req) if _references(req) else None
        parts = parts_of(req.body, b) if b else None
        return any(test(i, list(f), body) for i, (f, body) in enumerate(parts or []))

    return pred


def _indexes(text: str, pattern: str) -> list[int]:
    return [int(n) for n in re.findall(pattern, text)]


def _escaped_reference(i: int, fields: list[tuple[str, str]], _: bytes) -> bool:
    """`$$(N` read as a reference to a part N at or after this one."""
    return any(n >= i for _, v in fields for n in _indexes(v, r"\$\$\((\d+)"))


def _content_reference(i: int, _: list[tuple[str, str]], body: bytes) -> bool:
    """`$(N` in the content read as a reference to a part N at or after this one."""
    return any(n >= i for n in _indexes(body.decode("latin-1"), r"(?<!\$)\$\((\d+)"))


def _forbidden_method(value: str) -> bool:
    return value.strip(" \t") in ("CONNECT", "TRACE")


def _restatus(pred: Callable[[dict[str, Any]], bool], status: int) -> RespEdit:
    """A 400 whose problem document `pred` matches answered with `status` instead, the
    document's `status` member with it."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        doc = problem_doc(resp) if resp.status == 400 else None
        if doc is not None and pred(doc):
            edit_problem(resp, lambda d: d.update(status=status))
            resp.status = status

    return edit


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-2: "answer a batch request whose media type is not `multipart/mixed` with 415".
    P(
        "multipart-subtype-prefix-taken-for-mixed",
        "MB-WIRE-2 a multipart subtype that mixed begins with taken for mixed",
        ("reject-media-type-mixed-subtype-truncated",),
        on_response=accepts(header_has("Content-Type", r"(?i)^[ \t]*multipart/mi?x?e?[ \t]*;")),
    ),
    P(
        "multipart-media-range-taken-for-mixed",
        "MB-WIRE-2 the media range multipart/* taken for multipart/mixed",
        ("reject-media-type-multipart-wildcard",),
        on_response=accepts(header_has("Content-Type", r"(?i)^[ \t]*multipart/\*")),
    ),
    P(
        "any-media-range-taken-for-mixed",
        "MB-WIRE-2 the media range */* taken as admitting multipart/mixed",
        ("reject-media-type-any-range",),
        on_response=accepts(header_has("Content-Type", r"^[ \t]*\*/\*")),
    ),
    # MB-WIRE-4: 400 to a boundary "longer than 70 characters, or contains a character outside
    # `bchars`", and "MUST accept ... every boundary that MB-WIRE-3 allows".
    P(
        "quoted-boundary-length-unchecked",
        "MB-WIRE-4 a quoted boundary over 70 characters accepted",
        ("reject-boundary-seventy-one-quoted",),
        on_response=accepts(lambda req: len((_quoted_boundary(req) or ("", ""))[1]) > 70),
    ),
    P(
        "quoted-boundary-length-counted-as-written",
        "MB-WIRE-4 a quoted boundary's length counted with its quoted-pairs",
        ("accept-boundary-seventy-with-quoted-pair",),
        on_response=refuses(
            lambda req: len((_quoted_boundary(req) or ("", ""))[0]) > 70, 400, "MB-WIRE-4"
        ),
    ),
    P(
        "boundary-parameter-found-by-name-part",
        "MB-WIRE-4 a parameter whose name holds boundar taken for the missing boundary",
        (
            "reject-boundary-parameter-name-suffixed",
            "reject-boundary-parameter-name-prefixed",
            "reject-boundary-parameter-name-truncated",
        ),
        on_response=accepts(
            lambda req: (
                is_batch(req)
                and "boundary" not in _parameter_names(req)
                and any("boundar" in n for n in _parameter_names(req))
            )
        ),
    ),
    P(
        "boundary-found-as-substring",
        "MB-WIRE-4 the boundary read from the first parameter whose name ends in boundar or "
        "boundary, another boundary",
        ("accept-boundary-after-parameters-named-like-it",),
        on_response=refuses(
            lambda req: any("boundar" in n and n != "boundary" for n in _parameter_names(req)),
            400,
            "MB-WIRE-4",
        ),
    ),
    P(
        "boundary-keeps-whitespace-before-semicolon",
        "MB-WIRE-4 the whitespace between a boundary and the next semicolon kept in it",
        (
            "accept-boundary-then-ows-before-parameter",
            "accept-boundary-quoted-then-ows-before-parameter",
        ),
        on_response=refuses(
            header_has("Content-Type", r'(?i)boundary=("[^"]*"|[^;" \t]+)[ \t]+;'),
            400,
            "MB-WIRE-4",
        ),
    ),
    P(
        "quoted-boundary-last-character-unchecked",
        "MB-WIRE-4 a quoted boundary's last character outside bchars accepted (checked only for a space)",
        ("quoted-boundary-octets-outside-bchars-refused",),
        on_response=accepts(
            lambda req: (
                (q := _quoted_boundary(req)) is not None
                and q[1][-1:] != ""
                and not q[1][-1].isalnum()
                and q[1][-1] not in _BCHARS_SPECIALS
                and all(c.isalnum() or c in _BCHARS_SPECIALS for c in q[1][:-1])
            )
        ),
    ),
    P(
        "quoted-boundary-characters-unchecked",
        "MB-WIRE-4 a quoted boundary's characters outside bchars accepted",
        ("quoted-boundary-octets-outside-bchars-refused",),
        on_response=accepts(
            lambda req: any(
                not c.isalnum() and c not in _BCHARS_SPECIALS
                for c in (_quoted_boundary(req) or ("", ""))[1]
            )
        ),
    ),
    P(
        "boundary-last-character-alphanumeric",
        "MB-WIRE-4 a boundary ending in a bchar other than a letter, a digit or a hyphen refused",
        ("boundary-last-characters-accepted",),
        on_response=refuses(
            lambda req: is_batch(req) and (boundary_of(req) or "x")[-1] in "'()+_,./:=?",
            400,
            "MB-WIRE-4",
        ),
    ),
    # MB-WIRE-17: reject "a part whose `Content-Length` differs from the number of octets
    # before the next delimiter"; MB-WIRE-21: a part without its empty line has no body.
    P(
        "bodyless-part-length-unchecked",
        "MB-WIRE-17 a Content-Length over zero on a part without its empty line accepted",
        ("reject-content-length-one-without-empty-line",),
        on_response=accepts(_lines(rb"^content-length:[ \t]*0*[1-9][0-9]*[ \t]*\r\n\r\n--")),
    ),
    P(
        "bodyless-part-zero-length-refused",
        "MB-WIRE-17 a Content-Length of 0 on a part without its empty line refused",
        ("accept-content-length-zero-without-empty-line",),
        on_response=refuses(
            _lines(rb"^content-length:[ \t]*0+[ \t]*\r\n\r\n--"), 400, "MB-WIRE-17"
        ),
    ),
    # MB-WIRE-20: reject "a `Content-Length` whose value is not `1*DIGIT`", and no more.
    P(
        "content-length-leading-whitespace-refused",
        "MB-WIRE-20 whitespace before a part Content-Length's digits refused",
        ("accept-content-length-leading-ows",),
        on_response=refuses(_lines(rb"^content-length:(\t| {2,})"), 400, "MB-WIRE-20"),
    ),
    P(
        "content-length-unicode-digits-read",
        "MB-WIRE-20 a part Content-Length of Unicode digits read as its number",
        (
            "reject-content-length-fullwidth-digit",
            "reject-content-length-arabic-indic-digit",
            "reject-content-length-superscript-digit",
        ),
        on_response=accepts(
            lambda req: any(
                (t := v.encode("latin-1").decode("utf-8", "replace").strip(" \t")).isdigit()
                and not t.isascii()
                for _, v in _field_values("Content-Length")(req)
            )
        ),
    ),
    P(
        "content-length-latin1-digits-read",
        "MB-WIRE-20 a part Content-Length read one octet to a character and taken for digits "
        "the Unicode way (the superscripts 0xB2, 0xB3, 0xB9)",
        ("reject-content-length-superscript-octet",),
        on_response=accepts(
            lambda req: any(
                (t := v.strip(" \t")).isdigit() and not t.isascii()
                for _, v in _field_values("Content-Length")(req)
            )
        ),
    ),
    P(
        "content-length-lookalike-fields-counted",
        "MB-WIRE-20 a part field whose name holds Content-Length counted as a second one",
        ("accept-content-length-beside-lookalike-fields",),
        on_response=refuses(
            _lines(rb"^(x-content-length|content-lengths|original-content-length):"),
            400,
            "MB-WIRE-20",
        ),
    ),
    # MB-WIRE-19: "a line that starts with the dash-boundary is a delimiter line and must be
    # exactly that"; other lines are content.
    P(
        "delimiter-matched-without-last-character",
        "MB-WIRE-19 a body line holding the dash-boundary less its last character refused",
        ("accept-body-lines-holding-dash-boundary-prefix",),
        on_response=refuses(_body_lines(_prefix_line), 400, "MB-WIRE-19"),
    ),
    P(
        "delimiter-matched-without-its-hyphens",
        "MB-WIRE-19 a body line holding the boundary after fewer than two hyphens refused",
        ("accept-body-lines-holding-dash-boundary-prefix",),
        on_response=refuses(_body_lines(_fewer_hyphens), 400, "MB-WIRE-19"),
    ),
    P(
        "one-hyphen-after-delimiter-taken",
        "MB-WIRE-19 a delimiter line with one hyphen after the dash-boundary accepted",
        ("reject-later-delimiter-one-hyphen",),
        on_response=accepts(
            lambda req: _with_boundary(lambda dash: b"\r\n" + dash + b"-\r\n" in req.body)(req)
        ),
    ),
    # MB-PART-2: a part "has no `Http-Method` field"; a part with no field line is a part.
    P(
        "fieldless-parts-skipped",
        "MB-PART-2 a part without any field line skipped as padding",
        (
            "reject-part-without-fields-before-valid-part",
            "reject-part-without-fields-or-empty-line",
        ),
        on_response=accepts(
            lambda req: _with_boundary(
                lambda dash: re.match(re.escape(dash) + rb"[ \t]*\r\n\r\n", req.body) is not None
            )(req)
        ),
    ),
    # MB-PART-2: "one whose value is not a `token`", and a token with OWS around it is one.
    P(
        "http-method-leading-whitespace-refused",
        "MB-PART-2 whitespace before a part's method refused",
        ("accept-http-method-leading-ows",),
        on_response=refuses(_lines(rb"^http-method:(\t| {2,})"), 400, "MB-PART-2"),
    ),
    P(
        "http-method-delimiters-accepted",
        "MB-PART-2 a method holding a token delimiter or a non-ASCII letter accepted",
        ("http-method-delimiters-refused",),
        on_response=accepts(
            lambda req: any(
                any(c in _TOKEN_DELIMITERS or ord(c) > 0x7F for c in v.strip(" \t"))
                for _, v in _methods(req)
            )
        ),
    ),
    # MB-PART-4: "not `"<" URI-reference ">"`"; MB-PART-6: no whitespace removed inside it.
    P(
        "content-id-inner-whitespace-trimmed",
        "MB-PART-4 whitespace just inside a Content-Id's brackets trimmed",
        (
            "reject-content-id-space-after-left-bracket",
            "reject-content-id-htab-before-right-bracket",
        ),
        on_response=accepts(
            lambda req: any(
                re.fullmatch(r"<([ \t]+[^*].*|.*[^*][ \t]+)>", v.strip(" \t"))
                for _, v in _content_ids(req)
            )
        ),
    ),
    P(
        "asterisk-compared-before-inner-whitespace",
        "MB-PART-4 a Content-Id of <* > or < *> run, neither malformed nor <*>",
        (
            "reject-target-asterisk-space-before-right-bracket",
            "reject-target-asterisk-space-after-left-bracket",
        ),
        on_response=accepts(
            lambda req: any(
                re.fullmatch(r"<[ \t]*\*[ \t]*>", t := v.strip(" \t")) and t != "<*>"
                for _, v in _content_ids(req)
            )
        ),
    ),
    # MB-SUB-8: "any part's `Content-Id` value is `<*>`", whatever case names the field.
    P(
        "asterisk-looked-up-in-canonical-case",
        "MB-SUB-8 a <*> target named by content-id in lower case run",
        ("reject-target-asterisk-field-name-lower-case",),
        on_response=accepts(
            lambda req: any(n != "Content-Id" and v.strip() == "<*>" for n, v in _content_ids(req))
        ),
    ),
    # MB-SUB-3: a part "whose `Http-Method` is `CONNECT` or `TRACE`".
    P(
        "forbidden-method-compared-with-whitespace",
        "MB-SUB-3 TRACE or CONNECT with whitespace around it run",
        ("reject-method-trace-surrounding-ows",),
        on_response=accepts(
            lambda req: any(
                _forbidden_method(v) and v.strip(" \t") != v[1:] for _, v in _methods(req)
            )
        ),
    ),
    P(
        "forbidden-method-looked-up-in-canonical-case",
        "MB-SUB-3 TRACE or CONNECT named by http-method in lower case run",
        ("reject-method-connect-field-name-lower-case",),
        on_response=accepts(
            lambda req: any(n != "Http-Method" and _forbidden_method(v) for n, v in _methods(req))
        ),
    ),
    # MB-PART-8: the part's fields and body are the sub-request's; one field line of each
    # control field is no second one.
    P(
        "control-field-text-counted-anywhere",
        "MB-PART-8 a part whose field value or body holds the text Http-Method: refused",
        ("accept-control-field-lines-in-value-and-body",),
        on_response=refuses(_parts_with(_control_text_elsewhere), 400, "MB-PART-2"),
    ),
    P(
        "proxy-fields-refused",
        "MB-PART-8 a part field whose name begins with Proxy- refused as Proxy-Connection is",
        ("unforbidden-part-fields-reach-resource",),
        on_response=refuses(
            _lines(rb"^proxy-(?!connection:)[!#$%&'*+.^_`|~0-9a-z-]+:"), 400, "MB-PART-10"
        ),
    ),
    # MB-SUB-4 (spec 8.4): "A target that the server would route elsewhere, to a 404 or a
    # redirect, is an ordinary sub-request", and percent-encoded unreserved characters decode.
    P(
        "nesting-endpoint-found-inside-target",
        "MB-SUB-4 a target holding the endpoint's path under another segment or in its query "
        "refused",
        ("nesting-unrouted-lookalikes-run",),
        on_response=refuses(_endpoint_inside, 400, "MB-SUB-4"),
    ),
    P(
        "nesting-endpoint-begun-by-target",
        "MB-SUB-4 a target whose path begins the endpoint's path refused",
        ("nesting-unrouted-lookalikes-run",),
        on_response=refuses(_endpoint_begun, 400, "MB-SUB-4"),
    ),
    P(
        "nesting-first-escape-decoded-only",
        "MB-SUB-4 a target naming the endpoint with more than one percent-encoded octet run",
        ("nesting-encoded-spellings-refused",),
        on_response=accepts(
            lambda req: any(len(re.findall(r"%[0-9A-Fa-f]{2}", t)) > 1 for t in _part_targets(req))
        ),
    ),
    P(
        "nesting-encoded-last-character-kept",
        "MB-SUB-4 a target naming the endpoint with its last character percent-encoded run",
        ("nesting-encoded-spellings-refused",),
        on_response=accepts(
            lambda req: any(re.search(r"%[0-9A-Fa-f]{2}$", t) for t in _part_targets(req))
        ),
    ),
    # MB-PROC-19 refuses references to the part itself, a later part or none; spec 7.7: "`$$(`
    # stands for a literal `$(`" and "References are not substituted in part content".
    P(
        "escaped-references-validated",
        "MB-PROC-19 an escaped $$( naming the part itself or a later part refused",
        ("references-refusal-neighbours-run",),
        on_response=refuses(_parts_holding(_escaped_reference), 400, "MB-PROC-19"),
    ),
    P(
        "content-references-validated",
        "MB-PROC-19 a $( in a part's content naming the part itself or a later part refused",
        ("references-refusal-neighbours-run",),
        on_response=refuses(_parts_holding(_content_reference), 400, "MB-PROC-19"),
    ),
    # MB-STATUS-2: a forbidden field is a malformed envelope "with 400"; RFC 9112 §6.1's 501
    # for a transfer coding a server does not understand is no answer to a part's field.
    P(
        "forbidden-part-field-refused-501",
        "MB-STATUS-2 a batch refused for a forbidden part field answered 501",
        ("forbidden-fields-any-value-refused",),
        on_response=_restatus(
            lambda doc: doc.get("requirement") in ("MB-PART-10", "MB-PART-9"), 501
        ),
    ),
)
