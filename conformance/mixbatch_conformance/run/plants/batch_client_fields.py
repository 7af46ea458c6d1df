"""Planted violations of a batch answered whatever fields clients and hops add to it (spec 5.1,
8.2): a server that reads such a field as one of the batch's rules, or passes it to its parts.

- a batch carrying `Expect` refused 417 (Expectation Failed), as if the fields a part may not
  carry (MB-PART-9) bound the batch too (MB-STATUS-1);
- a batch carrying `Expect: 100-continue` answered with a 100 (Continue) and then as if it had
  no content, the content never read (MB-STATUS-1);
- a batch carrying `Pragma: no-cache` refused 400 (MB-STATUS-1);
- an HTTP/1.0 batch carrying `Expect: 100-continue` answered with a 100 (Continue) first,
  which RFC 9110 §15.2 forbids and its client reads as the answer (MB-STATUS-1);
- a batch carrying `Upgrade: h2c` handed to a handler that declines the upgrade after the
  platform stopped reading the connection, so it is answered as if it had no content
  (MB-STATUS-1);
- a batch carrying `Range` answered 206 with the octets the range names, as a `GET` would be,
  though RFC 9110 §14.2 defines range handling for `GET` only (MB-STATUS-1);
- the batch's `Cache-Control` applied to each part without one of its own (MB-SUB-6);
- a batch carrying `Cache-Control: no-cache` or `Pragma: no-cache` taken for a reload, each
  part's own `If-None-Match` and `If-Modified-Since` dropped (MB-SUB-6).

Each edits what the reference server receives, or answers for it, on batch requests only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    inherited,
    is_batch,
    parts_of,
    problem,
    without_field,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

CATCHER = "batch-answered-whatever-client-fields"
#: A byte range as `Range` names one (RFC 9110 §14.1.2), its first and last positions.
BYTE_RANGE = re.compile(r"\s*bytes\s*=\s*([0-9]+)-([0-9]+)\s*$", re.I)


def _refused_with(name: str, status: int) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req) and req.get(name) is not None:
            problem(resp, status, "MB-STATUS-1")

    return edit


def _expect_content_unread(req: RelayRequest) -> None:
    if is_batch(req) and (req.get("Expect") or "").strip().lower() == "100-continue":
        req.body = b""


def _continue_to_http10(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and req.version == "1.0" and req.get("Expect") is not None:
        resp.wire = lambda octets: b"HTTP/1.1 100 Continue\r\n\r\n" + octets


def _upgrade_content_lost(req: RelayRequest) -> None:
    if is_batch(req) and req.get("Upgrade") is not None:
        req.body = b""


def _range_applied(req: RelayRequest, resp: RelayResponse) -> None:
    m = BYTE_RANGE.match(req.get("Range") or "") if is_batch(req) else None
    if m is None or resp.status != 200:
        return
    first, last = int(m.group(1)), int(m.group(2))
    size = len(resp.body)
    resp.status = 206
    resp.set("Content-Range", f"bytes {first}-{min(last, size - 1)}/{size}")
    resp.body = resp.body[first : last + 1]


P = Mutation
#: What a reload drops from each part: the validators a cache would have sent.
RELOAD_DROPS = ("If-None-Match", "If-Modified-Since")


def _reload_drops_part_validators(req: RelayRequest) -> None:
    """A no-cache batch read as a browser's reload: its parts lose their validators."""
    asked = f"{req.get('Cache-Control') or ''},{req.get('Pragma') or ''}".lower()
    b = boundary_of(req)
    if "no-cache" not in asked or b is None or not is_batch(req):
        return
    parts = parts_of(req.body, b)
    if parts is None:
        return
    for name in RELOAD_DROPS:
        parts = [(without_field(f, name), body) for f, body in parts]
    req.body = write_parts(parts, b)


PLANTS: tuple[Mutation, ...] = (
    P(
        "batch-expect-refused-417",
        "MB-STATUS-1 a batch carrying Expect refused 417 instead of processed",
        (CATCHER,),
        on_response=_refused_with("Expect", 417),
    ),
    P(
        "batch-expect-continue-content-unread",
        "MB-STATUS-1 a batch carrying Expect: 100-continue answered 100, its content never read",
        (CATCHER,),
        on_request=_expect_content_unread,
        behaviour=Behaviour(interim_continue=True),
    ),
    P(
        "batch-pragma-refused",
        "MB-STATUS-1 a batch carrying Pragma: no-cache refused 400 instead of processed",
        (CATCHER,),
        on_response=_refused_with("Pragma", 400),
    ),
    P(
        "batch-http10-expect-answered-100",
        "MB-STATUS-1 an HTTP/1.0 batch carrying Expect answered 100 before its answer",
        (CATCHER,),
        on_response=_continue_to_http10,
    ),
    P(
        "batch-upgrade-content-lost",
        "MB-STATUS-1 a batch carrying Upgrade answered as if it had no content",
        (CATCHER,),
        on_request=_upgrade_content_lost,
    ),
    P(
        "batch-range-applied",
        "MB-STATUS-1 a batch carrying Range answered 206 with the range's octets",
        (CATCHER,),
        on_response=_range_applied,
    ),
    P(
        "cache-control-inherited",
        "MB-SUB-6 the batch request's Cache-Control applied to parts",
        (CATCHER, "client-fields-not-inherited"),
        on_request=inherited("Cache-Control"),
    ),
    P(
        "no-cache-batch-drops-part-validators",
        "MB-SUB-6 a no-cache batch taken for a reload, its parts' validators dropped",
        (CATCHER,),
        on_request=_reload_drops_part_validators,
    ),
)
