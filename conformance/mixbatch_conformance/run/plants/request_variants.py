"""Planted violations shown only to a request in a form HTTP makes the same as the one written
(core.variants; RFC 9112 §3.2.2, §5.1, §7.1; RFC 9110 §5.1; spec 3.2.4, 10.1, 14.4).

A batch endpoint that refuses a batch whose request-target is in absolute-form (MB-STATUS-1);
one that answers a batch framed by the chunked transfer coding 411, wanting a length
(MB-INTER-5); and an echo
that reports the fields of a request whose names all came in lower case sorted by name, as a
server that falls back to its header map when it does not find the canonical spelling
(MB-TEST-2).

A server that reads a list field by its first line only (as Go's `Header.Get` does), which the
batch's `Accept` split into lines shows in the representation it chooses (MB-MULTI-1) and the
echo in the lines it reports (MB-TEST-2); one that refuses a batch whose list fields hold an
empty element (MB-MULTI-1: the `Accept` RFC 9110 §5.6.1.2 reads is the one written); and one
that refuses a batch media type with an empty parameter (MB-WIRE-4, spec 3.1.1: "An empty
parameter is no fault").
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, refuses
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A request-target in absolute-form: a scheme, then "//" (RFC 9112 §3.2.2).
_ABSOLUTE_FORM = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _absolute_form_batch(req: RelayRequest) -> bool:
    return is_batch(req) and _ABSOLUTE_FORM.match(req.target) is not None


def _chunked_batch(req: RelayRequest) -> bool:
    return is_batch(req) and bool(req.chunks)


def _echo_doc(resp: RelayResponse) -> dict[str, object] | None:
    if "json" not in (resp.get("Content-Type") or ""):
        return None
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return None
    ok = isinstance(doc, dict) and isinstance(doc.get("headers"), list) and "method" in doc
    return doc if ok else None


def _sorted_for_lower_case_names(req: RelayRequest, resp: RelayResponse) -> None:
    """The echo of a request alone whose field names are all lower case lists its fields
    sorted by name."""
    names = [n for n, _ in req.headers]
    if is_batch(req) or not names or any(n != n.lower() for n in names):
        return
    doc = _echo_doc(resp)
    headers = doc.get("headers") if doc is not None else None
    if doc is not None and isinstance(headers, list):
        doc["headers"] = sorted(headers, key=lambda pair: str(pair[0]).lower())
        resp.body = json.dumps(doc).encode()


#: The list fields a server reading only the first line of each loses the others of.
_LIST_FIELDS = frozenset(
    {
        "accept",
        "accept-encoding",
        "batch-mode",
        "cache-control",
        "if-match",
        "if-none-match",
        "prefer",
    }
)


def _first_lines_only(req: RelayRequest) -> None:
    """Of each list field, only the first line reaches the server."""
    seen: set[str] = set()
    kept = []
    for name, value in req.headers:
        key = name.lower()
        if key in _LIST_FIELDS and key in seen:
            continue
        seen.add(key)
        kept.append((name, value))
    req.headers = kept


def _empty_list_element(req: RelayRequest) -> bool:
    """A batch whose list field has an element with nothing but OWS (outside quotes)."""
    if not is_batch(req):
        return False
    for name, value in req.headers:
        if name.lower() in _LIST_FIELDS:
            unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', value)
            if any(not m.strip(" \t") for m in unquoted.split(",")):
                return True
    return False


def _empty_media_type_parameter(req: RelayRequest) -> bool:
    """A batch whose media type has a `;` with no parameter after it."""
    ctype = req.get("Content-Type") or ""
    return is_batch(req) and re.search(r";[ \t]*(?:;|$)", ctype) is not None


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "absolute-form-batch-refused",
        "MB-STATUS-1 a batch whose request-target is in absolute-form refused 400",
        ("request-variants-answered-as-written",),
        on_response=refuses(_absolute_form_batch, 400, "MB-STATUS-2"),
    ),
    P(
        "chunked-batch-wants-length",
        "MB-INTER-5 a batch framed by the chunked transfer coding answered 411",
        ("request-variants-answered-as-written",),
        on_response=refuses(_chunked_batch, 411, "MB-INTER-5"),
    ),
    P(
        "echo-fields-sorted-for-lower-case-names",
        "MB-TEST-2 the echo of a request whose field names are all lower case lists them sorted",
        ("request-variants-answered-as-written",),
        on_response=_sorted_for_lower_case_names,
    ),
    P(
        "list-field-first-line-only",
        "MB-MULTI-1 of each list field only the first field line is read",
        ("request-variants-answered-as-written",),
        on_request=_first_lines_only,
    ),
    P(
        "empty-list-element-refused",
        "MB-MULTI-1 a batch whose list field holds an empty element refused 400",
        ("request-variants-answered-as-written",),
        on_response=refuses(_empty_list_element, 400, "MB-STATUS-2"),
    ),
    P(
        "empty-media-type-parameter-refused",
        "MB-WIRE-4 a batch media type with an empty parameter refused 400",
        ("request-variants-answered-as-written",),
        on_response=refuses(_empty_media_type_parameter, 400, "MB-WIRE-4"),
    ),
)
