"""The input slots of one request: which fields, methods, preferences, target shapes and
spellings a request to the batch endpoint carried.

A slot is named `kind:name`, and a spelling of it `kind:name@spelling`. Part header lines are
read from the raw octets (`RawPart`), not from the validator's trimmed fields, so that the
spellings a reader normalises away (a name's case, whitespace around a value) stay visible.
Only batches whose envelope reads whole are looked into: a malformed batch is an envelope
input of its own, judged by the vectors, and nothing in it can be edited safely.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from mixbatch_conformance.checks._shared.resolution import resolve
from mixbatch_conformance.core.validator import (
    Envelope,
    list_members,
    parse_media_type,
    read_multipart,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = [
    "ENVELOPE",
    "LIST_FIELDS",
    "PART_FIELD",
    "PART_METHOD",
    "PART_PREFER",
    "PREFER",
    "TARGET",
    "TARGET_FEATURES",
    "TARGET_FORMS",
    "TOP_FIELD",
    "TOP_METHOD",
    "BatchView",
    "RawPart",
    "Slot",
    "authority_features",
    "envelope_spellings",
    "header_lines",
    "host_case_differs",
    "is_usual_name",
    "on_endpoint",
    "ows_of",
    "prefer_tokens",
    "request_slots",
    "slot_name",
    "target_of",
    "target_shapes",
    "view_of",
]

#: The kinds of slot: where in a request an input sits.
TOP_FIELD = "top-field"
PART_FIELD = "part-field"
TOP_METHOD = "top-method"
PART_METHOD = "part-method"
PREFER = "prefer"
PART_PREFER = "part-prefer"
TARGET = "target"
ENVELOPE = "envelope"

#: Top-level fields that frame the message or the connection (RFC 9112 §6, §9.6): the relay
#: re-frames every request, so a server never sees them as the check wrote them. `Host` is the
#: base of every target (MB-PART-5) and is swept through the targets' `@host-case` spelling.
FRAMING_FIELDS = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive"})
UNSWEPT_TOP_FIELDS = FRAMING_FIELDS | {"host"}

#: Fields whose value is a comma-separated list (RFC 9110 §5.6.1), so that several members on
#: one line are a spelling of their own; other fields may hold commas inside one value (dates).
LIST_FIELDS = frozenset(
    {
        "accept",
        "accept-charset",
        "accept-encoding",
        "accept-language",
        "allow",
        "batch-mode",
        "cache-control",
        "content-encoding",
        "content-language",
        "expect",
        "if-match",
        "if-none-match",
        "pragma",
        "prefer",
        "te",
        "trailer",
        "upgrade",
        "vary",
        "via",
    }
)

#: Extension fields (`X-...`) are one slot: the spec gives them one rule (MB-PART-8), and each
#: check names its own.
EXTENSION_FIELDS = "x-*"

#: Field names in the spelling their registries give them, though not Title-Case.
CONVENTIONAL_NAMES = frozenset({"ETag", "Content-ID", "TE", "WWW-Authenticate", "Content-MD5"})

#: The URI scheme at the start of an absolute reference (RFC 3986 §3.1).
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")

#: A boundary parameter given as a quoted-string (RFC 9110 §5.6.6).
QUOTED_BOUNDARY = re.compile(r'(?i);\s*boundary\s*=\s*"')

#: The shapes of a Content-Id target: one form, and any of the features after it.
TARGET_FORMS = ("absolute-path", "relative", "absolute-uri", "network-path")
TARGET_FEATURES = (
    "with-query",
    "percent-encoded",
    "dot-segments",
    "fragment",
    "asterisk",
    "reference",
    "userinfo",
    "other-scheme",
    "other-host",
    "other-port",
    "batch-endpoint",
)
#: Ports a URI without one means (RFC 9110 §4.2); the relay and its upstream speak http.
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, order=True)
class Slot:
    """An input a request carried: a kind, a lower-cased name and, for a spelling, its kind."""

    kind: str
    name: str = ""
    spelling: str = ""

    def __str__(self) -> str:
        head = f"{self.kind}:{self.name}" if self.name else self.kind
        return f"{head}@{self.spelling}" if self.spelling else head

    @property
    def plain(self) -> Slot:
        return Slot(self.kind, self.name)


@dataclass(frozen=True)
class RawPart:
    """A request part's header lines as sent: (name, raw value after the colon)."""

    lines: tuple[tuple[str, bytes], ...]

    def values(self, name: str) -> list[str]:
        return [v.strip(b" \t").decode("latin-1") for n, v in self.lines if n.lower() == name]


@dataclass(frozen=True)
class BatchView:
    """A batch request as the sweep reads it: its boundary, envelope and raw part headers."""

    boundary: str
    envelope: Envelope
    parts: tuple[RawPart, ...]


def header_lines(raw: bytes) -> list[bytes]:
    """The field lines of a part's header section (`offset` to `body_offset`), without CRLFs."""
    return raw.split(b"\r\n")[:-2]


def view_of(req: RelayRequest, whole: bool = True) -> BatchView | None:
    """The batch `req` carries, when it is a multipart/mixed request whose envelope reads whole
    (`whole` False: also the parts read before a fault in a malformed one)."""
    try:
        media, params = parse_media_type(req.get("Content-Type") or "")
    except ValueError:
        return None
    boundary = params.get("boundary")
    if media != "multipart/mixed" or not boundary:
        return None
    env = read_multipart(req.body, boundary)
    if whole and (env.fatal or not env.complete):
        return None
    parts = []
    for part in env.parts:
        lines = []
        for line in header_lines(req.body[part.offset : part.body_offset]):
            name, _, value = line.partition(b":")
            lines.append((name.decode("latin-1"), value))
        parts.append(RawPart(tuple(lines)))
    return BatchView(boundary, env, tuple(parts))


def is_usual_name(name: str) -> bool:
    """Whether a field name is spelled all-lower, Title-Case or as its registry spells it."""
    title = "-".join(w[:1].upper() + w[1:].lower() for w in name.split("-"))
    return name in (name.lower(), title) or name in CONVENTIONAL_NAMES


def ows_of(raw: bytes) -> bool:
    """Whether a raw field value carries whitespace beyond the one SP a writer puts after `:`."""
    lead = raw[: len(raw) - len(raw.lstrip(b" \t"))]
    return lead not in (b"", b" ") or raw != raw.rstrip(b" \t")


def prefer_tokens(values: list[str]) -> list[str]:
    """The lower-cased preference names of Prefer values (RFC 7240 §2)."""
    return [m.split(";", 1)[0].split("=", 1)[0].strip(" \t").lower() for m in list_members(values)]


def target_of(value: str) -> str | None:
    """The URI reference between `<` and `>` of a Content-Id value (MB-PART-3)."""
    text = value.strip(" \t")
    return text[1:-1] if len(text) >= 2 and text[0] == "<" and text[-1] == ">" else None


def target_shapes(ref: str, host: str = "", base: str = "") -> list[str]:
    """The form of a target reference and each feature it has (see TARGET_FORMS/FEATURES);
    `host` (the batch's Host) and `base` (its target path) reveal the features that compare.
    Empty for a reference urllib cannot split (brackets around no IP address, which checks send
    on purpose under MB-PART-4 and MB-PART-5): the sweep has no plant for such a shape."""
    try:
        return _target_shapes(ref, host, base)
    except ValueError:
        return []


def _target_shapes(ref: str, host: str, base: str) -> list[str]:
    if ref.startswith("//"):
        shapes = ["network-path"]
    elif SCHEME.match(ref):
        shapes = ["absolute-uri"]
    elif ref.startswith("/"):
        shapes = ["absolute-path"]
    else:
        shapes = ["relative"]
    if "?" in ref.split("#", 1)[0]:
        shapes.append("with-query")
    if "%" in ref:
        shapes.append("percent-encoded")
    path = urlsplit(ref).path
    if any(seg in (".", "..") for seg in path.split("/")):
        shapes.append("dot-segments")
    if "#" in ref:
        shapes.append("fragment")
    if ref == "*":
        shapes.append("asterisk")
    if "$(" in ref:
        shapes.append("reference")
    if shapes[0] in ("absolute-uri", "network-path") and host:
        shapes += authority_features(ref, host)
    if base and resolve(base, ref).partition("?")[0] == base:
        shapes.append("batch-endpoint")
    return shapes


def authority_features(ref: str, host: str) -> list[str]:
    """How an absolute target's scheme and authority differ from the batch's own (MB-SUB-2)."""
    parts = urlsplit(f"http:{ref}" if ref.startswith("//") else ref)
    own = urlsplit(f"//{host}")
    found = ["userinfo"] if "@" in parts.netloc else []
    scheme = parts.scheme.lower()
    if scheme != "http":
        found.append("other-scheme")
    if (parts.hostname or "") != (own.hostname or ""):
        found.append("other-host")
    try:
        port, own_port = parts.port, own.port
    except ValueError:
        return found
    if (port or DEFAULT_PORTS.get(scheme)) != (own_port or DEFAULT_PORTS["http"]):
        found.append("other-port")
    return found


def host_case_differs(ref: str, host: str) -> bool:
    """Whether an absolute target names the batch's own host in another letter case."""
    if not SCHEME.match(ref):
        return False
    netloc = urlsplit(ref).netloc.rpartition("@")[2]
    return netloc.lower() == host.lower() and netloc != host


def slot_name(name: str) -> str:
    """The slot a field name falls in: its lower-cased name, or `x-*` for an extension field."""
    lname = name.lower()
    return EXTENSION_FIELDS if lname.startswith("x-") else lname


def _field_slots(kind: str, lines: list[tuple[str, bytes]], ows: bool) -> set[Slot]:
    found: set[Slot] = set()
    counts: dict[str, int] = {}
    for name, raw in lines:
        lname = slot_name(name)
        counts[name.lower()] = counts.get(name.lower(), 0) + 1
        found.add(Slot(kind, lname))
        if not is_usual_name(name):
            found.add(Slot(kind, lname, "name-case"))
        value = raw.strip(b" \t").decode("latin-1")
        if lname in LIST_FIELDS and len(list_members([value])) > 1:
            found.add(Slot(kind, lname, "list"))
        if ows and ows_of(raw):
            found.add(Slot(kind, lname, "ows"))
    found |= {Slot(kind, slot_name(n), "repeated") for n, c in counts.items() if c > 1}
    return found


def on_endpoint(req: RelayRequest, endpoint: str) -> bool:
    """Whether `req` is addressed to the batch endpoint (origin or absolute form)."""
    return urlsplit(req.target).path == endpoint


def envelope_spellings(req: RelayRequest, batch: BatchView) -> set[str]:
    """How a whole batch's envelope is spelled beyond the plainest form (MB-WIRE-10..12)."""
    found = set()
    if "chunked" in (req.get("Transfer-Encoding") or "").lower():
        found.add("chunked")
    if QUOTED_BOUNDARY.search(req.get("Content-Type") or ""):
        found.add("quoted-boundary")
    if batch.envelope.preamble:
        found.add("preamble")
    if batch.envelope.epilogue:
        found.add("epilogue")
    if any(f.sender == "MB-WIRE-12" for f in batch.envelope.findings):
        found.add("padding")
    return found


def request_slots(req: RelayRequest, endpoint: str, whole: bool = True) -> set[Slot]:
    """The slots of a request to the batch endpoint (none for any other request); `whole`
    False also reads the parts of a malformed batch up to its fault."""
    if not on_endpoint(req, endpoint):
        return set()
    top = [(n, v.encode("latin-1")) for n, v in req.headers if n.lower() not in UNSWEPT_TOP_FIELDS]
    # h11 trims whitespace around top-level values, so their `@ows` spelling is never seen.
    found = _field_slots(TOP_FIELD, top, ows=False)
    found.add(Slot(TOP_METHOD, req.method))
    found |= {
        Slot(PREFER, t) for t in prefer_tokens([v for n, v in req.headers if n.lower() == "prefer"])
    }
    batch = view_of(req, whole)
    if batch is None:
        return found
    found |= {Slot(ENVELOPE, spelling=s) for s in envelope_spellings(req, batch)}
    host = req.get("Host") or ""
    for part in batch.parts:
        found |= _field_slots(PART_FIELD, list(part.lines), ows=True)
        found |= {Slot(PART_METHOD, m) for m in part.values("http-method")}
        found |= {Slot(PART_PREFER, t) for t in prefer_tokens(part.values("prefer"))}
        for cid in part.values("content-id"):
            ref = target_of(cid)
            if ref is None:
                continue
            shapes = target_shapes(ref, host, urlsplit(req.target).path)
            found |= {Slot(TARGET, shape) for shape in shapes}
            if shapes and host_case_differs(ref, host):
                found.add(Slot(TARGET, "absolute-uri", "host-case"))
    return found
