"""Reading what an echo resource says it received.

Theory of operation: the target's `echo` resource "answers any request with a description of
the request it received" (target.schema.json). Checks that must observe a request the suite
cannot see on the wire (a sub-request inside a server, a request a proxy forwarded) read that
description. The suite understands one form, the reference server's: a JSON object with
`method`, `target`, `headers` as [name, value] pairs in received order, and the content as
`body` (UTF-8 text) or `body_base64`; an optional `authority` names the authority the request
was addressed to (its Host). An answer in any other form makes the check N/A: the
suite cannot judge what it cannot read, and must not guess.

`differences` compares two descriptions by the rules of spec 3.2.4, which MB-TEST-2 makes the
rules for the echo: "`method`, `target`, `authority` and the content exactly, and `headers`
after leaving out the framing fields, `Date` and the target's `volatile_headers` on both sides,
names compared case-insensitively". Where a server's HTTP stack puts `Host` and
`Content-Length`, whether an empty POST carries `Content-Length: 0`, and the case of a field
name are outside the comparison, so two servers that differ only there both pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbatch_conformance.core.base64_text import decode_base64
from mixbatch_conformance.core.json_text import loads_json_text

__all__ = ["FRAMING_FIELDS", "Echo", "comparable_headers", "differences", "read_echo"]

#: Spec 3.2.4: "leaving out on both sides the framing and connection fields (`Host`,
#: `Content-Length`, `Transfer-Encoding`, `Connection` and the other fields MB-PART-9 names),
#: `Date`, and any field that the one comparing has declared volatile".
FRAMING_FIELDS = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "upgrade",
        "expect",
        "trailer",
        "content-transfer-encoding",
        "http-status-code",
        "date",
    }
)


@dataclass(frozen=True)
class Echo:
    """One request as the echo resource saw it."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    #: The authority the request was addressed to, when the echo says (None: it does not).
    authority: str | None = None

    def get_all(self, name: str) -> list[str]:
        return [v for n, v in self.headers if n.lower() == name.lower()]

    def names(self) -> set[str]:
        return {n.lower() for n, _ in self.headers}


def read_echo(content: bytes) -> Echo | None:
    """The echo description in `content`, or None when it is not in the form above."""
    try:
        doc = loads_json_text(content)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    method, target, headers = doc.get("method"), doc.get("target"), doc.get("headers")
    if not (isinstance(method, str) and isinstance(target, str) and isinstance(headers, list)):
        return None
    pairs = []
    for pair in headers:
        if not (
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
        ):
            return None
        pairs.append((pair[0], pair[1]))
    # MB-TEST-2: "`body`, the content as a string when its octets are valid UTF-8, and
    # `body_base64`, the content in base64 (RFC 4648 §4) otherwise": a string with a lone
    # surrogate is no UTF-8 text, and base64 is the octets' one encoding (core.base64_text).
    try:
        if isinstance(doc.get("body"), str):
            body = doc["body"].encode("utf-8")
        elif isinstance(doc.get("body_base64"), str):
            body = decode_base64(doc["body_base64"])
        else:
            return None
    except (UnicodeEncodeError, ValueError):
        return None
    authority = doc.get("authority")
    return Echo(
        method, target, tuple(pairs), body, authority if isinstance(authority, str) else None
    )


#: Spec 3.2.4 compares the credential fields apart, each after the other fields (0).
CREDENTIAL_ORDER = {"authorization": 1, "cookie": 2}


def comparable_headers(
    headers: tuple[tuple[str, str], ...], volatile: tuple[str, ...] | list[str] = ()
) -> tuple[tuple[str, str], ...]:
    """The header fields spec 3.2.4 compares: names lower-cased, framing and volatile left out.

    Spec 3.2.4: "the lines of `Authorization` and of `Cookie` are compared apart from the
    others, each field as the ordered list of its own lines, wherever they stand": the
    credential lines come last, Authorization before Cookie, each name's lines in their order
    (where a server puts the lines a part inherits under MB-SUB-5 is not fixed)."""
    skip = FRAMING_FIELDS | {v.lower() for v in volatile}
    kept = [(n.lower(), v) for n, v in headers if n.lower() not in skip]
    return tuple(sorted(kept, key=lambda f: CREDENTIAL_ORDER.get(f[0], 0)))


def differences(got: Echo, want: Echo, volatile: tuple[str, ...] | list[str] = ()) -> list[str]:
    """How `got` differs from `want` as requests under spec 3.2.4 (empty: the same request).

    The authority is compared only when both descriptions state it: MB-TEST-2 requires it, but
    an echo without it says nothing either way.
    """
    out = []
    if got.method != want.method:
        out.append(f"method {got.method!r}, alone {want.method!r}")
    if got.target != want.target:
        out.append(f"target {got.target!r}, alone {want.target!r}")
    if (
        got.authority is not None
        and want.authority is not None
        and got.authority.lower() != want.authority.lower()
    ):
        out.append(f"authority {got.authority!r}, alone {want.authority!r}")
    if got.body != want.body:
        out.append(f"content {got.body[:60]!r} ({len(got.body)} octets), alone {want.body[:60]!r}")
    mine, theirs = (
        comparable_headers(got.headers, volatile),
        comparable_headers(want.headers, volatile),
    )
    if mine != theirs:
        out.append(f"header fields {list(mine)!r}, alone {list(theirs)!r}")
    return out
