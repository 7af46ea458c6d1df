"""Corpus checks: every request vector in spec/examples replayed against the target.

Theory of operation: a vector is NAME.http (the exact body octets) plus NAME.json (context,
requirements, and either the parts a receiver finds or the error it reports). Each request
vector becomes one check with the stable id `vector-NAME`. The body is sent as is with the
vector's Content-Type, except for the context the vector was written in: Content-Id values
naming the vector's authority (example.test) or its batch path are rewritten to the target's
(only inside Content-Id lines, so no part body and no Content-Length changes).

Valid vectors must be answered 200 multipart/mixed with one part per request part in order
(MB-RESP-1, Content-Id echoed); invalid ones with the vector's status and problem+json, whose
`part_index` and `byte_offset`, when given, are the vector's (the offset moved by whatever the
rewritten Content-Id values before it added or took away), and are left out or null where the
vector's are null (spec 5.3: a fault not in the content). A located fault that lies past a sound
first delimiter line is sent twice more: after a preamble, and with transport padding on that
line; each is the same fault (MB-WIRE-9, MB-WIRE-11), its offset moved by the octets added
before it, since an offset counts "from the start of the request content" (MB-STATUS-4).
A vector that assumes limits (its own `limits`, or the defaults for a 413/431 vector) runs
only when the target publishes those same limits; a valid vector that writes (a method
other than GET, HEAD, OPTIONS) runs only against a disposable target such as the embedded
reference server, so that replaying the corpus never changes a real service's data.
Response vectors are for clients; the self-tests use them to test the suite's validator.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import (
    expect_located,
    expect_processed,
    expect_rejected,
)
from mixbatch_conformance.core.registry import BOTH_ROLES, Check, State, register
from mixbatch_conformance.core.requirements import spec_dir
from mixbatch_conformance.core.target import ALL_PROFILES
from mixbatch_conformance.transport.http import Response

__all__ = [
    "DEFAULT_LIMITS",
    "Vector",
    "load_vectors",
    "rewrite_for_target",
    "shifted_offset",
    "vector_profile",
]

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
DEFAULT_LIMITS = {
    "max_parts": 10_000,
    "max_part_header_bytes": 8_192,
    "max_part_bytes": 16 * 1024 * 1024,
    "max_batch_bytes": 64 * 1024 * 1024,
}
CONTENT_ID_LINE = re.compile(rb"(?im)^(content-id:[ \t]*<)([^>\r\n]*)(>)")
#: A preamble of one line, which a receiver ignores (MB-WIRE-9) but counts in every offset.
PREAMBLE = b"mb-suite preamble, to be ignored\r\n"
#: Transport padding on the first delimiter line, which a receiver accepts (MB-WIRE-11).
PADDING = b" \t "
BOUNDARY_PARAM = re.compile(r'(?i);\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]+))')


@dataclass(frozen=True)
class Vector:
    """One vector: its JSON description and its body octets."""

    name: str
    meta: dict[str, Any]
    body: bytes

    @property
    def direction(self) -> str:
        return str(self.meta["direction"])


def load_vectors(directory: Path | None = None) -> list[Vector]:
    """Every NAME.json with a sibling NAME.http under spec/examples, sorted by name."""
    base = directory or spec_dir() / "examples"
    out = []
    for meta_path in sorted(base.glob("*.json")):
        http = meta_path.with_suffix(".http")
        if not http.is_file():
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        out.append(Vector(meta_path.stem, meta, http.read_bytes()))
    return out


def rewrite_for_target(
    vector: Vector, authority: str, batch_path: str, scheme: str = "http"
) -> bytes:
    """The vector body with its Content-Id context moved to the target (see docstring)."""
    ctx = vector.meta["context"]
    old_authority = str(ctx.get("authority", "example.test"))
    old_batch = str(ctx.get("target", "/batch"))

    def sub(m: re.Match[bytes]) -> bytes:
        ref = retarget(
            m.group(2).decode("latin-1"), old_authority, old_batch, authority, batch_path, scheme
        )
        return m.group(1) + ref.encode("latin-1") + m.group(3)

    return CONTENT_ID_LINE.sub(sub, vector.body)


UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _decode_unreserved(path: str) -> str:
    """RFC 3986 §6.2.2.2: percent-encoded unreserved characters decoded, nothing else."""

    def one(m: re.Match[str]) -> str:
        char = chr(int(m.group(1), 16))
        return char if char in UNRESERVED else m.group(0)

    return re.sub(r"%([0-9A-Fa-f]{2})", one, path)


def _remove_dots(path: str) -> str:
    """RFC 3986 §5.2.4 remove_dot_segments."""
    out: list[str] = []
    for seg in path.split("/")[1:] if path.startswith("/") else path.split("/"):
        if seg == "..":
            if out:
                out.pop()
        elif seg != ".":
            out.append(seg)
    tail = "/" if path.endswith(("/.", "/..")) else ""
    return "/" + "/".join(out) + tail


def _resolve(path: str, base: str) -> str:
    if path.startswith("/"):
        return _remove_dots(path)
    return _remove_dots(posixpath.join(posixpath.dirname(base), path) if path else base)


def _respell(path: str, new_batch: str) -> str:
    """`new_batch` spelled the way `path` spells the vector's batch endpoint (MB-SUB-4: every
    spelling counts: a query, percent-encoded unreserved characters, dot segments)."""
    leaf = posixpath.basename(new_batch)
    if "%" in path:
        head, _, _ = new_batch.rpartition("/")
        if leaf:
            return f"{head}/%{ord(leaf[0]):02x}{leaf[1:]}"
        return new_batch
    segments = path.split("/")
    if any(s in (".", "..") for s in segments):
        if path.startswith("/"):
            return "/" + "/".join(s for s in segments[1:-1]) + new_batch
        return "/".join([*segments[:-1], leaf])
    if path and not path.startswith("/"):
        return "/".join([*segments[:-1], leaf])
    return new_batch


def retarget(
    ref: str,
    old_authority: str,
    old_batch: str,
    authority: str,
    batch_path: str,
    scheme: str = "http",
) -> str:
    """A vector's Content-Id reference moved from its context to the target's.

    A same-origin absolute URI gets the target's scheme and authority (its scheme and host in
    upper case when the vector's were not in lower case, since their case does not matter under
    MB-SUB-2): a vector's ``http://example.test`` is the target's own origin, which is
    ``https://…`` for a target reached over TLS. A reference
    that names the vector's batch endpoint names the target's, in the same spelling; anything
    else is left as written.
    """
    if ref == "":
        return ref
    parts = urlsplit(ref)
    prefix = ""
    if parts.scheme or ref.startswith("//"):
        try:
            port = parts.port
        except ValueError:
            return ref
        same = (
            parts.scheme.lower() == "http"
            and (parts.hostname or "") == old_authority.lower()
            and port in (None, 80)
            and parts.username is None
        )
        if not same:
            return ref
        spelled = parts.netloc.split("@")[-1].split(":")[0]
        shown = authority.upper() if spelled != spelled.lower() else authority
        written = ref.split(":", 1)[0]  # urlsplit lower-cases the scheme
        own = scheme.upper() if written != written.lower() else scheme
        prefix = f"{own}://{shown}"
    path = parts.path
    named = _decode_unreserved(_resolve(path, old_batch)) == old_batch
    new_path = _respell(path, batch_path) if named else path
    if prefix and not new_path.startswith("/"):
        new_path = "/" + new_path
    query = f"?{parts.query}" if parts.query or ref.endswith("?") else ""
    fragment = f"#{parts.fragment}" if parts.fragment or "#" in ref else ""
    return prefix + new_path + query + fragment


def shifted_offset(vector: Vector, authority: str, batch_path: str, scheme: str, at: int) -> int:
    """Offset `at` of the vector's body, moved to where it lies in the rewritten body."""
    ctx = vector.meta["context"]
    old_authority = str(ctx.get("authority", "example.test"))
    old_batch = str(ctx.get("target", "/batch"))
    moved = at
    for m in CONTENT_ID_LINE.finditer(vector.body):
        if m.start(2) >= at:
            break
        old = m.group(2).decode("latin-1")
        new = retarget(old, old_authority, old_batch, authority, batch_path, scheme)
        moved += len(new.encode("latin-1")) - len(m.group(2))
    return moved


def _expect_vector_location(ctx: Context, judge: Judge, vector: Vector, resp: Response) -> None:
    error = vector.meta["error"]
    if error.get("byte_offset") is None and error.get("part_index") is None:
        doc = problem_of(resp)
        if doc is not None and resp.status == error["status"]:
            # Spec 5.3: `byte_offset` is "absent or null where the fault is not in the content
            # (the top-level `Content-Type`, a limit on the whole batch, a 503)".
            judge.expect("problem byte_offset", doc.get("byte_offset"), {None}, "MB-STATUS-4")
        return
    if resp.status != error["status"]:
        return
    offset = shifted_offset(vector, ctx.authority, ctx.batch_path, ctx.scheme, error["byte_offset"])
    # MB-STATUS-4: "`part_index` (from 0) and `byte_offset` ... members when the server knows
    # them", placed by spec 5.3's convention as the vector states.
    expect_located(judge, resp, error["part_index"], offset)


def _first_line(vector: Vector) -> bytes | None:
    """The vector's first delimiter line, CRLF included, when its body opens with a sound one
    (no preamble, no padding) and its fault lies past it; None otherwise."""
    m = BOUNDARY_PARAM.search(str(vector.meta["content_type"]))
    error = vector.meta["error"]
    if m is None or error.get("byte_offset") is None or error["status"] in (413, 415):
        return None
    line = b"--" + (m.group(1) or m.group(2)).encode("latin-1") + b"\r\n"
    at: int = error["byte_offset"]
    return line if vector.body.startswith(line) and at >= len(line) else None


def _expect_moved_location(
    ctx: Context, judge: Judge, vector: Vector, head: list[tuple[str, str]], body: bytes
) -> None:
    """The same fault after a preamble and after padding on the first delimiter line: the same
    status, and the location moved by the octets added before the fault."""
    line = _first_line(vector)
    if line is None:
        return
    error = vector.meta["error"]
    offset = shifted_offset(vector, ctx.authority, ctx.batch_path, ctx.scheme, error["byte_offset"])
    variants = (
        # MB-WIRE-9: "A receiver MUST ignore the preamble (the octets before the first
        # delimiter)".
        ("after a preamble", PREAMBLE + body, len(PREAMBLE), "MB-WIRE-9"),
        # MB-WIRE-11: "A receiver MUST accept transport padding (any number of SP and HTAB)
        # between a boundary delimiter and the CRLF that ends its line".
        (
            "with padding on the first delimiter line",
            line[:-2] + PADDING + body[len(line) - 2 :],
            len(PADDING),
            "MB-WIRE-11",
        ),
    )
    for what, sent, added, requirement in variants:
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, sent))
        judge.note(f"sent the vector {what}: {resp.status}")
        if not judge.expect(f"status {what}", resp.status, {error["status"]}, requirement):
            continue
        # MB-STATUS-4: "`byte_offset` (octets from the start of the request content)": the
        # octets added before the fault move it by as many.
        expect_located(judge, resp, error["part_index"], offset + added)


def _assumed_limits(vector: Vector) -> dict[str, int] | None:
    if "limits" in vector.meta:
        return dict(vector.meta["limits"])
    status = (vector.meta.get("error") or {}).get("status")
    if status in (413, 431):
        return dict(DEFAULT_LIMITS)
    return None


def run_vector(vector: Vector, ctx: Context, judge: Judge) -> None:
    assumed = _assumed_limits(vector)
    if assumed is not None:
        for name, value in assumed.items():
            published = ctx.limit(name)
            if published != value:
                judge.not_applicable(
                    f"the vector assumes {name}={value}; the target publishes {published}"
                )
    body = rewrite_for_target(vector, ctx.authority, ctx.batch_path, ctx.scheme)
    head = [("Content-Type", vector.meta["content_type"])]
    for name, value in vector.meta["context"].get("fields", []):
        head.append((name, value))
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    requirement = vector.meta["requirements"][0]
    if vector.meta["valid"]:
        cids = [b"<" + m.group(2) + b">" for m in CONTENT_ID_LINE.finditer(body)]
        expect_processed(ctx, judge, resp, [c.decode("latin-1") for c in cids], (), requirement)
    else:
        error = vector.meta["error"]
        expect_rejected(
            judge,
            resp,
            {error["status"]},
            error["requirement"],
            problem=error["status"] != 415,
            accept_post=error["status"] == 415,
        )
        if error["status"] != 415:
            _expect_vector_location(ctx, judge, vector, resp)
            if resp.status == error["status"]:
                _expect_moved_location(ctx, judge, vector, head, body)


def writes(vector: Vector) -> list[str]:
    """The unsafe methods among the vector's parts: it may only replay on a disposable target."""
    parts = (vector.meta.get("expect") or {}).get("parts", [])
    return sorted({p["method"] for p in parts if p["method"].upper() not in SAFE_METHODS})


def vector_profile(vector: Vector) -> str:
    """The profile a valid vector needs: the one its `Batch-Mode` asks for, else core.

    MB-PROC-12: a server answers a `Batch-Mode` "value it does not implement with 501", so a
    valid vector written under `Batch-Mode: references` (or `atomic`) is processed only by a
    server that offers that profile, and is N/A for any other.
    """
    if not vector.meta["valid"]:
        return "core"
    for name, value in vector.meta["context"].get("fields", []):
        if name.lower() == "batch-mode":
            for mode in (m.strip().lower() for m in str(value).split(",")):
                if mode in ALL_PROFILES:
                    return str(mode)
    return "core"


def _register_all() -> None:
    try:
        vectors = load_vectors()
    except (OSError, ValueError):
        return
    for vector in vectors:
        if vector.direction != "request":
            continue
        slug = vector.name.removesuffix(".request")
        reqs = list(vector.meta["requirements"])
        if not vector.meta["valid"]:
            reqs = [vector.meta["error"]["requirement"], *[r for r in reqs if r != reqs[0]]]
            if _first_line(vector) is not None:
                # The fault is sent again after a preamble and with transport padding: the same
                # status (MB-WIRE-9, MB-WIRE-11), the byte_offset moved (MB-STATUS-4).
                reqs += ["MB-WIRE-9", "MB-WIRE-11", "MB-STATUS-4"]
            reqs = list(dict.fromkeys(reqs))
        else:
            reqs = list(dict.fromkeys(["MB-RESP-1", *reqs]))
        register(
            Check(
                id=f"vector-{slug}",
                requirements=tuple(reqs),
                profile=vector_profile(vector),
                tier="smoke",
                description=vector.meta["description"],
                run=partial(run_vector, vector),
                # A vector's writes name the example's own paths, not the target's sandbox.
                state=State.NEEDS_DISPOSABLE_TARGET if writes(vector) else State.READ_ONLY,
                roles=BOTH_ROLES,
            )
        )


_register_all()
