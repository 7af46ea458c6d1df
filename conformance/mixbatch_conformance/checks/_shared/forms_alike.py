"""One batch result read in each form it was asked for, each 207 form's entries held to the
multipart form's parts.

MB-MULTI-5: "carry the same information in every representation of one batch result: for each
part, in order, its status or outcome, its `Content-Id` echo, its header fields and its body",
a skipped or rolled-back part as much as one that ran. The suite asks for each form with a batch
of its own, so what it compares are the results of the same batch sent once per form: fields
the target declares volatile are left out, and so are the members of a problem document that
may name the occurrence (RFC 9457 §3.1.5: `instance` identifies "the specific occurrence of
the problem"; `detail` and extension members may too), leaving those spec 5.3 fixes for a fault.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.representations import Entry
from mixbatch_conformance.core.validator import parse_media_type

__all__ = ["expect_entries_as_multipart"]

#: The problem document members a server writes alike for the same fault (RFC 9457 §3.1, spec
#: 5.3 and 9.1).
FAULT_MEMBERS = (
    "type",
    "title",
    "status",
    "requirement",
    "reference",
    "part_index",
    "byte_offset",
    "limit",
    "value",
)


def _comparable(
    entry: Entry, volatile: Iterable[str], members: Sequence[str]
) -> tuple[object, ...]:
    status, outcome, fields, body = entry.comparable(volatile)
    ctype = next((v for n, v in entry.fields if n.lower() == "content-type"), "")
    try:
        problem = parse_media_type(ctype)[0] == "application/problem+json"
        doc = loads_json_text(entry.body) if problem else None
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        kept = {k: doc[k] for k in members if k in doc}
        body = json.dumps(kept, sort_keys=True).encode()
    return (status, outcome, fields, body)


def expect_entries_as_multipart(
    judge: Judge,
    media: str,
    entries: Sequence[Entry],
    multipart: Sequence[Entry],
    volatile: Iterable[str],
    where: str = "",
    members: Sequence[str] = FAULT_MEMBERS,
) -> None:
    """Each of `media`'s `entries` carries what the multipart form's part at its place does;
    `where` names the batch in the expectation ("around 404"), and a problem document is
    compared by its `members`."""
    volatile = tuple(volatile)
    for i, (entry, mine) in enumerate(zip(entries, multipart, strict=False)):
        judge.expect(
            f"{media} part {i}{where} as in multipart/mixed",
            _comparable(entry, volatile, members),
            [_comparable(mine, volatile, members)],
            "MB-MULTI-5",
        )
