"""Planted violations of MB-PROC-20 that read a reference from a part that failed or was
skipped, because its response part carries the field the reference names.

Theory of operation: the reference server answers such a reference skipped, with the MB-PROC-20
problem naming it. Each plant reads the answer part by part, in order, as the planted server
would have run it: a skipped part whose problem names `$(N:name)` or `$(N)`, where part N (as
already edited) is in the state the planted server wrongly takes for usable and carries that
field (`Location` for `$(N)`) on one line, is turned into the part that ran: a 200 whose body
is the echo's description (MB-TEST-2) of the request part with the reference replaced by that
value. One plant takes a part that ran with any status for usable (a failed part's `ETag` or
`Content-Type` read), another a skipped part (the fields of its problem read). A third goes the
other way: a part whose field value refers to a part answered 3xx, which did not fail, is
skipped with the MB-PROC-20 problem, as a server that counts only 2xx as success answers it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    parts_of,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_REFERENCES = header_has("Batch-Mode", r"(?i)\breferences\b")
_REFERENCE = re.compile(r"^\$\((0|[1-9][0-9]*)(?::([!#$%&'*+.^_`|~0-9A-Za-z-]+))?\)$")
#: The request part fields that are no header field of the sub-request.
_CONTROL = frozenset({"http-method", "content-id", "content-length"})

Usable = Callable[[Part], bool]


def _unresolved_reference(part: Part) -> str | None:
    """The `reference` of a skipped part's MB-PROC-20 problem."""
    fields, body = part
    if field_of(fields, "Batch-Outcome") != "skipped" or b"MB-PROC-20" not in body:
        return None
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    ref = doc.get("reference") if isinstance(doc, dict) else None
    return ref if isinstance(ref, str) else None


def _value(part: Part, name: str) -> str | None:
    values = [v for n, v in part[0] if n.lower() == name.lower()]
    return values[0] if len(values) == 1 else None


def _ran(request: Part, written: str, value: str, authority: str) -> Part:
    """The part as it runs with `written` replaced by `value`: the echo's description."""
    fields = [(n, v.replace(written, value)) for n, v in request[0]]
    cid = field_of(fields, "Content-Id") or "<>"
    doc = {
        "method": field_of(fields, "Http-Method") or "GET",
        "target": cid[1:-1] if cid.startswith("<") and cid.endswith(">") else cid,
        "authority": authority,
        "headers": [[n, v] for n, v in fields if n.lower() not in _CONTROL],
        "body": request[1].decode("latin-1"),
    }
    body = json.dumps(doc).encode()
    out = [
        ("Http-Status-Code", "200"),
        ("Content-Id", field_of(request[0], "Content-Id") or ""),
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(body))),
    ]
    return out, body


def _paired(req: RelayRequest, resp: RelayResponse) -> tuple[list[Part], list[Part], str] | None:
    """A references batch's request parts, its answer's parts (as many) and the answer's
    boundary; None for any other exchange."""
    rb, sb = boundary_of(req), boundary_of(resp)
    if not rb or not sb or not is_batch(req) or not _REFERENCES(req):
        return None
    requests, answers = parts_of(req.body, rb), parts_of(resp.body, sb)
    if requests is None or answers is None or len(requests) != len(answers):
        return None
    return requests, answers, sb


def _reads(usable: Usable) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        paired = _paired(req, resp)
        if paired is None:
            return
        requests, answers, sb = paired
        authority = next((v for n, v in req.headers if n.lower() == "host"), "")
        out: list[Part] = []
        for request, answer in zip(requests, answers, strict=True):
            written = _unresolved_reference(answer)
            m = _REFERENCE.match(written or "")
            if written is not None and m is not None and int(m.group(1)) < len(out):
                named = out[int(m.group(1))]
                value = _value(named, m.group(2) or "Location")
                if value is not None and usable(named):
                    answer = _ran(request, written, value, authority)
            out.append(answer)
        resp.body = write_parts(out, sb)

    return edit


def _ran_at_all(part: Part) -> bool:
    """A part that ran, whatever its status: a failed one included."""
    return field_of(part[0], "Http-Status-Code") is not None


def _skipped(part: Part) -> bool:
    return field_of(part[0], "Batch-Outcome") == "skipped"


#: A reference anywhere in a part field value: `_REFERENCE` without its anchors.
_WRITTEN = re.compile(_REFERENCE.pattern.removeprefix("^").removesuffix("$"))


def _unresolved(request: Part, written: str) -> Part:
    """The MB-PROC-20 answer to `request`, skipped for the reference `written`."""
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Unresolved reference",
            "status": 424,
            "requirement": "MB-PROC-20",
            "reference": written,
        }
    ).encode()
    fields = [
        ("Content-Id", field_of(request[0], "Content-Id") or ""),
        ("Batch-Outcome", "skipped"),
        ("Content-Type", "application/problem+json"),
        ("Content-Length", str(len(body))),
    ]
    return fields, body


def _3xx_taken_for_failed(req: RelayRequest, resp: RelayResponse) -> None:
    """A part that refers to one answered 3xx skipped as unresolved: success read as 2xx."""
    paired = _paired(req, resp)
    if paired is None:
        return
    requests, answers, sb = paired
    statuses = [field_of(f, "Http-Status-Code") or "" for f, _ in answers]
    out: list[Part] = []
    for request, answer in zip(requests, answers, strict=True):
        for name, value in request[0]:
            if name.lower() in _CONTROL:
                continue
            m = _WRITTEN.search(value)
            if m and int(m.group(1)) < len(statuses) and statuses[int(m.group(1))][:1] == "3":
                answer = _unresolved(request, m.group(0))
                break
        out.append(answer)
    resp.body = write_parts(out, sb)


P = Mutation

PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-20: a reference cannot be resolved when "the part it names failed (status 400 or
    # above), was skipped or did not run".
    P(
        "failed-part-fields-referenced",
        "MB-PROC-20 a reference to a failed part resolved from the fields its response carries",
        ("references-to-failed-or-skipped-parts",),
        on_response=_reads(_ran_at_all),
    ),
    P(
        "skipped-part-fields-referenced",
        "MB-PROC-20 a reference to a skipped part resolved from its problem's fields",
        ("references-to-failed-or-skipped-parts",),
        on_response=_reads(_skipped),
    ),
    # MB-PROC-20 counts as failed only "status 400 or above".
    P(
        "redirect-part-taken-for-failed",
        "MB-PROC-20 a reference to a part answered 3xx taken for unresolved, success read as 2xx",
        ("references-to-parts-below-400",),
        on_response=_3xx_taken_for_failed,
    ),
)
