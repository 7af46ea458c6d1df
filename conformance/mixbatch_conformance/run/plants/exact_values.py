"""Planted violations of values a server must carry or compare exactly: a status code it has no
name for, the 207 forms' outcome of a rolled-back part, and entity tags (spec 3.3.1, 5.2, 6.3,
6.4, 7.6).

    status-unnamed-reported-as-class     a part's status that Python's http.HTTPStatus does not
                                         name (218, 299, 306, 419, ...) reported as the x00
                                         code of its class (MB-RESP-2)
    status-rare-reported-as-class        the same for registered codes few frameworks name
                                         (203, 208, 226, 421, 425) (MB-RESP-2)
    xml-status-unnamed-as-class          the XML form's DAV:status does so (MB-MULTI-6)
    json-status-unnamed-as-class         the JSON form's status does so (MB-MULTI-4)
    xml-rolled-back-outcome-dropped      the XML form writes no mb:outcome for a part that keeps
                                         its status: rolled-back parts lose it (MB-MULTI-6)
    json-rolled-back-outcome-null        the JSON form's outcome of a rolled-back part is null
                                         (MB-MULTI-4)
    part-entity-tags-case-folded         a part's If-Match and If-None-Match tags compared
                                         case-insensitively (the reference server's tags are
                                         lower-case hex) (MB-PROC-9)
    part-entity-tags-trimmed             whitespace inside a tag's quotes ignored (MB-PROC-9)
    part-entity-tags-quotes-optional     a tag without its quotes read as the quoted one
                                         (MB-PROC-9)
    part-weak-indicator-any-case         `w/` read as the weakness indicator `W/` (MB-PROC-9)
    part-entity-tags-prefix-match        a tag matching any tag the server sent that it begins
                                         or ends, or that begins it (MB-PROC-9)
    collection-entity-tags-case-folded   a collection retrieval's tags compared
                                         case-insensitively (MB-STATUS-7)

The tag plants edit the request the server receives, so that the server's exact comparison
gives the answer a loose one would: the relay rewrites a tag the way the loose comparison would
equate it with the server's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    is_batch,
    map_json,
    map_parts,
    map_xml,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Codes Python's http.HTTPStatus names.
NAMED = frozenset(int(s) for s in HTTPStatus)
#: Registered codes a framework may lack a name for.
RARE = frozenset({203, 208, 226, 421, 425})
TAG_FIELDS = frozenset({"if-match", "if-none-match"})


def _as_class(unknown: Callable[[int], bool]) -> Callable[[list[Part]], list[Part]]:
    def edit(parts: list[Part]) -> list[Part]:
        out = []
        for fields, body in parts:
            code = field_of(fields, "Http-Status-Code") or ""
            if code.isdigit() and unknown(int(code)):
                fields = set_field(fields, "Http-Status-Code", str(int(code) // 100 * 100))
            out.append((fields, body))
        return out

    return edit


def _xml_status_as_class(body: bytes) -> bytes:
    def fix(m: re.Match[bytes]) -> bytes:
        code = int(m[2])
        if code in NAMED:
            return m[0]
        return m[1] + b"%d" % (code // 100 * 100) + m[3]

    return re.sub(rb"(<[A-Za-z0-9_-]*:?status>HTTP/1\.1 )([0-9]{3})( [^<]*<)", fix, body)


def _json_status_as_class(doc: dict[str, Any]) -> None:
    for entry in doc.get("responses", []):
        code = entry.get("status")
        if isinstance(code, int) and code not in NAMED:
            entry["status"] = code // 100 * 100


def _xml_rolled_back_outcome_dropped(body: bytes) -> bytes:
    return re.sub(rb"<([A-Za-z0-9_-]+:)?outcome>rolled-back</\1?outcome>", b"", body)


def _json_rolled_back_outcome_null(doc: dict[str, Any]) -> None:
    for entry in doc.get("responses", []):
        if entry.get("outcome") == "rolled-back":
            entry["outcome"] = None


def _edit_tags(fields: FieldList, fn: Callable[[str], str]) -> FieldList:
    return [(n, fn(v) if n.lower() in TAG_FIELDS else v) for n, v in fields]


def _case_folded(value: str) -> str:
    """Every opaque-tag in lower case: a server with lower-case tags then matches one written in
    upper case, as a case-insensitive comparison does."""
    return re.sub(r'"[^"]*"', lambda m: m[0].lower(), value)


def _trimmed(value: str) -> str:
    return re.sub(r'"[ \t]*([^" \t]*)[ \t]*"', r'"\1"', value)


def _quoted(value: str) -> str:
    """Each list member without quotes read as if it had them."""
    out = []
    for item in value.split(","):
        bare = item.strip()
        weak = "W/" if bare.startswith("W/") else ""
        rest = bare[len(weak) :]
        if rest and rest != "*" and not rest.startswith('"'):
            bare = f'{weak}"{rest}"'
        out.append(bare)
    return ", ".join(out)


def _weak_any_case(value: str) -> str:
    return re.sub(r'(^|[ ,])w/"', r'\1W/"', value)


def _parts_edit(fn: Callable[[str], str]) -> Callable[[list[Part]], list[Part]]:
    return lambda parts: [(_edit_tags(f, fn), b) for f, b in parts]


def _collection_alone(fn: Callable[[str], str]) -> Callable[[RelayRequest], None]:
    """The edit of a standalone retrieval's tags (Accept: multipart/mixed, not to the batch
    endpoint)."""

    def edit(req: RelayRequest) -> None:
        accept = ",".join(v for n, v in req.headers if n.lower() == "accept")
        if not is_batch(req) and "multipart/mixed" in accept:
            req.headers = _edit_tags(req.headers, fn)

    return edit


class _Seen:
    """Tags the server sent, and a request edit that takes a tag one of them begins or ends
    with, or that begins with one of them, for that tag."""

    def __init__(self) -> None:
        self.tags: set[str] = set()

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        for n, v in resp.headers:
            if n.lower() == "etag":
                self.tags.add(v.strip())
        for m in re.finditer(rb"(?im)^etag:[ \t]*(\S+)[ \t]*\r?$", resp.body):
            self.tags.add(m[1].decode("latin-1"))

    def loose(self, value: str) -> str:
        def fix(m: re.Match[str]) -> str:
            inner = m[1]
            for tag in self.tags:
                own = tag.removeprefix("W/")[1:-1]
                if (
                    inner
                    and own
                    and inner != own
                    and (own.startswith(inner) or own.endswith(inner) or inner.startswith(own))
                ):
                    return f'"{own}"'
            return m[0]

        return re.sub(r'"([^"]*)"', fix, value)


def _prefix_plant() -> Mutation:
    seen = _Seen()
    return Mutation(
        "part-entity-tags-prefix-match",
        "MB-PROC-9 a tag that begins or ends the resource's own, or begins with it, matching",
        PART_TAGS,
        on_request_parts=_parts_edit(seen.loose),
        on_response=seen.response,
    )


STATUS = ("status-codes-reported-exactly",)
ROLLED_BACK = (
    "atomic-failure-outcomes",
    "outcome-shapes-at-every-position",
    "atomic-failing-edges",
    "atomic-with-stop-preference",
    "rolled-back-validators-kept",
    "stop-at-failing-precondition",
)
PART_TAGS = ("entity-tags-compared-exactly",)
COLLECTION_TAGS = ("collection-entity-tags-compared-exactly",)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "status-unnamed-reported-as-class",
        "MB-RESP-2 a status code with no name reported as the x00 code of its class",
        (*STATUS, "multistatus-status-codes"),
        on_response=map_parts(_as_class(lambda c: c not in NAMED)),
    ),
    Mutation(
        "status-rare-reported-as-class",
        "MB-RESP-2 a rarely named status code reported as the x00 code of its class",
        STATUS,
        on_response=map_parts(_as_class(lambda c: c in RARE)),
    ),
    Mutation(
        "xml-status-unnamed-as-class",
        "MB-MULTI-6 DAV:status of a code with no name written as the x00 code of its class",
        (*STATUS, "multistatus-status-codes"),
        on_response=map_xml(_xml_status_as_class),
    ),
    Mutation(
        "json-status-unnamed-as-class",
        "MB-MULTI-4 the JSON status of a code with no name written as the x00 code of its class",
        (*STATUS, "multistatus-status-codes"),
        on_response=map_json(_json_status_as_class),
    ),
    Mutation(
        "xml-rolled-back-outcome-dropped",
        "MB-MULTI-6 no mb:outcome for a rolled-back part",
        ROLLED_BACK,
        on_response=map_xml(_xml_rolled_back_outcome_dropped),
    ),
    Mutation(
        "json-rolled-back-outcome-null",
        "MB-MULTI-4 the JSON outcome of a rolled-back part null",
        ROLLED_BACK,
        on_response=map_json(_json_rolled_back_outcome_null),
    ),
    Mutation(
        "part-entity-tags-case-folded",
        "MB-PROC-9 a part's entity tags compared case-insensitively",
        PART_TAGS,
        on_request_parts=_parts_edit(_case_folded),
    ),
    Mutation(
        "part-entity-tags-trimmed",
        "MB-PROC-9 whitespace inside a part's entity tag ignored",
        PART_TAGS,
        on_request_parts=_parts_edit(_trimmed),
    ),
    Mutation(
        "part-entity-tags-quotes-optional",
        "MB-PROC-9 a part's entity tag without quotes read as quoted",
        PART_TAGS,
        on_request_parts=_parts_edit(_quoted),
    ),
    Mutation(
        "part-weak-indicator-any-case",
        "MB-PROC-9 w/ read as the weakness indicator in a part",
        PART_TAGS,
        on_request_parts=_parts_edit(_weak_any_case),
    ),
    _prefix_plant(),
    Mutation(
        "collection-entity-tags-case-folded",
        "MB-STATUS-7 a collection retrieval's entity tags compared case-insensitively",
        COLLECTION_TAGS,
        on_request=_collection_alone(_case_folded),
    ),
)
