"""Discovery: probe a server and draft a target description for it.

Theory of operation: OPTIONS on the batch endpoint gives the capabilities document
(profiles, limits) when the server offers the limits profile. Resources are found by trying
a short fixed list of candidate paths per role and keeping the first that answers as the
role requires (ok: 200 to GET; not_found: 404; collection: 200 multipart/mixed to a GET with
Accept multipart/mixed; sandbox_collection: Allow naming POST; etag_resource: an ETag on
ok; echo: 200 to a PUT). The draft validates against spec/schemas/target.schema.json; an
operator should read it before trusting it, since a probe cannot know what is safe to write.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from mixbatch_conformance.core.target import ALL_PROFILES, DEFAULT_VOLATILE
from mixbatch_conformance.transport.http import Response, build_request, exchange, split_url

__all__ = ["discover"]

CANDIDATES = {
    "ok": ["/books/1", "/items/1", "/", "/index.html", "/health"],
    "collection": ["/books", "/items"],
    "echo": ["/echo", "/anything"],
}


def _get(
    host: str,
    port: int,
    path: str,
    headers: list[tuple[str, str]] | None = None,
    method: str = "GET",
    body: bytes | None = None,
) -> Response | None:
    authority = f"{host}:{port}"
    ex = exchange(host, port, build_request(method, path, authority, headers or [], body), 10.0)
    return ex.response


def discover(base_url: str, batch_endpoint: str = "/batch") -> dict[str, Any]:
    """A draft target description for the server at `base_url`."""
    host, port, _ = split_url(base_url)
    profiles = ["core"]
    limits: dict[str, int] = {}
    caps = _get(host, port, batch_endpoint, method="OPTIONS")
    if caps is not None and caps.status == 200 and "json" in caps.media_type:
        try:
            doc = json.loads(caps.body)
        except ValueError:
            doc = {}
        if isinstance(doc, dict):
            profiles += [p for p in doc.get("profiles", []) if p in ALL_PROFILES and p != "core"]
            raw = doc.get("limits")
            if not isinstance(raw, dict):
                raw = {}
            limits = {k: v for k, v in raw.items() if isinstance(v, int) and v >= 1}
    resources: dict[str, str] = {}
    for path in CANDIDATES["ok"]:
        r = _get(host, port, path)
        if r is not None and r.status == 200:
            resources["ok"] = path
            if r.get("ETag"):
                resources["etag_resource"] = path
            break
    resources["not_found"] = f"/mixbatch-suite-absent-{secrets.token_hex(4)}"
    for path in CANDIDATES["collection"]:
        r = _get(host, port, path, [("Accept", "multipart/mixed")])
        if r is not None and r.status == 200 and r.media_type == "multipart/mixed":
            resources["collection"] = path
            opts = _get(host, port, path, method="OPTIONS")
            if opts is not None and "POST" in (opts.get("Allow") or "").upper():
                resources["sandbox_collection"] = path
            break
    for path in CANDIDATES["echo"]:
        r = _get(host, port, path, method="PUT", body=b"probe")
        if r is not None and 200 <= r.status < 300:
            resources["echo"] = path
            break
    for name in ("ok", "collection", "sandbox_collection", "etag_resource"):
        resources.setdefault(name, resources.get("ok", "/"))
    draft: dict[str, Any] = {
        "name": f"discovered at {base_url}",
        "base_url": base_url.rstrip("/"),
        "batch_endpoint": batch_endpoint,
        "resources": resources,
        "volatile_headers": list(DEFAULT_VOLATILE),
        "profiles": profiles,
    }
    if limits:
        draft["limits"] = limits
    return draft
