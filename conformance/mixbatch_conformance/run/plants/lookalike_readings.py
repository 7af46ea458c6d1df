"""Planted readings of lookalikes: boundaries whose own characters look like delimiter syntax
(MB-WIRE-4), part fields that look like a target beside a missing or empty Content-Id
(MB-PART-4, MB-SUB-4), and a missing close delimiter placed where another fault would be
(MB-STATUS-4, spec 5.3).

- Boundaries: RFC 2046 §5.1.1 makes the close delimiter the dash-boundary followed by `--`,
  and MB-WIRE-4 makes a server accept every boundary of 1 to 70 bchars not ending in a space.
  A server that takes a delimiter line ending in `--` for the close delimiter refuses a batch
  whose boundary ends in `--` (or is one hyphen) as one without parts; one that finds the
  boundary in a line with its leading or trailing hyphens stripped finds no delimiter for a
  boundary that begins or ends with a hyphen; one that reads a parameter value up to a
  trailing `=` or `:` refuses a boundary ending in one.
- Targets: MB-PART-4 answers 400 to a part without `Content-Id`. A server that falls back to
  another field naming a resource (Content-Location, Location, Content-Base, Http-Target, a
  Content-Disposition name, a MIME Message-Id, a field whose name only resembles Content-Id)
  runs the part instead; one that does so for an empty Content-Id (`Content-Id:` or `<>`,
  which resolves to the batch endpoint, MB-SUB-4) runs it too.
- Offsets: spec 5.3 places "a missing close delimiter: the length of the content, in the last
  part". A server that reports it where its scan of the last part began (the body's first
  octet, the header section's first octet, the last delimiter line) or in the part before the
  last gives another place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Pred,
    RespEdit,
    boundary_of,
    edit_problem,
    is_batch,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


# -- boundaries -----------------------------------------------------------------------------------
def _boundary_is(test: Callable[[str], bool]) -> Pred:
    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req)
        return is_batch(req) and bool(b) and test(b or "")

    return pred


#: The opening delimiter line `--` + boundary ends in `--`: a boundary ending in two hyphens,
#: or the boundary `-`.
_LINE_ENDS_IN_TWO_HYPHENS = _boundary_is(lambda b: ("--" + b).endswith("--"))
_BEGINS_WITH_HYPHEN = _boundary_is(lambda b: b.startswith("-"))
_ENDS_WITH_HYPHEN = _boundary_is(lambda b: b.endswith("-"))
_ENDS_WITH_SEPARATOR = _boundary_is(lambda b: b.endswith(("=", ":")))

#: The envelope cases each boundary plant meets (all valid boundaries, MB-WIRE-4).
_HYPHEN_ONLY = (
    "accept-boundary-one-hyphen",
    "accept-boundary-two-hyphens",
    "accept-boundary-three-hyphens",
    "accept-boundary-seventy-hyphens",
)
_ENDING_IN_TWO_HYPHENS = (
    "accept-boundary-ending-in-two-hyphens",
    "accept-boundary-ending-in-two-hyphens-quoted",
    "accept-boundary-ending-in-two-hyphens-padded",
    "accept-boundary-ending-in-hyphens-body-lines",
)


# -- targets --------------------------------------------------------------------------------------
_SECTION = re.compile(rb"(?:\A|\r\n)--[^\r\n]*\r\n((?:[^\r\n]+\r\n)*)\r\n")


def _fields(section: bytes) -> list[tuple[str, str]]:
    out = []
    for line in section.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if sep:
            out.append((name.decode("latin-1"), value.strip().decode("latin-1")))
    return out


def _target_from(
    lookalike: Callable[[str, str], str | None], *, when_empty: tuple[str, ...] = ()
) -> Callable[[RelayRequest], None]:
    """A server that takes a part's target from the first field `lookalike` reads one from
    (name, value) -> reference, when the part has no Content-Id, or one whose value is in
    `when_empty`: the Content-Id line is written in, so the server runs the part."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return

        def fix(m: re.Match[bytes]) -> bytes:
            section = m.group(1)
            fields = _fields(section)
            cids = [v for n, v in fields if n.lower() == "content-id"]
            if cids and not (len(cids) == 1 and cids[0] in when_empty):
                return m.group(0)
            for name, value in fields:
                ref = lookalike(name, value)
                if ref is None:
                    continue
                kept = b"".join(
                    line + b"\r\n"
                    for line in section.split(b"\r\n")[:-1]
                    if not line.lower().startswith(b"content-id:")
                )
                new = kept + f"Content-Id: <{ref}>\r\n".encode("latin-1")
                return m.group(0).replace(section, new, 1)
            return m.group(0)

        req.body = _SECTION.sub(fix, req.body)

    return edit


def _unbracket(value: str) -> str:
    return value[1:-1] if value.startswith("<") and value.endswith(">") else value


def _named(*names: str) -> Callable[[str, str], str | None]:
    wanted = {n.lower() for n in names}
    return lambda name, value: _unbracket(value) if name.lower() in wanted else None


def _base_path(name: str, value: str) -> str | None:
    """Content-Base (RFC 2110) as the target: its path, the authority dropped."""
    if name.lower() != "content-base":
        return None
    m = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://[^/]*(/.*)?$", value)
    return (m.group(1) or "/") if m else None


def _disposition_name(name: str, value: str) -> str | None:
    if name.lower() != "content-disposition":
        return None
    m = re.search(r'name="([^"]*)"', value)
    return m.group(1) if m else None


def _loose_content_id(name: str, value: str) -> str | None:
    """A field name read with its punctuation dropped and by its beginning."""
    if re.sub(r"[^a-z]", "", name.lower()).startswith("contentid"):
        return _unbracket(value)
    return None


# -- offsets --------------------------------------------------------------------------------------
def _unclosed(place: Callable[[bytes, bytes, dict[str, Any]], None]) -> RespEdit:
    """A server whose MB-WIRE-13 problem documents `place` edits, given the content and the
    dash-boundary."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(req)
        if not b or not is_batch(req) or resp.status != 400:
            return
        dash = b"--" + b.encode("latin-1")

        def fn(doc: dict[str, Any]) -> None:
            if doc.get("requirement") == "MB-WIRE-13":
                place(req.body, dash, doc)

        edit_problem(resp, fn)

    return edit


def _last_delimiter(content: bytes, dash: bytes) -> int | None:
    starts = [m.start(1) for m in re.finditer(rb"(?:\A|\r\n)(" + re.escape(dash) + rb")", content)]
    return starts[-1] if starts else None


def _at_body_start(content: bytes, dash: bytes, doc: dict[str, Any]) -> None:
    """The offset of the last part body's first octet, where the scan for its end began."""
    at = _last_delimiter(content, dash)
    line_end = content.find(b"\r\n", at) if at is not None else -1
    if line_end < 0:
        return
    blank = content.find(b"\r\n\r\n", line_end)
    if blank >= 0 and blank + 4 < len(content):
        doc["byte_offset"] = blank + 4


def _at_section_start(content: bytes, dash: bytes, doc: dict[str, Any]) -> None:
    """The offset of the last header section's first octet, when the section never ended."""
    at = _last_delimiter(content, dash)
    line_end = content.find(b"\r\n", at) if at is not None else -1
    if line_end < 0 or content.find(b"\r\n\r\n", line_end) >= 0:
        return
    if line_end + 2 < len(content):
        doc["byte_offset"] = line_end + 2


def _at_last_delimiter(content: bytes, dash: bytes, doc: dict[str, Any]) -> None:
    """The offset of the last delimiter line's first '-', as a fault on that line."""
    at = _last_delimiter(content, dash)
    if at is not None:
        doc["byte_offset"] = at


def _in_part_before(content: bytes, dash: bytes, doc: dict[str, Any]) -> None:
    """The part before the last one: the last part that began and also ended."""
    if isinstance(doc.get("part_index"), int) and doc["part_index"] > 0:
        doc["part_index"] -= 1


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-4: "MUST accept ... every boundary that MB-WIRE-3 allows"; RFC 2046 §5.1.1: the
    # close delimiter is the delimiter followed by "--".
    P(
        "close-delimiter-read-by-line-end",
        "MB-WIRE-4 a delimiter line ending in -- taken for the close delimiter",
        (*_ENDING_IN_TWO_HYPHENS, *_HYPHEN_ONLY),
        on_response=refuses(_LINE_ENDS_IN_TWO_HYPHENS, 400, "MB-WIRE-18"),
    ),
    P(
        "boundary-matched-without-leading-hyphens",
        "MB-WIRE-4 a boundary beginning with a hyphen not found in its delimiter lines",
        (
            "accept-boundary-beginning-with-hyphen",
            "accept-boundary-beginning-with-two-hyphens",
            *_HYPHEN_ONLY,
        ),
        on_response=refuses(_BEGINS_WITH_HYPHEN, 400, "MB-WIRE-13"),
    ),
    P(
        "boundary-matched-without-trailing-hyphens",
        "MB-WIRE-4 a boundary ending in a hyphen not found in its delimiter lines",
        ("accept-boundary-ending-in-hyphen", *_ENDING_IN_TWO_HYPHENS, *_HYPHEN_ONLY),
        on_response=refuses(_ENDS_WITH_HYPHEN, 400, "MB-WIRE-13"),
    ),
    P(
        "boundary-read-up-to-trailing-separator",
        "MB-WIRE-4 a boundary ending in = or : refused",
        (
            "accept-boundary-ending-in-equals",
            "accept-boundary-ending-in-colon",
            "accept-boundary-one-special-char",
        ),
        on_response=refuses(_ENDS_WITH_SEPARATOR, 400, "MB-WIRE-4"),
    ),
    # MB-PART-4: "answer 400 to a batch request in which any request part has no `Content-Id`
    # field".
    P(
        "target-from-content-location",
        "MB-PART-4 a part without Content-Id given its Content-Location's target",
        (
            "reject-content-id-missing-beside-content-location",
            "reject-content-id-missing-beside-bracketed-content-location",
            "reject-content-id-missing-in-later-part-beside-content-location",
        ),
        on_request=_target_from(_named("Content-Location")),
    ),
    P(
        "target-from-location-fields",
        "MB-PART-4 a part without Content-Id given the target of a Location, Content-Base or "
        "Http-Target field",
        (
            "reject-content-id-missing-beside-location",
            "reject-content-id-missing-beside-content-base",
            "reject-content-id-missing-beside-http-target",
        ),
        on_request=_target_from(
            lambda n, v: _named("Location", "Http-Target")(n, v) or _base_path(n, v)
        ),
    ),
    P(
        "target-from-disposition-or-message-id",
        "MB-PART-4 a part without Content-Id given the target of its Content-Disposition name "
        "or its Message-Id",
        (
            "reject-content-id-missing-beside-disposition-name",
            "reject-content-id-missing-beside-message-id",
        ),
        on_request=_target_from(lambda n, v: _disposition_name(n, v) or _named("Message-Id")(n, v)),
    ),
    P(
        "content-id-name-read-loosely",
        "MB-PART-4 a field whose name only resembles Content-Id taken for it",
        (
            "reject-content-id-missing-beside-content-id-suffixed",
            "reject-content-id-missing-beside-contentid",
            "reject-content-id-missing-beside-content-underscore-id",
        ),
        on_request=_target_from(_loose_content_id),
    ),
    P(
        "empty-content-id-target-from-content-location",
        "MB-PART-4 an empty Content-Id replaced by the part's Content-Location",
        ("reject-content-id-empty-beside-content-location",),
        on_request=_target_from(_named("Content-Location"), when_empty=("",)),
    ),
    # MB-SUB-4: a part whose target is a batch endpoint is answered 400; `<>` resolves to it.
    P(
        "empty-reference-target-from-content-location",
        "MB-SUB-4 a Content-Id of <> replaced by the part's Content-Location",
        ("reject-content-id-empty-reference-beside-content-location",),
        on_request=_target_from(_named("Content-Location"), when_empty=("<>",)),
    ),
    # Spec 5.3: "a missing close delimiter: the length of the content, in the last part".
    P(
        "unclosed-offset-at-body-start",
        "MB-STATUS-4 byte_offset of a missing close delimiter at the last body's start",
        (
            "reject-unclosed-in-body",
            "reject-unclosed-in-body-ending-in-crlf",
            "reject-unclosed-in-body-after-boundary-prefix",
            "reject-unclosed-in-later-body",
            "reject-unclosed-inside-part-body",
        ),
        on_response=_unclosed(_at_body_start),
    ),
    P(
        "unclosed-offset-at-section-start",
        "MB-STATUS-4 byte_offset of a missing close delimiter at the last header section's start",
        ("reject-unclosed-in-header-section", "reject-unclosed-in-later-header-section"),
        on_response=_unclosed(_at_section_start),
    ),
    P(
        "unclosed-offset-at-last-delimiter",
        "MB-STATUS-4 byte_offset of a missing close delimiter at the last delimiter line",
        (
            "reject-missing-close-delimiter",
            "reject-unclosed-in-body",
            "reject-unclosed-in-body-ending-in-crlf",
            "reject-unclosed-in-body-after-boundary-prefix",
            "reject-unclosed-in-later-body",
            "reject-unclosed-in-header-section",
            "reject-unclosed-in-later-header-section",
            "reject-unclosed-after-first-delimiter-line",
            "reject-unclosed-after-delimiter-line",
            "reject-unclosed-after-dash-boundary",
            "reject-unclosed-after-one-hyphen",
            "reject-unclosed-after-transport-padding",
            "reject-unclosed-inside-part-body",
            "reject-unclosed-short-content-length",
        ),
        on_response=_unclosed(_at_last_delimiter),
    ),
    P(
        "unclosed-part-index-of-part-before",
        "MB-STATUS-4 part_index of a missing close delimiter one part early",
        (
            "reject-unclosed-in-later-body",
            "reject-unclosed-in-later-header-section",
            "reject-unclosed-after-delimiter-line",
        ),
        on_response=_unclosed(_in_part_before),
    ),
)
