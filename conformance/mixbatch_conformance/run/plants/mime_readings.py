"""Planted violations by servers that read a batch's fields with MIME's grammar (RFC 2045,
RFC 2047, RFC 2231, RFC 822 comments) where the spec's grammar applies (spec 3.1.1, 3.1.4,
3.2.1, 3.2.2).

The batch Content-Type is parsed by RFC 9110 §5.6.6 (`batch-content-type = "multipart/mixed"
parameters`), and the part fields Http-Method, Content-Id and Content-Length are HTTP field
values read as octets: `method`, `"<" URI-reference ">"` and `1*DIGIT`. None of those grammars
has comments, encoded-words, quoted lengths or RFC 2231's extended and continued parameters, so
a MIME reader takes as valid what the spec refuses. The plants model such readers:

- an RFC 2231 extended parameter `boundary*=charset'lang'value` taken as the boundary, where
  RFC 9110 reads a parameter named `boundary*` (MB-WIRE-4);
- RFC 2231 continuations `boundary*0`, `boundary*1` joined into the boundary (MB-WIRE-4);
- RFC 822 comments removed from the batch Content-Type (MB-WIRE-4);
- a quoted boundary spelt like an RFC 2047 encoded-word decoded (MB-WIRE-4);
- a part's Content-Length read with comments removed, unquoted, with an encoded-word decoded,
  or with spaces and a plus sign dropped (MB-WIRE-20);
- an Http-Method read with comments removed or an encoded-word decoded (MB-PART-2);
- a Content-Id read with comments outside its angle brackets removed or an encoded-word
  decoded (MB-PART-4);
- a part Content-Type holding a comment refused, though it is a sub-request field like any
  other (MB-PART-8).

Each shows the reference server the request as the planted reader understands it, or answers
for it.
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    is_batch,
    part_field_read,
    refuses,
    split_quoted,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS", "decode_encoded_words", "without_comments"]

_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([QqBb])\?([^?\s]*)\?=")
_CONTINUATION = re.compile(r"boundary\*([0-9]+)\*?", re.I)


def without_comments(value: str) -> str:
    """`value` with RFC 822 comments (nested, with quoted-pairs) removed outside
    quoted-strings, as a MIME structured-field reader sees it."""
    out: list[str] = []
    depth, quoted, escaped = 0, False, False
    for c in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(c)
        elif c == "\\" and (quoted or depth):
            escaped = True
            if depth == 0:
                out.append(c)
        elif depth:
            depth += {"(": 1, ")": -1}.get(c, 0)
        elif c == '"':
            quoted = not quoted
            out.append(c)
        elif c == "(" and not quoted:
            depth = 1
        else:
            out.append(c)
    return "".join(out)


def _decode_word(m: re.Match[str]) -> str:
    charset, kind, text = m.group(1), m.group(2).lower(), m.group(3)
    try:
        if kind == "b":
            raw = base64.b64decode(text)
        else:
            raw = re.sub(
                r"=([0-9A-Fa-f]{2})",
                lambda h: chr(int(h.group(1), 16)),
                text.replace("_", " "),
            ).encode("latin-1")
        return raw.decode(charset.split("*")[0], "replace")
    except (LookupError, ValueError, binascii.Error):
        return m.group(0)


def decode_encoded_words(value: str) -> str:
    """`value` with each RFC 2047 encoded-word replaced by the text it encodes."""
    return _ENCODED_WORD.sub(_decode_word, value)


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _set_content_type(req: RelayRequest, value: str) -> None:
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
    req.headers.append(("Content-Type", value))


def _extended_boundary_taken(req: RelayRequest) -> None:
    """`boundary*=charset'language'value` read as RFC 2231 §4 reads it: the boundary, its
    %XX escapes decoded."""
    ctype = req.get("Content-Type")
    if not is_batch(req) or ctype is None:
        return
    pieces = split_quoted(ctype, ";", "pair")
    out = [pieces[0]]
    for piece in pieces[1:]:
        name, eq, value = piece.partition("=")
        parts = value.strip(" \t").split("'", 2)
        if eq and name.strip(" \t").lower() == "boundary*" and len(parts) == 3:
            out.append(f" boundary={_quoted(urllib.parse.unquote(parts[2]))}")
        else:
            out.append(piece)
    if out != pieces:
        _set_content_type(req, ";".join(out))


def _continued_boundary_joined(req: RelayRequest) -> None:
    """`boundary*0=...; boundary*1=...` joined into one boundary, as RFC 2231 §3 reads it."""
    ctype = req.get("Content-Type")
    if not is_batch(req) or ctype is None:
        return
    pieces = split_quoted(ctype, ";", "pair")
    kept, sections = [pieces[0]], {}
    for piece in pieces[1:]:
        name, eq, value = piece.partition("=")
        m = _CONTINUATION.fullmatch(name.strip(" \t"))
        if eq and m:
            value = value.strip(" \t")
            if value.startswith('"') and value.endswith('"') and len(value) > 1:
                value = value[1:-1]
            sections[int(m.group(1))] = value
        else:
            kept.append(piece)
    if sections:
        joined = "".join(sections[i] for i in sorted(sections))
        _set_content_type(req, ";".join([*kept, f" boundary={_quoted(joined)}"]))


def _content_type_comments_removed(req: RelayRequest) -> None:
    ctype = req.get("Content-Type")
    if is_batch(req) and ctype is not None and "(" in ctype:
        _set_content_type(req, without_comments(ctype))


def _boundary_encoded_word_decoded(req: RelayRequest) -> None:
    ctype = req.get("Content-Type")
    if is_batch(req) and ctype is not None and _ENCODED_WORD.search(ctype):
        _set_content_type(req, decode_encoded_words(ctype))


def _unquoted(value: str) -> str:
    text = value.strip(" \t")
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] == '"' else value


def _sign_and_spaces_dropped(value: str) -> str:
    return value.replace(" ", "").replace("\t", "").removeprefix("+")


def _outer_comments_removed(value: str) -> str:
    """A Content-Id with the comments outside its angle brackets removed (a msg-id reading)."""
    start, end = value.find("<"), value.rfind(">")
    if start < 0 or end < start:
        return without_comments(value)
    return (
        without_comments(value[:start])
        + value[start : end + 1]
        + without_comments(value[end + 1 :])
    )


def _part_content_type_comment(req: RelayRequest) -> bool:
    return is_batch(req) and re.search(rb"(?im)^content-type:[^\r\n]*\(", req.body) is not None


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "boundary-extended-parameter-taken",
        "MB-WIRE-4 an RFC 2231 extended parameter boundary*= taken as the boundary",
        (
            "reject-boundary-extended-parameter",
            "reject-boundary-extended-parameter-without-charset",
            "accept-boundary-beside-extended-parameter",
            "accept-boundary-after-extended-parameter-same-value",
        ),
        on_request=_extended_boundary_taken,
    ),
    P(
        "boundary-continued-parameter-joined",
        "MB-WIRE-4 RFC 2231 continuations boundary*0, boundary*1 joined into the boundary",
        ("reject-boundary-continued-parameter", "accept-boundary-beside-continued-parameter"),
        on_request=_continued_boundary_joined,
    ),
    P(
        "media-type-comments-removed",
        "MB-WIRE-4 RFC 822 comments removed from the batch Content-Type, not refused",
        (
            "reject-media-type-comment-after-subtype",
            "reject-boundary-comment-after-value",
            "reject-media-type-comment-before-parameter",
        ),
        on_request=_content_type_comments_removed,
    ),
    P(
        "boundary-encoded-word-decoded",
        "MB-WIRE-4 a quoted boundary spelt as an RFC 2047 encoded-word decoded",
        ("accept-boundary-encoded-word-quoted",),
        on_request=_boundary_encoded_word_decoded,
    ),
    P(
        "part-content-length-comments-removed",
        "MB-WIRE-20 a part Content-Length read with RFC 822 comments removed",
        ("reject-content-length-trailing-comment", "reject-content-length-leading-comment"),
        on_request=part_field_read("Content-Length", without_comments),
    ),
    P(
        "part-content-length-unquoted",
        "MB-WIRE-20 a part Content-Length written as a quoted-string read unquoted",
        ("reject-content-length-quoted",),
        on_request=part_field_read("Content-Length", _unquoted),
    ),
    P(
        "part-content-length-encoded-word-decoded",
        "MB-WIRE-20 a part Content-Length written as an RFC 2047 encoded-word decoded",
        ("reject-content-length-encoded-word",),
        on_request=part_field_read("Content-Length", decode_encoded_words),
    ),
    P(
        "part-content-length-sign-and-spaces-dropped",
        "MB-WIRE-20 a part Content-Length read with its spaces and a leading plus sign dropped",
        (
            "reject-content-length-plus-inner-space",
            "reject-content-length-inner-space",
            "reject-content-length-signed",
        ),
        on_request=part_field_read("Content-Length", _sign_and_spaces_dropped),
    ),
    P(
        "http-method-comments-removed",
        "MB-PART-2 an Http-Method read with RFC 822 comments removed",
        ("reject-http-method-trailing-comment", "reject-http-method-leading-comment"),
        on_request=part_field_read("Http-Method", without_comments),
    ),
    P(
        "http-method-encoded-word-decoded",
        "MB-PART-2 an Http-Method written as an RFC 2047 encoded-word decoded",
        ("reject-http-method-encoded-word",),
        on_request=part_field_read("Http-Method", decode_encoded_words),
    ),
    P(
        "content-id-outer-comments-removed",
        "MB-PART-4 a Content-Id read with RFC 822 comments outside its angle brackets removed",
        ("reject-content-id-leading-comment", "vector-content-id-with-comment"),
        on_request=part_field_read("Content-Id", _outer_comments_removed),
    ),
    P(
        "content-id-encoded-word-decoded",
        "MB-PART-4 a Content-Id written as an RFC 2047 encoded-word decoded",
        ("reject-content-id-encoded-word",),
        on_request=part_field_read("Content-Id", decode_encoded_words),
    ),
    P(
        "part-content-type-comment-refused",
        "MB-PART-8 a part Content-Type holding an RFC 822 comment refused as an envelope fault",
        ("accept-part-content-type-with-comment",),
        on_response=refuses(_part_content_type_comment, 400, "MB-PART-8"),
    ),
)
