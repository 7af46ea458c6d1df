"""Octet-level views of a multipart/mixed body, for the fault addons that tamper with parts.

These helpers do no validation and are not a parser: they find the delimiter lines of a body
the reference server wrote, so an addon can cut, drop or repeat whole parts exactly. The suite's
own validator (``_validator``) and the codec judge the result.
"""

from __future__ import annotations

import itertools
import re

__all__ = ["boundary_of", "delimiter_positions", "split_parts"]

_BOUNDARY = re.compile(r';\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))', re.IGNORECASE)


def boundary_of(content_type: str | None) -> str | None:
    """The boundary parameter of a multipart/mixed Content-Type, or None for anything else."""
    if not content_type or not content_type.lower().lstrip().startswith("multipart/mixed"):
        return None
    match = _BOUNDARY.search(content_type)
    if match is None:
        return None
    return match.group(1) or match.group(2)


def delimiter_positions(body: bytes, boundary: str) -> list[int]:
    """Offsets where each delimiter line starts ("--boundary" at the start of a line)."""
    dash = re.escape(b"--" + boundary.encode("latin-1"))
    return [m.start(1) for m in re.finditer(rb"(?:^|\r\n)(" + dash + rb")", body)]


def split_parts(body: bytes, boundary: str) -> tuple[bytes, list[bytes], bytes]:
    """(head, parts, tail): ``parts[i]`` runs from its delimiter to just before the next one,
    and ``tail`` is the close delimiter and whatever follows. ``head`` is any preamble."""
    positions = delimiter_positions(body, boundary)
    if len(positions) < 2:
        return body, [], b""
    head = body[: positions[0]]
    parts = [body[a:b] for a, b in itertools.pairwise(positions)]
    return head, parts, body[positions[-1] :]
