"""Bombs and limits: each published limit at its value and one over it.

The limits are read from the peer's capabilities document (MB-LIMIT-2), never from code, so the
builders here take the published ``limits`` and write the batch that sits exactly on a limit
(answered 200, every part answered, MB-STATUS-1) and the one that is one unit over it (413, or 431
for a part header section, before any part runs, MB-STATUS-3, with the limit named, MB-LIMIT-4).
``max_part_fields`` bounds the field lines of one part header section (MB-LIMIT-5); a part of
1,600 empty ``a:`` fields is the amplification it exists for.
"""

from __future__ import annotations

from collections.abc import Callable

from ._case import Case, Close, Limits, batch, part, post, statuses

__all__ = ["CASES"]

#: Writes a batch at a limit plus the given number of units.
Builder = Callable[[Limits, int], bytes]
#: The outer header section the server accepts (h11's default); not a published batch limit.
OUTER_HEADER_BUDGET = 16 * 1024


def _parts(limits: Limits, over: int) -> bytes:
    count = limits["max_parts"] + over
    return post(batch(*[part("GET", "/status/204")] * count))


def _header_section(limits: Limits, over: int) -> bytes:
    """One part whose header section is the limit plus ``over`` octets: its field lines with
    their CRLFs, not the empty line that ends it (spec §9.1, "What each limit counts")."""
    head = b"Http-Method: GET\r\nContent-Id: </books/1>\r\nX-Pad: "
    size = limits["max_part_header_bytes"] + over
    pad = size - len(head) - len(b"\r\n")
    return post(batch(part(raw_head=head + b"p" * pad + b"\r\n\r\n")))


def _fields(count: int) -> bytes:
    head = b"Http-Method: GET\r\nContent-Id: </books/1>\r\n" + b"a:\r\n" * (count - 2) + b"\r\n"
    return post(batch(part(raw_head=head)))


def _field_lines(limits: Limits, over: int) -> bytes:
    return _fields(limits["max_part_fields"] + over)


def _part_body(limits: Limits, over: int) -> bytes:
    body = b"x" * (limits["max_part_bytes"] + over)
    return post(
        batch(part("PUT", "/status/204", [("Content-Type", "application/octet-stream")], body))
    )


def _batch_bytes(limits: Limits, over: int) -> bytes:
    """A batch of exactly ``max_batch_bytes`` (+ ``over``) octets, in parts within the part limit."""
    total = limits["max_batch_bytes"] + over
    per_part = min(limits["max_part_bytes"], 64 * 1024)
    shell = len(batch(part("PUT", "/status/204", [], b"x")))  # framing of one part and the close
    parts: list[bytes] = []
    remaining = total
    while True:
        one = len(batch(part("PUT", "/status/204", [], b"x" * per_part))) - len(batch())
        if remaining - one < shell + 16:
            break
        parts.append(part("PUT", "/status/204", [], b"x" * per_part))
        remaining -= one
    # The last part takes what is left; its Content-Length digits change its framing size.
    for guess in range(max(1, remaining - shell - 8), remaining + 1):
        last = part("PUT", "/status/204", [], b"x" * guess)
        if len(batch(*parts, last)) == total:
            return post(batch(*parts, last))
    raise AssertionError(f"no batch of exactly {total} octets")


def at(name: str, build: Builder, requirement: str = "MB-STATUS-1") -> Case:
    return Case(
        f"{name}-at-limit",
        lambda limits: build(limits, 0),
        statuses(200),
        f"MB-LIMIT-1: a batch exactly at the published {name} is within it and runs ({requirement})",
        check="all_parts_answered",
    )


def over(name: str, build: Builder, status: int = 413) -> Case:
    return Case(
        f"{name}-one-over-limit",
        lambda limits: build(limits, 1),
        statuses(status),
        f"MB-STATUS-3: one over the published {name} is answered {status} before any part runs",
        limit=name,
    )


CASES = [
    at("max_parts", _parts),
    over("max_parts", _parts),
    at("max_part_header_bytes", _header_section),
    over("max_part_header_bytes", _header_section, 431),
    at("max_part_fields", _field_lines),
    over("max_part_fields", _field_lines, 431),
    Case(
        "field-dense-part-1600-empty-fields",
        _fields(1600),
        statuses(431),
        "MB-LIMIT-5: field lines per part are limited and published as max_part_fields; 431 names it",
        limit="max_part_fields",
    ),
    at("max_part_bytes", _part_body),
    over("max_part_bytes", _part_body),
    at("max_batch_bytes", _batch_bytes),
    over("max_batch_bytes", _batch_bytes),
    Case(
        "outer-header-section-over-16k",
        post(batch(part()), fields=[("X-Pad", "p" * OUTER_HEADER_BUDGET)]),
        statuses(431),
        "RFC 6585 §5: a request header section too large is answered 431",
        Close.MUST,
    ),
    Case(
        "outer-request-target-over-16k",
        post(batch(part()), target="/batch?" + "q" * OUTER_HEADER_BUDGET),
        statuses(414, 431, 400),
        "RFC 9112 §3: a request-target longer than the server parses is answered 414 (or the "
        "section is over its size, 431)",
        Close.MUST,
    ),
    Case(
        "outer-many-empty-fields",
        post(batch(part()), fields=[("a", "")] * 3000),
        statuses(200, 431),
        "RFC 6585 §5: within the header budget it runs; over it 431",
    ),
]
