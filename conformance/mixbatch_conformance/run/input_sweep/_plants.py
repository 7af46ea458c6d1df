"""Planted servers that ignore one input slot: edits of the request on its way in.

Each plant models a server that does not act on one input, by removing that input (or its
spelling) before the reference server reads the request; `PLANT_KINDS` names each kind of
plant and the server it models, and `plants_for` which kinds apply to a slot. A target is
rewritten to what a server blind to its shape makes of it (`TARGET_REWRITES`), and the answer
gets the Content-Id the check sent back, so that only the target changed.

Part header sections are edited as raw lines, so every other spelling and every part body
stays as the check wrote it; the relay writes the outer Content-Length afresh.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit
from xml.sax.saxutils import escape

from mixbatch_conformance.core.validator import list_members
from mixbatch_conformance.run.input_sweep._slots import (
    ENVELOPE,
    LIST_FIELDS,
    PART_FIELD,
    PART_METHOD,
    PART_PREFER,
    PREFER,
    TARGET,
    TOP_FIELD,
    TOP_METHOD,
    BatchView,
    Slot,
    envelope_spellings,
    host_case_differs,
    is_usual_name,
    on_endpoint,
    ows_of,
    slot_name,
    target_of,
    target_shapes,
    view_of,
)
from mixbatch_conformance.run.mutations import write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, parts_of
from mixbatch_conformance.transport.relay import MutationLike, RelayRequest, RelayResponse

__all__ = ["KNOWN_METHODS", "PLANT_KINDS", "TARGET_REWRITES", "Plant", "plants_for"]

#: Each kind of plant and the server it models (the report carries this table).
PLANT_KINDS = {
    "ignore": "the field or preference is dropped from every request or part that carries it",
    "ignore-name-case": "the field is dropped where its name is in an unusual letter case",
    "first-member": "each line of the list field keeps its first member only",
    "first-line": "only the first line of the repeated field is kept",
    "ignore-ows": "the part field is dropped where its value has extra whitespace around it",
    "unsupported": (
        "a known method becomes one no server implements; a method in another case is upper-cased"
    ),
    "rewrite": (
        "the part's target becomes what a server blind to its shape makes of it; the "
        "Content-Id echo is given back"
    ),
    "refuse": "a batch with the envelope spelling loses its boundary parameter and is refused",
    "strip": "the preamble or transport padding is removed, moving the octets after it",
}

#: Methods RFC 9110 §9 and RFC 5789 define: renamed by `unsupported`; any other method is
#: one the server does not know already, so ignoring it changes nothing.
KNOWN_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
)
#: A method is a token (RFC 9110 §9.1, §5.6.2).
METHOD_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: A method token no server implements (RFC 9110 §9.1: 501 or 405).
UNKNOWN_METHOD = "MBSWEEPUNKNOWN"
#: Another origin's host, for a server that compares host names case-sensitively.
OTHER_HOST = "cross-origin.invalid"
#: Envelope spellings whose removal also moves the octets after it (`strip`).
STRIPPABLE = frozenset({"preamble", "padding"})

Line = tuple[str, bytes]


def _path_form(ref: str) -> str:
    parts = urlsplit(ref)
    out = parts.path or "/"
    out += f"?{parts.query}" if parts.query or ref.split("#", 1)[0].endswith("?") else ""
    return out + (f"#{parts.fragment}" if parts.fragment else "")


def _as_directory(ref: str, base: str) -> str:
    """`books/1` from `/batch` as `/batch/books/1`: the endpoint taken as a directory."""
    return _path_form(urljoin(base.rstrip("/") + "/", ref))


def _without_query(ref: str) -> str:
    head, hash_, frag = ref.partition("#")
    return head.split("?", 1)[0] + hash_ + frag


def _literal_dots(ref: str) -> str:
    """Dot segments written as `%2E` segments: a server that does not remove them."""
    cut = min((i for i in (ref.find("?"), ref.find("#")) if i >= 0), default=len(ref))
    segments = ["%2E%2E" if s == ".." else "%2E" if s == "." else s for s in ref[:cut].split("/")]
    return "/".join(segments) + ref[cut:]


def _netloc(ref: str, edit: Callable[[str, str], str], host: str) -> str:
    """`ref` with its authority replaced by `edit(authority, batch host)`, in its own form."""
    network = ref.startswith("//")
    parts = urlsplit(f"http:{ref}" if network else ref)
    out = parts._replace(netloc=edit(parts.netloc, host)).geturl()
    return out[len("http:") :] if network else out


def _host_of(netloc: str) -> tuple[str, str]:
    """An authority's host and its `:port` suffix (empty when it has none)."""
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        end = hostport.find("]") + 1
        return hostport[:end], hostport[end:]
    name, colon, port = hostport.partition(":")
    return name, colon + port


def _own_host(netloc: str, host: str) -> str:
    """A server that ignores the host: the batch's own host, the target's port kept."""
    return _host_of(host)[0] + _host_of(netloc)[1]


def _own_port(netloc: str, host: str) -> str:
    """A server that ignores the port: the target's host, the batch's own port."""
    return _host_of(netloc)[0] + _host_of(host)[1]


def _other_host(ref: str, base: str, host: str) -> str:
    """A server that compares host names case-sensitively: another host for this one."""
    return _netloc(ref, lambda netloc, own: OTHER_HOST + _host_of(netloc)[1], host)


#: How each target shape is rewritten, given the reference, the batch's base path and Host.
TARGET_REWRITES: dict[str, Callable[[str, str, str], str]] = {
    "relative": lambda ref, base, host: _as_directory(ref, base),
    "absolute-uri": lambda ref, base, host: _path_form(ref),
    "network-path": lambda ref, base, host: _path_form(ref),
    "with-query": lambda ref, base, host: _without_query(ref),
    # A server that does not decode: `%41` reaches it as the three octets `%41`.
    "percent-encoded": lambda ref, base, host: ref.replace("%", "%25"),
    "dot-segments": lambda ref, base, host: _literal_dots(ref),
    "fragment": lambda ref, base, host: ref.split("#", 1)[0],
    "userinfo": lambda ref, base, host: _netloc(ref, lambda n, h: n.rpartition("@")[2], host),
    "other-scheme": lambda ref, base, host: "http" + ref[ref.index(":") :],
    "other-host": lambda ref, base, host: _netloc(ref, _own_host, host),
    "other-port": lambda ref, base, host: _netloc(ref, _own_port, host),
}


def plants_for(slot: Slot) -> tuple[str, ...]:
    """The plants that make a server ignore `slot` (none: the slot cannot be neutralised)."""
    if slot.kind == ENVELOPE:
        return ("refuse", "strip") if slot.spelling in STRIPPABLE else ("refuse",)
    if slot.kind == TARGET:
        if slot.spelling == "host-case" or slot.name in TARGET_REWRITES:
            return ("rewrite",)
        return ()
    if slot.kind in (TOP_METHOD, PART_METHOD):
        # A value that is not a method token makes the batch malformed (MB-PART-2) already.
        known = slot.name in KNOWN_METHODS or slot.name.upper() != slot.name
        return ("unsupported",) if known and METHOD_TOKEN.fullmatch(slot.name) else ()
    return {
        "": ("ignore",),
        "name-case": ("ignore-name-case",),
        "list": ("first-member",),
        "repeated": ("first-line",),
        "ows": ("ignore-ows",),
    }[slot.spelling]


def _without_tokens(values: list[str], token: str) -> str:
    members = list_members(values)
    kept = [m for m in members if m.split(";", 1)[0].split("=", 1)[0].strip().lower() != token]
    return ", ".join(kept)


def edit_lines(lines: list[Line], slot: Slot, how: str) -> list[Line]:
    """Apply a field plant to one header section's lines (name, raw value)."""
    out: list[Line] = []
    seen: set[str] = set()
    for name, raw in lines:
        lname = slot_name(name)
        if slot.kind in (PREFER, PART_PREFER):
            lname = name.lower()
            if lname == "prefer":
                kept = _without_tokens([raw.decode("latin-1")], slot.name)
                if kept:
                    out.append((name, b" " + kept.encode("latin-1")))
                continue
        elif lname == slot.name:
            if how == "ignore":
                continue
            if how == "ignore-name-case" and not is_usual_name(name):
                continue
            if how == "ignore-ows" and ows_of(raw):
                continue
            if how == "first-line" and name.lower() in seen:
                continue
            if how == "first-member" and name.lower() in LIST_FIELDS:
                members = list_members([raw.decode("latin-1")])
                raw = b" " + (members[0] if members else "").encode("latin-1")
            seen.add(name.lower())
        out.append((name, raw))
    return out


def rewrite_parts(body: bytes, batch: BatchView, fn: Callable[[list[Line]], list[Line]]) -> bytes:
    """`body` with each part's header section replaced by `fn` of its lines; bodies untouched."""
    out = bytearray()
    pos = 0
    for part, raw in zip(batch.envelope.parts, batch.parts, strict=True):
        out += body[pos : part.offset]
        for name, value in fn(list(raw.lines)):
            out += name.encode("latin-1") + b":" + value + b"\r\n"
        out += b"\r\n"
        pos = part.body_offset
    return bytes(out + body[pos:])


def _strip(body: bytes, batch: BatchView, spelling: str) -> bytes:
    dash = re.escape(b"--" + batch.boundary.encode("latin-1"))
    if spelling == "preamble":
        first = body.find(b"\r\n--" + batch.boundary.encode("latin-1"))
        return body[first + 2 :] if batch.envelope.preamble and first >= 0 else body
    return re.sub(rb"(^|\r\n)(" + dash + rb"(?:--)?)[ \t]+(?=\r\n|$)", rb"\1\2", body)


@dataclass(frozen=True)
class Plant(MutationLike):
    """A server that ignores `slot` in the way `how` names, at the batch endpoint `endpoint`."""

    slot: Slot
    how: str
    endpoint: str = "/batch"
    #: Targets rewritten in a request still in flight: id(request) -> {new ref: sent ref}.
    _rewritten: dict[int, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def edits_response(self) -> bool:
        # Only a rewritten target needs its answer: the Content-Id echo is put back.
        return self.slot.kind == TARGET

    def request(self, req: RelayRequest) -> None:
        if not on_endpoint(req, self.endpoint):
            return
        if self.slot.kind == TOP_METHOD:
            if req.method == self.slot.name:
                req.method = _unsupported(req.method)
            return
        if self.slot.kind in (TOP_FIELD, PREFER):
            lines = [(n, v.encode("latin-1")) for n, v in req.headers]
            edited = edit_lines(lines, self.slot, self.how)
            req.headers = [(n, v.strip(b" \t").decode("latin-1")) for n, v in edited]
            return
        batch = view_of(req)
        if batch is None:
            return
        if self.slot.kind == ENVELOPE:
            if self.slot.spelling in envelope_spellings(req, batch):
                if self.how == "refuse":
                    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
                    req.headers.append(("Content-Type", "multipart/mixed"))
                else:
                    req.body = _strip(req.body, batch, self.slot.spelling)
            return
        if self.slot.kind == TARGET:
            mapping: dict[str, str] = {}
            req.body = rewrite_parts(
                req.body, batch, lambda lines: self._targets(lines, req, mapping)
            )
            if mapping:
                self._rewritten[id(req)] = mapping
            return
        req.body = rewrite_parts(req.body, batch, self._part_lines)

    def _part_lines(self, lines: list[Line]) -> list[Line]:
        if self.slot.kind == PART_METHOD:
            return [
                (n, b" " + _unsupported(self.slot.name).encode("latin-1"))
                if n.lower() == "http-method"
                and v.strip(b" \t").decode("latin-1") == self.slot.name
                else (n, v)
                for n, v in lines
            ]
        if self.slot.kind in (PART_FIELD, PART_PREFER):
            return edit_lines(lines, self.slot, self.how)
        return lines

    def _targets(self, lines: list[Line], req: RelayRequest, mapping: dict[str, str]) -> list[Line]:
        base = urlsplit(req.target).path
        host = req.get("Host") or ""
        out: list[Line] = []
        for name, raw in lines:
            ref = target_of(raw.decode("latin-1")) if name.lower() == "content-id" else None
            new = ref
            if ref is not None and self.slot.spelling == "host-case":
                new = _other_host(ref, base, host) if host_case_differs(ref, host) else ref
            elif ref is not None and self.slot.name in target_shapes(ref, host, base):
                new = TARGET_REWRITES[self.slot.name](ref, base, host)
            if ref is not None and new is not None and new != ref:
                mapping[new] = ref
                raw = f" <{new}>".encode("latin-1")
            out.append((name, raw))
        return out

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        mapping = self._rewritten.pop(id(req), None)
        if mapping:
            restore_echo(resp, mapping)


def _unsupported(method: str) -> str:
    return UNKNOWN_METHOD if method.upper() == method else method.upper()


def restore_echo(resp: RelayResponse, mapping: dict[str, str]) -> None:
    """Put the Content-Id the check sent back where an answer echoes a rewritten one."""
    boundary = boundary_of(resp)
    parts = parts_of(resp.body, boundary) if boundary else None
    if boundary and parts is not None:
        fixed = [
            ([(n, _echo(v, mapping) if n.lower() == "content-id" else v) for n, v in f], b)
            for f, b in parts
        ]
        resp.body = write_parts(fixed, boundary)
        return
    ctype = (resp.get("Content-Type") or "").lower()
    if "json" in ctype and resp.status == 207:
        try:
            doc = json.loads(resp.body)
        except ValueError:
            return
        for entry in doc.get("responses") or () if isinstance(doc, dict) else ():
            ref = entry.get("content_id") if isinstance(entry, dict) else None
            if isinstance(ref, str) and ref in mapping:
                entry["content_id"] = mapping[ref]
        resp.body = json.dumps(doc).encode()
    elif "xml" in ctype and resp.status == 207:
        # Only `mb:content-id` echoes the reference; `DAV:href` is the resolved target.
        for new, old in mapping.items():
            sent = escape(old).encode()
            at = re.compile(rb"(content-id>)" + re.escape(escape(new).encode()) + rb"(</)")
            resp.body = at.sub(lambda m: m.group(1) + sent + m.group(2), resp.body)  # noqa: B023


def _echo(value: str, mapping: dict[str, str]) -> str:
    ref = target_of(value)
    return f"<{mapping[ref]}>" if ref is not None and ref in mapping else value
