"""Member documents a check writes to the sandbox, and how it recognises them read back
(spec 14.4: MB-TEST-3, MB-TEST-4)."""

from __future__ import annotations

import json
from typing import Any

from mixbatch_conformance.core.context import SubRequest
from mixbatch_conformance.core.json_text import loads_json_text, same_json_value

__all__ = ["holds_written", "json_write", "tagged"]


def json_write(method: str, path: str, doc: dict[str, Any]) -> SubRequest:
    """A write of `doc` to `path` as `application/json`, the media type MB-TEST-3 sends a member
    document in."""
    return SubRequest(
        method, path, (("Content-Type", "application/json"),), json.dumps(doc).encode()
    )


def tagged(member: dict[str, Any], tag: str) -> dict[str, Any]:
    """`member` with each string member's value replaced by `tag` (MB-TEST-3: "a check may
    change the values of its string members to tell its writes apart")."""
    return {k: tag if isinstance(v, str) else v for k, v in member.items()}


def holds_written(body: bytes, written: dict[str, Any]) -> bool:
    """MB-TEST-4: "an object holding every member of the object written, with the same values"."""
    try:
        doc = loads_json_text(body)
    except ValueError:
        return False
    return isinstance(doc, dict) and all(
        k in doc and same_json_value(doc[k], v) for k, v in written.items()
    )
