"""Planted violations of a part target's grammar and resolution and of the batch's Host (spec
3.2.2, 5.3, 8.3).

A receiver whose URI test is a character set and an Appendix B split: it takes a Content-Id
whose scheme starts with a digit or holds an underscore, a fragment holding a second `#` or
brackets, or a query holding a bracket as a target (MB-PART-4), or refuses one with the part
index of the batch's first part (MB-STATUS-4), or refuses a valid one whose authority is an
IP-literal, its brackets taken for characters outside the grammar (MB-PART-4). A resolver that refuses a reference whose dot
segments climb above the root, or keeps the excess `..` in the target it routes (MB-PART-5). A
Host test that lets through a `%` without two hex digits or brackets around no IP address, or
an IPvFuture literal whose version is not hex or that holds a character outside
`unreserved / sub-delims / ":"` after its dot, or an IP-literal followed by an octet other than
`:` that it steps over as it would the `:` (MB-PART-5), and one that refuses a valid
IP-literal or percent-encoded Host (MB-PART-5), or compares an absolute target naming an
IP-literal Host as another origin (MB-SUB-2).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.checks._shared.resolution import remove_dot_segments
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    accepts,
    boundary_of,
    edit_problem,
    field_of,
    is_batch,
    parts_of,
    problem,
)
from mixbatch_conformance.run.plants.resolution import CONTENT_ID, _edit_echoes
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A Content-Id whose text before a colon (ahead of any "/", "?", "#") is no scheme.
_BAD_SCHEME = re.compile(rb"(?im)^Content-Id:[ \t]*<(?:[0-9+.\-][^:/?#>]*|[^:/?#>]*_[^:/?#>]*):")
#: A Content-Id whose fragment holds a second "#" or a bracket.
_BAD_FRAGMENT = re.compile(rb"(?im)^Content-Id:[ \t]*<[^#>\r\n]*#[^>\r\n]*[#\[\]][^>\r\n]*>")
#: A Content-Id that is a fragment alone ("#" first), which a split at "#" found after index 0 misses.
_FRAGMENT_ONLY = re.compile(rb"(?im)^Content-Id:[ \t]*<#")
#: A Content-Id whose query holds a bracket.
_QUERY_BRACKET = re.compile(rb"(?im)^Content-Id:[ \t]*<[^?#>\r\n]*\?[^#>\r\n]*[\[\]]")
#: A Content-Id holding a bracket anywhere, an IP-literal's included.
_ANY_BRACKET = re.compile(rb"(?im)^Content-Id:[ \t]*<[^>\r\n]*[\[\]]")
#: The authority a planted server puts in place of a Host it should have refused.
_STAND_IN = "localhost"


def _matches(pattern: re.Pattern[bytes]) -> Any:
    def pred(req: RelayRequest) -> bool:
        return is_batch(req) and pattern.search(req.body) is not None

    return pred


def _refusal_at_part_zero(req: RelayRequest, resp: RelayResponse) -> None:
    """A malformed-fragment refusal placed at the batch's first part."""
    if resp.status == 400 and _BAD_FRAGMENT.search(req.body):
        edit_problem(resp, lambda doc: doc.update(part_index=0))


#: A first path segment no reference holds (a NUL is no URI character).
_SENTINEL = "/\x00"


def _climbs_above_root(ref: str, batch_path: str) -> bool:
    """Whether RFC 3986 §5.2.4 drops a `..` of `ref`'s path, resolved against `batch_path`:
    removed under a sentinel first segment, such a path takes the sentinel with it."""
    split = urlsplit(ref)
    path = split.path
    if not split.scheme and not split.netloc and not path.startswith("/"):
        path = posixpath.dirname(batch_path).rstrip("/") + "/" + path
    return not remove_dot_segments(_SENTINEL + path).startswith(_SENTINEL)


def _refs(req: RelayRequest) -> list[str]:
    return [m.group(2).decode("latin-1") for m in CONTENT_ID.finditer(req.body)]


def _above_root_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A resolver that refuses a reference climbing above the root as leaving the origin."""
    batch_path = urlsplit(req.target).path
    if is_batch(req) and any(_climbs_above_root(r, batch_path) for r in _refs(req)):
        problem(resp, 400, "MB-PART-4")


def _excess_dots_kept(req: RelayRequest, resp: RelayResponse) -> None:
    """Each echo of a part whose reference climbs above the root reports the target with the
    excess `..` kept, as a resolver that stops at the root without dropping them routes it."""
    b_req, b_resp = boundary_of(req), boundary_of(resp)
    if not b_req or not b_resp or not is_batch(req):
        return
    sent = parts_of(req.body, b_req)
    if sent is None:
        return
    batch_path = urlsplit(req.target).path
    refs = [(field_of(f, "Content-Id") or "").strip().strip("<>") for f, _ in sent]

    def keep(i: int, doc: dict[str, Any]) -> None:
        if i < len(refs) and _climbs_above_root(refs[i], batch_path) and "target" in doc:
            doc["target"] = f"/..{doc['target']}"

    _edit_echoes(resp, b_resp, keep)


def _set_host(req: RelayRequest, value: str) -> None:
    req.headers = [(n, value if n.lower() == "host" else v) for n, v in req.headers]


def _host_taken_when(pattern: str) -> Any:
    """A Host test that lets a Host matching `pattern` through as the base authority."""
    found = re.compile(pattern)

    def edit(req: RelayRequest) -> None:
        host = req.get("Host") or ""
        if is_batch(req) and found.search(host):
            _set_host(req, _STAND_IN)

    return edit


def _host_refused_when(pattern: str) -> Any:
    """A Host test that refuses a valid Host matching `pattern` as invalid."""
    found = re.compile(pattern)

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req) and found.search(req.get("Host") or ""):
            problem(resp, 400, "MB-PART-5")

    return edit


def _brackets_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A URI test that takes `[` and `]` out of the characters a Content-Id may hold, so a
    target naming an IP-literal host is refused as malformed."""
    if is_batch(req) and _ANY_BRACKET.search(req.body):
        problem(resp, 400, "MB-PART-4")


def _literal_target_other_origin(req: RelayRequest, resp: RelayResponse) -> None:
    """An origin test that splits the authority at its first colon, so an absolute target
    naming the batch's IP-literal Host is another origin."""
    host = req.get("Host") or ""
    if is_batch(req) and host.startswith("[") and re.search(rb"(?i)<[a-z]+://\[", req.body):
        problem(resp, 400, "MB-SUB-2")


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "fragment-only-target-accepted",
        "MB-SUB-2 a Content-Id that is a fragment alone (<#f>) run as a target",
        ("reject-target-fragment-only",),
        on_response=accepts(_matches(_FRAGMENT_ONLY)),
    ),
    P(
        "content-id-bad-scheme-accepted",
        "MB-PART-4 a Content-Id whose scheme starts with a digit or holds an underscore taken",
        ("part-faults-refused-in-every-position",),
        on_response=accepts(_matches(_BAD_SCHEME)),
    ),
    P(
        "content-id-fragment-grammar-unchecked",
        "MB-PART-4 a Content-Id whose fragment holds a second # or brackets taken",
        ("part-faults-refused-in-every-position", "refusal-names-broken-requirement"),
        on_response=accepts(_matches(_BAD_FRAGMENT)),
    ),
    P(
        "content-id-query-bracket-accepted",
        "MB-PART-4 a Content-Id whose query holds a bracket taken",
        ("part-faults-refused-in-every-position", "refusal-names-broken-requirement"),
        on_response=accepts(_matches(_QUERY_BRACKET)),
    ),
    P(
        "content-id-fragment-refusal-at-part-zero",
        "MB-STATUS-4 a malformed fragment's refusal naming part 0, not the faulty part",
        ("part-faults-refused-in-every-position", "refusal-names-broken-requirement"),
        on_response=_refusal_at_part_zero,
    ),
    P(
        "content-id-brackets-refused",
        "MB-PART-4 a Content-Id naming an IP-literal host refused as malformed",
        (
            "valid-reference-spellings-accepted",
            "batch-host-valid-literals-as-origin",
            "same-origin-default-port-spellings",
        ),
        on_response=_brackets_refused,
    ),
    P(
        "dot-segments-above-root-refused",
        "MB-PART-5 a reference whose dot segments climb above the root refused",
        ("dot-segments-removed-in-every-reference-form",),
        on_response=_above_root_refused,
    ),
    P(
        "dot-segments-above-root-kept",
        "MB-PART-5 the .. that climbs above the root kept in the resolved target",
        ("dot-segments-removed-in-every-reference-form",),
        on_response=_excess_dots_kept,
    ),
    P(
        "host-bad-percent-escape-taken",
        "MB-PART-5 a batch Host holding a % without two hex digits taken as the base authority",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(r"%(?![0-9A-Fa-f]{2})"),
    ),
    P(
        "host-misplaced-brackets-taken",
        "MB-PART-5 a batch Host with brackets outside or around no IP address taken",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(
            r"^[^\[]+[\[\]]|^\[[^\]]*[^0-9A-Fa-f:.\]][^\]]*\]|^\[[^\]]*$|\][^:]"
        ),
    ),
    P(
        "host-ipvfuture-version-unchecked",
        "MB-PART-5 a batch Host whose IPvFuture version is not hex taken as the base authority",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(r"^\[[vV][0-9A-Fa-f]*[^0-9A-Fa-f.\]]"),
    ),
    P(
        "host-ipvfuture-characters-unchecked",
        "MB-PART-5 a batch Host whose IPvFuture holds a character outside its set taken",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(r"^\[[vV][0-9A-Fa-f]+\.[^\]]*[^A-Za-z0-9._~!$&'()*+,;=:\]-]"),
    ),
    P(
        "host-reg-name-delimiters-taken",
        "MB-PART-5 a batch Host holding ^, {, | or a backquote taken as the base authority",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(r"[\^{|`]"),
    ),
    P(
        "ipvfuture-without-version-taken",
        "MB-PART-5 a batch Host [v.x], an IPvFuture with no version digits, taken as the base authority",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(r"^\[[vV]\."),
    ),
    P(
        "ip-literal-suffix-stepped-over",
        "MB-PART-5 a batch Host whose IP-literal is followed by one octet other than ':' and "
        "then digits or nothing ([::1]x, [::1]8080) taken, that octet stepped over as a ':'",
        ("batch-host-invalid-refused",),
        on_request=_host_taken_when(r"^\[[0-9A-Fa-f:.]+\][^:][0-9]*$"),
    ),
    P(
        "ip-literal-host-refused",
        "MB-PART-5 a batch under a valid IP-literal Host refused as an invalid Host",
        ("batch-host-valid-literals-as-origin",),
        on_response=_host_refused_when(r"^\["),
    ),
    P(
        "encoded-host-refused",
        "MB-PART-5 a batch under a valid percent-encoded Host refused as an invalid Host",
        ("batch-host-valid-literals-as-origin",),
        on_response=_host_refused_when(r"%[0-9A-Fa-f]{2}"),
    ),
    P(
        "encoded-host-end-refused",
        "MB-PART-5 a batch under a Host whose reg-name ends in a percent-encoded octet refused as an invalid Host",
        ("batch-host-valid-literals-as-origin",),
        on_response=_host_refused_when(r"%[0-9A-Fa-f]{2}(?::[0-9]*)?$"),
    ),
    P(
        "ip-literal-target-other-origin",
        "MB-SUB-2 an absolute target naming the batch's IP-literal Host refused as another origin",
        ("batch-host-valid-literals-as-origin",),
        on_response=_literal_target_other_origin,
    ),
)
