"""A fast, seeded mutator of whole HTTP batch requests, for the socket fuzzer.

Seeds are valid and invalid batches: every spec vector (``spec/examples/*.request.http`` with the
Content-Type of its ``.json``) and the campaign's normal batch, each wrapped in a POST request.
A mutation applies one to three edits, chosen by weight:

    flip        one bit of one octet
    insert      CR, LF, CRLF, NUL, "--", the boundary's delimiter, ":", SP, HTAB or ","
    delete      a short run of octets
    truncate    everything after some octet
    duplicate   a line (a field line, a delimiter line) written twice
    swap        two lines exchanged
    framing     the outer Content-Length or Transfer-Encoding replaced by a tricky value

Edits land in the outer header section or in the content, and most of them keep the outer
Content-Length equal to the content, so the request can share a keep-alive connection with the
next one; edits that break the outer framing are flagged (``Mutant.framing``), and the fuzzer
sends those alone on a connection it half-closes, so the peer always sees where input ends.
Everything is a pure function of the ``random.Random`` passed in, so a seed replays a run.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from ._case import NORMAL_CONTENT, post

__all__ = ["Mutant", "Seed", "load_seeds", "mutate"]

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
#: Octet strings an insert edit chooses from; the boundary's delimiter is added per seed.
TOKENS = (b"\r", b"\n", b"\r\n", b"\x00", b"--", b":", b" ", b"\t", b",", b"\r\n\r\n")
#: Outer framing fields a framing edit writes.
FRAMING = (
    b"Transfer-Encoding: chunked",
    b"Transfer-Encoding: chunked, chunked",
    b"Transfer-Encoding: gzip, chunked",
    b"Transfer-Encoding: xchunked",
    b"Content-Length: +1",
    b"Content-Length: 1, 2",
    b"Content-Length: 99999999999999999999",
    b"Content-Length: 0",
    b"Content-Encoding: gzip",
    b"Content-Type: multipart/mixed",
    b"Content-Type: text/plain",
    b"Expect: 100-continue",
    b"Connection: close",
    b"Batch-Mode: atomic",
    b"Accept: application/json",
)
_EDITS = ("flip", "insert", "delete", "truncate", "duplicate", "swap", "framing")
_WEIGHTS = (4, 6, 3, 1, 3, 2, 1)
#: Sub-request targets that would make a fuzz case slow on purpose; seeds avoid them.
_SLOW_TARGETS = (b"/delay/", b"delay/", b"/random/", b"random/")


@dataclass(frozen=True)
class Seed:
    name: str
    head: bytes  # the outer header section without Content-Length and the blank line
    content: bytes
    boundary: bytes


@dataclass(frozen=True)
class Mutant:
    data: bytes
    #: The outer framing may no longer say where the request ends.
    framing: bool
    seed: str
    edits: tuple[str, ...]


def _seed(name: str, content_type: str, content: bytes) -> Seed | None:
    if any(slow in content for slow in _SLOW_TARGETS):
        return None
    boundary = content_type.partition("boundary=")[2].split(";")[0].strip().strip('"')
    head = f"POST /batch HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}".encode("latin-1")
    return Seed(name, head, content, boundary.encode("latin-1"))


def load_seeds() -> list[Seed]:
    seeds: list[Seed] = []
    for http in sorted(EXAMPLES.glob("*.request.http")):
        meta = json.loads(http.with_suffix(".json").read_text())
        content_type = meta.get("content_type")
        context = meta.get("context") or {}
        if not isinstance(content_type, str) or context.get("method", "POST") != "POST":
            continue
        found = _seed(http.stem, content_type, http.read_bytes())
        if found is not None:
            seeds.append(found)
    normal = post(NORMAL_CONTENT)
    head, _, content = normal.partition(b"\r\n\r\n")
    head = b"\r\n".join(
        line for line in head.split(b"\r\n") if not line.startswith(b"Content-Length")
    )
    seeds.append(Seed("normal", head, content, b"adv-boundary-0123456789"))
    return seeds


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\r\n")


def _edit(rng: random.Random, data: bytes, kind: str, boundary: bytes) -> bytes:
    n = len(data)
    if kind == "flip" and n:
        i = rng.randrange(n)
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    if kind == "insert":
        i = rng.randint(0, n)
        token = rng.choice((*TOKENS, b"\r\n--" + boundary, b"--" + boundary + b"--"))
        return data[:i] + token + data[i:]
    if kind == "delete" and n:
        i = rng.randrange(n)
        return data[:i] + data[i + rng.randint(1, 8) :]
    if kind == "truncate" and n:
        return data[: rng.randrange(n)]
    if kind in ("duplicate", "swap"):
        lines = _lines(data)
        if len(lines) >= 2:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == "duplicate":
                lines.insert(i, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            return b"\r\n".join(lines)
    return data


def mutate(rng: random.Random, seed: Seed) -> Mutant:
    """One mutant of ``seed``: one to three edits to its header section or its content."""
    head, content = seed.head, seed.content
    framing = False
    edits: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        kind = rng.choices(_EDITS, _WEIGHTS)[0]
        edits.append(kind)
        if kind == "framing":
            head += b"\r\n" + rng.choice(FRAMING)
            framing = True
        elif rng.random() < 0.2:
            head = _edit(rng, head, kind, seed.boundary)
            framing = True
        else:
            content = _edit(rng, content, kind, seed.boundary)
    data = head + b"\r\nContent-Length: %d\r\n\r\n" % len(content) + content
    return Mutant(data, framing, seed.name, tuple(edits))
