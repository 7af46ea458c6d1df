"""Planted violations of MB-PROC-18's last clause: "in a batch whose `Batch-Mode` does not list
`references`, `$(` has no special meaning".

Theory of operation: the reference server leaves `$(` alone in a batch that does not ask for
references, so each plant rewrites such a batch (no `Batch-Mode`, or one listing other modes)
before the server reads it, or rewrites its answer. A server that undoes the escape `$$(` in
every batch sees `$(` where `$$(` was written, in the part's field values, its Content-Id or its
content; one that substitutes references in every batch is given `Batch-Mode: references`, its
references to the part itself, a later part or no part escaped so that the reference server
substitutes the rest instead of refusing the batch; one that refuses a reference to the part
itself or a later part in every batch answers 400 naming MB-PROC-19.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    refuses,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

#: The part fields that carry no reference: the method and the framing of the content.
_NOT_REFERENCES = frozenset({"http-method", "content-length", "content-type"})
#: A reference as spec 7.7 writes it, not after a `$` (`$$(` is the escape).
_REFERENCE = re.compile(r"(?<!\$)\$\((0|[1-9][0-9]*)(:[!#$%&'*+.^_`|~0-9A-Za-z-]+)?\)")


def _without_references(req: RelayRequest) -> bool:
    """A batch whose `Batch-Mode` (absent, or a list of other modes) does not list references."""
    modes = [
        m.strip().lower() for n, v in req.headers if n.lower() == "batch-mode" for m in v.split(",")
    ]
    return is_batch(req) and "references" not in modes


def _request_parts(edit: Callable[[list[Part]], list[Part]]) -> Callable[[RelayRequest], None]:
    """Rewrite the parts of a batch that does not ask for references before the server reads
    them."""

    def on_request(req: RelayRequest) -> None:
        b = boundary_of(req)
        if not b or not _without_references(req):
            return
        parts = parts_of(req.body, b)
        if parts is not None:
            req.body = write_parts(edit(parts), b)

    return on_request


def _escape_read(*, fields: bool, content_id: bool) -> Callable[[list[Part]], list[Part]]:
    """`$$(` read as `$(` in the part's field values and/or its Content-Id."""

    def edit(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for head, body in parts:
            kept = []
            for n, v in head:
                name = n.lower()
                read = content_id if name == "content-id" else fields
                if read and name not in _NOT_REFERENCES:
                    v = v.replace("$$(", "$(")
                kept.append((n, v))
            out.append((kept, body))
        return out

    return edit


def _escape_read_in_content(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for head, body in parts:
        new = body.replace(b"$$(", b"$(")
        if new != body and field_of(head, "Content-Length") is not None:
            head = set_field(head, "Content-Length", str(len(new)))
        out.append((head, new))
    return out


def _escaper(index: int, count: int, in_content_id: bool) -> Callable[[re.Match[str]], str]:
    """The reference `m` in part `index` of `count`, escaped when MB-PROC-19 refuses it: it
    names that part, a later part or no part, or has a field name in a Content-Id."""

    def escape(m: re.Match[str]) -> str:
        named = int(m.group(1))
        refused = named >= index or named >= count or (in_content_id and m.group(2) is not None)
        return "$" + m.group(0) if refused else m.group(0)

    return escape


def _escape_refused(parts: list[Part]) -> list[Part]:
    """The references a references batch would be refused for, escaped; the rest kept."""
    out: list[Part] = []
    for i, (head, body) in enumerate(parts):
        kept = [
            (n, v)
            if n.lower() in _NOT_REFERENCES
            else (n, _REFERENCE.sub(_escaper(i, len(parts), n.lower() == "content-id"), v))
            for n, v in head
        ]
        out.append((kept, body))
    return out


def _substituted_without_mode(req: RelayRequest) -> None:
    """A server that reads references in every batch: the reference server is asked for them."""
    if not _without_references(req):
        return
    _request_parts(_escape_refused)(req)
    modes = [v for n, v in req.headers if n.lower() == "batch-mode"]
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "batch-mode"]
    req.headers.append(("Batch-Mode", ", ".join([*modes, "references"])))


def _self_or_later(req: RelayRequest) -> bool:
    """A batch without references whose part names itself or a later part as a reference."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and _without_references(req) else None
    for i, (head, _) in enumerate(parts or []):
        for n, v in head:
            if n.lower() not in _NOT_REFERENCES and any(
                int(m.group(1)) >= i for m in _REFERENCE.finditer(v)
            ):
                return True
    return False


P = Mutation
#: The checks that send reference syntax in batches that do not ask for references.
_CATCHERS = ("reference-syntax-plain-without-mode", "reference-syntax-plain-in-other-modes")

PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-18: "in a batch whose `Batch-Mode` does not list `references`, `$(` has no special
    # meaning", nor has `$$(`, spec 7.7's escape for it.
    P(
        "reference-escape-read-in-fields-without-mode",
        "MB-PROC-18 $$( read as $( in field values without the references mode",
        _CATCHERS,
        on_request=_request_parts(_escape_read(fields=True, content_id=False)),
    ),
    P(
        "reference-escape-read-in-targets-without-mode",
        "MB-PROC-18 $$( read as $( in a Content-Id without the references mode",
        _CATCHERS,
        on_request=_request_parts(_escape_read(fields=False, content_id=True)),
    ),
    P(
        "reference-escape-read-in-content-without-mode",
        "MB-PROC-18 $$( read as $( in content without the references mode",
        _CATCHERS,
        on_request=_request_parts(_escape_read_in_content),
    ),
    P(
        "references-substituted-without-mode",
        "MB-PROC-18 references substituted without the references mode",
        _CATCHERS,
        on_request=_substituted_without_mode,
    ),
    # MB-PROC-19 refuses only "a batch that lists `references`".
    P(
        "references-refused-without-mode",
        "MB-PROC-18 a reference to the part itself or a later part refused without the mode",
        _CATCHERS,
        on_response=refuses(_self_or_later, 400, "MB-PROC-19"),
    ),
)
