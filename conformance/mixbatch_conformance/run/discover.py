"""Discovery: probe a server with safe requests only and draft a target description for it.

Theory of operation: discovery sends only GET, HEAD and OPTIONS (RFC 9110 §9.2.1: methods
whose semantics are read-only), so pointing it at a production server changes nothing.
OPTIONS on the batch endpoint tells whether there is one (404 or 501 means there is none:
`DiscoveryError`) and gives the capabilities document (profiles, limits) when the server
publishes it. Resources are found by trying a short fixed list of candidate paths per role
and keeping the first that answers as the role requires (ok: 200 to GET, etag_resource: an
ETag on ok, collection: 200 multipart/mixed to a GET with Accept multipart/mixed, echo: a
GET answered with the JSON description MB-TEST-2 defines). Discovery never declares a
sandbox: a collection whose Allow names POST is only proposed in `Draft.notes`, and the
operator confirms it by adding `sandbox` to the file. The draft validates against
spec/schemas/target.schema.json; an operator should read it before trusting it.

A server that does not answer the first OPTIONS within the timeout ends discovery at once,
so a silent server costs one timeout, not one per probe.
"""

from __future__ import annotations

import json
import secrets
import ssl
from dataclasses import dataclass, field
from typing import Any

from mixbatch_conformance.core.target import ALL_PROFILES, DEFAULT_VOLATILE
from mixbatch_conformance.transport.http import Exchange, Response, build_request, exchange
from mixbatch_conformance.transport.urls import parse_target_url

__all__ = ["SAFE_METHODS", "DiscoveryError", "Draft", "discover", "draft_for"]

#: The only methods discovery sends (RFC 9110 §9.2.1).
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: Seconds each probe may wait; discovery makes about a dozen.
PROBE_TIMEOUT_S = 5.0
CANDIDATES = {
    "ok": ["/books/1", "/items/1", "/health", "/", "/index.html"],
    "collection": ["/books", "/items"],
    "echo": ["/echo", "/anything"],
}


#: The resource role each profile's checks need; without it the profile is not claimed.
_PROFILE_NEEDS = {"collection-get": "collection", "conditional": "etag_resource"}


class DiscoveryError(Exception):
    """The URL does not lead to a batch endpoint discovery can describe (exit status 3)."""


@dataclass
class Draft:
    """A draft target description and what the operator should read before using it."""

    description: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    #: The resources discovery found, without the stand-in `ok` the schema makes it write.
    found: dict[str, str] = field(default_factory=dict)


class _Prober:
    def __init__(self, base_url: str, tls: ssl.SSLContext | None, timeout: float) -> None:
        url = parse_target_url(base_url)
        self.host, self.port, self.authority = url.host, url.port, url.authority
        self.tls = tls if url.tls else None
        self.timeout = timeout
        self.exchanges: list[Exchange] = []

    def ask(
        self, method: str, path: str, headers: list[tuple[str, str]] | None = None
    ) -> Response | None:
        if method not in SAFE_METHODS:
            raise AssertionError(f"discovery sends only {SAFE_METHODS}, not {method}")
        request = build_request(method, path, self.authority, headers or [])
        ex = exchange(self.host, self.port, request, self.timeout, self.tls)
        self.exchanges.append(ex)
        if ex.response is None and (ex.error or "").startswith("TimeoutError"):
            # One silent probe ends discovery: the next dozen would each wait as long.
            raise DiscoveryError(f"{method} {path}: no response within {self.timeout:g} s")
        return ex.response


def _capabilities(resp: Response) -> tuple[list[str], dict[str, int]]:
    if resp.status != 200 or "json" not in resp.media_type:
        return [], {}
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return [], {}
    if not isinstance(doc, dict):
        return [], {}
    listed = doc.get("profiles")
    profiles = (
        [p for p in listed if p in ALL_PROFILES and p != "core"] if isinstance(listed, list) else []
    )
    raw = doc.get("limits")
    limits = (
        {k: v for k, v in raw.items() if isinstance(v, int) and v >= 1}
        if isinstance(raw, dict)
        else {}
    )
    return profiles, limits


def _endpoint(probe: _Prober, batch_endpoint: str) -> Response:
    """OPTIONS on the batch endpoint; DiscoveryError when nothing there takes batches."""
    sent = f"OPTIONS {batch_endpoint}"
    try:
        resp = probe.ask("OPTIONS", batch_endpoint)
    except TimeoutError:
        raise DiscoveryError(f"{sent}: no TCP connection within {probe.timeout:g} s") from None
    if resp is None:
        ex = probe.exchanges[-1]
        what = "no response" if not ex.raw else f"octets that are not HTTP/1.1: {ex.raw[:60]!r}"
        raise DiscoveryError(f"{sent}: {what} ({ex.error}); is this an HTTP server?")
    allow = (resp.get("Allow") or "").upper()
    if resp.status in (404, 501) or (resp.status == 405 and "POST" not in allow):
        raise DiscoveryError(
            f"{sent} answered {resp.status} {resp.reason}: no batch endpoint there; "
            "is --batch-endpoint right (or give the endpoint's URL, http://host:port/batch)?"
        )
    return resp


def draft_for(
    base_url: str,
    batch_endpoint: str = "/batch",
    *,
    tls: ssl.SSLContext | None = None,
    timeout: float = PROBE_TIMEOUT_S,
) -> Draft:
    """A draft target description for the server at `base_url`, with notes for the operator."""
    probe = _Prober(base_url, tls, timeout)
    notes: list[str] = []
    caps = _endpoint(probe, batch_endpoint)
    found, limits = _capabilities(caps)
    if caps.status != 200:
        notes.append(
            f"OPTIONS {batch_endpoint} answered {caps.status}, not a capabilities document: "
            "only the core profile is listed; add the profiles the server supports"
        )
    resources: dict[str, str] = {}
    for path in CANDIDATES["ok"]:
        r = probe.ask("GET", path)
        if r is not None and r.status == 200:
            resources["ok"] = path
            if r.get("ETag"):
                resources["etag_resource"] = path
            break
    else:
        notes.append("no candidate path answered GET with 200: set resources.ok")
    resources["not_found"] = f"/mixbatch-suite-absent-{secrets.token_hex(4)}"
    for path in CANDIDATES["collection"]:
        r = probe.ask("GET", path, [("Accept", "multipart/mixed")])
        if r is not None and r.status == 200 and r.media_type == "multipart/mixed":
            resources["collection"] = path
            opts = probe.ask("OPTIONS", path)
            allow = (opts.get("Allow") or "") if opts is not None else ""
            if "POST" in allow.upper():
                notes.append(
                    f"{path} accepts POST (Allow: {allow}); to let the checks that write run, "
                    f'add "sandbox": {{"collection": "{path}", "member": {{...a document '
                    "it accepts...}} to the file; the suite deletes every member it creates"
                )
            break
    for path in CANDIDATES["echo"]:
        r = probe.ask("GET", path)
        if r is not None and r.status == 200 and "json" in r.media_type:
            try:
                doc = json.loads(r.body)
            except ValueError:
                continue
            if isinstance(doc, dict) and doc.get("method") == "GET" and "headers" in doc:
                resources["echo"] = path
                break
    found_resources = dict(resources)
    # A profile whose resource was not found is not listed: target.schema.json requires the
    # role of each profile claimed, and its checks could not run without it.
    for profile, role in _PROFILE_NEEDS.items():
        if profile in found and role not in resources:
            found.remove(profile)
            notes.append(
                f"the server lists the {profile} profile, but no {role} was found: the "
                f"profile is left out; set resources.{role} and add it back"
            )
    # target.schema.json requires the ok role (the note above asks the operator to set it);
    # a role the server was not found to have is left out, and its checks are not applicable.
    resources.setdefault("ok", "/")
    for name in ("collection", "etag_resource"):
        if name not in resources:
            notes.append(f"no {name} found: its checks will not apply; set resources.{name}")
    description: dict[str, Any] = {
        "name": f"discovered at {base_url}",
        "base_url": parse_target_url(base_url).base_url,
        "batch_endpoint": batch_endpoint,
        "resources": resources,
        "volatile_headers": list(DEFAULT_VOLATILE),
        "profiles": ["core", *found],
    }
    if limits:
        description["limits"] = limits
    return Draft(description, notes, probe.exchanges, found_resources)


def discover(base_url: str, batch_endpoint: str = "/batch") -> dict[str, Any]:
    """A draft target description for the server at `base_url` (http; see `draft_for`)."""
    return draft_for(base_url, batch_endpoint).description
