"""Receiving a batch whole and validating it before anything goes upstream (MB-PROXY-3).

MB-PROXY-3: "A batching proxy MUST receive and validate the whole envelope, as a batch server
does under MB-PROC-1, before it forwards any part." The shared ``mixbatch.envelope`` reader does
that (framing, part headers, targets, nesting, limits, spooled bodies); the proxy adds one
refusal of its own: a part carrying a field that would name another authority.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from mixbatch._http.budget import Ticket
from mixbatch.codec import Fields, Limits, RemoteProtocolError
from mixbatch.envelope import Envelope, EnvelopeReader, Part, check_declared_length

__all__ = ["AUTHORITY_FIELDS", "Envelope", "PartSpec", "receive"]

#: The proxy's name for a validated part waiting to be forwarded.
PartSpec = Part

#: Fields by which a request can tell an origin (or a framework behind it) to act as if it had
#: been sent to another host, scheme or path. Host itself is forbidden by the codec (MB-PART-9);
#: these ask for the same thing in other words, so a part carrying one is refused (MB-SUB-2 in
#: spirit: "a scheme or authority other than the batch request's own"; MB-PROXY-1: one origin).
AUTHORITY_FIELDS = frozenset(
    {
        "forwarded",
        "x-forwarded-host",
        "x-forwarded-proto",
        "x-forwarded-port",
        "x-forwarded-server",
        "x-forwarded-scheme",
        "x-host",
        "x-http-host-override",
        "x-original-host",
        "x-original-url",
        "x-rewrite-url",
    }
)


def authority_field(fields: Fields) -> str | None:
    """The first field of ``fields`` that would change the request's authority, if any."""
    for name, _value in fields:
        if name.lower() in AUTHORITY_FIELDS:
            return name
    return None


async def receive(
    content: AsyncIterator[bytes | bytearray | memoryview],
    boundary: str,
    *,
    path: str,
    scheme: str,
    authority: str,
    declared_length: int | None,
    limits: Limits,
    ticket: Ticket | None = None,
) -> Envelope:
    """Read and validate the whole batch; raises ``MixbatchError`` while nothing was forwarded,
    or ``BudgetExhausted`` when a chunked batch outgrows what ``ticket`` may charge."""
    check_declared_length(declared_length, limits)
    reader = EnvelopeReader(
        boundary, base=path, scheme=scheme, authority=authority, batch_paths=(path,), limits=limits
    )
    received = 0
    try:
        async for chunk in content:
            received += len(chunk)
            if ticket is not None:
                ticket.charge(received)
            reader.feed(chunk)
    except BaseException:
        reader.abandon()
        raise
    envelope = reader.finish()
    for part in envelope.parts:
        name = authority_field(part.fields)
        if name is not None:
            envelope.close()
            raise RemoteProtocolError(
                f"part field {name!r} would send the sub-request to another authority than "
                "the proxy's one origin",
                requirement="MB-SUB-2",
                slug="cross-origin-target",
                title="Target outside the batch's origin",
                part_index=part.index,
                offset=part.offset,
            )
    return envelope
