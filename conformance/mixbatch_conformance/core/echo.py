"""Reading what an echo resource says it received.

Theory of operation: the target's `echo` resource "answers any request with a description of
the request it received" (target.schema.json). Checks that must observe a request the suite
cannot see on the wire (a sub-request inside a server, a request a proxy forwarded) read that
description. The suite understands one form, the reference server's: a JSON object with
`method`, `target`, `headers` as [name, value] pairs in received order, and the content as
`body` (UTF-8 text) or `body_base64`; an optional `authority` names the authority the request
was addressed to (its Host). An answer in any other form makes the check N/A: the
suite cannot judge what it cannot read, and must not guess.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

__all__ = ["Echo", "read_echo"]


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
        doc = json.loads(content)
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
    if isinstance(doc.get("body"), str):
        body = doc["body"].encode("utf-8")
    elif isinstance(doc.get("body_base64"), str):
        try:
            body = base64.b64decode(doc["body_base64"], validate=True)
        except (binascii.Error, ValueError):
            return None
    else:
        return None
    authority = doc.get("authority")
    return Echo(
        method, target, tuple(pairs), body, authority if isinstance(authority, str) else None
    )
