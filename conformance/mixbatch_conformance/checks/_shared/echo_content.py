"""How the echo's description carries the content it received (spec 14.4, MB-TEST-2): "exactly
one of `body`, the content as a string when its octets are valid UTF-8, and `body_base64`, the
content in base64 (RFC 4648 §4) otherwise", valid UTF-8 being RFC 3629's, as Python's strict
decoder reads it.
"""

from __future__ import annotations

from mixbatch_conformance.core.echo import Echo
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge

__all__ = ["expect_echo_content", "is_utf8"]


def is_utf8(octets: bytes) -> bool:
    """Whether `octets` are valid UTF-8 (RFC 3629: no encoded surrogate, no overlong form,
    nothing past U+10FFFF)."""
    try:
        octets.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def expect_echo_content(
    judge: Judge,
    label: str,
    content: bytes,
    body: bytes,
    seen: Echo,
    requirement: str | None = None,
) -> None:
    """The description `body` (read as `seen`) holds exactly one content member, the one
    `content`'s octets choose, and it carries exactly those octets."""
    doc = loads_json_text(body)
    members = sorted(k for k in ("body", "body_base64") if k in doc)
    want = ["body"] if is_utf8(content) else ["body_base64"]
    judge.expect(f"{label} content member", members, [want], requirement)
    judge.expect(f"{label} content", seen.body, {content}, requirement)
