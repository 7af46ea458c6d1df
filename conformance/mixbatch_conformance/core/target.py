"""The target description: what the suite may assume about the server under test.

Theory of operation: a target is a base URL plus facts only its operator knows: which
resources exist (`ok` answers 2xx to GET, `not_found` answers 404, `collection` supports GET
collection retrieval, `empty_collection` is one that exists with no members, the sandbox
(`sandbox.collection`, or the older `resources.sandbox_collection`) accepts POST/PUT/DELETE of
its `sandbox.member` document and may read back what was written (`sandbox.reads_back`,
MB-TEST-3, MB-TEST-4), `etag_resource` sends an ETag, `echo` describes any request as JSON
(MB-TEST-2)), which response fields change from one request to the next (`volatile_headers`,
left out of batch-versus-alone comparisons, spec 3.2.4), credentials to send, which profiles
the server claims, whether the suite may change it for good (`disposable`, spec 14.4), and
whether it is a batching proxy (`proxy`: its origin and its sub-request timeout), and the numbers
its operator publishes about it: the whole-batch time limit (`batch_timeout_ms`), the largest
n its random resource serves (`random_max_n`, MB-TEST-5) and the largest ms its delay resource
waits (`delay_max_ms`, MB-TEST-7). A check whose profile is not claimed is N/A, never PASS; so
is a check that needs a resource, a sandbox fact or a proxy fact the target does not declare.
`core` is always claimed.

The file is JSON, validated against spec/schemas/target.schema.json when that schema exists
and against the fallback below otherwise (the shapes agree; the spec's file wins).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jsonschema

from mixbatch_conformance.core.requirements import spec_dir
from mixbatch_conformance.core.schemas import load_schema
from mixbatch_conformance.transport.embedded import EMBEDDED_BATCH_TIMEOUT_MS

__all__ = [
    "ALL_PROFILES",
    "DEFAULT_VOLATILE",
    "REFERENCE_DELAY_MAX_MS",
    "ConfigError",
    "Target",
    "load_target",
    "reference_target",
    "target_from_dict",
]


def _schema_profiles() -> tuple[str, ...]:
    # The capabilities schema's enum is the one list of profile names (spec §9.2); the
    # reference implementation and tools/spec_index.py read the same enum.
    schema = load_schema("capabilities.schema.json")
    if schema is None:
        raise RuntimeError("spec/schemas/capabilities.schema.json is missing")
    return tuple(schema["properties"]["profiles"]["items"]["enum"])


ALL_PROFILES = _schema_profiles()
#: The largest n the reference server's random resource serves: 16 MiB.
REFERENCE_RANDOM_MAX_N = 16 * 1024 * 1024
#: The largest ms the reference server's delay resource waits: 10 s.
REFERENCE_DELAY_MAX_MS = 10_000
DEFAULT_VOLATILE = ("Date", "Server", "Age", "Expires", "Set-Cookie", "Request-Id", "X-Request-Id")
RESOURCE_NAMES = (
    "ok",
    "not_found",
    "collection",
    "sandbox_collection",
    "etag_resource",
    "echo",
    "random",
    "status",
    "delay",
    "empty_collection",
)

FALLBACK_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["base_url", "batch_endpoint", "resources", "profiles"],
    "properties": {
        "base_url": {"type": "string", "pattern": "^http://"},
        "batch_endpoint": {"type": "string", "pattern": "^/"},
        "resources": {
            "type": "object",
            "properties": {name: {"type": "string"} for name in RESOURCE_NAMES},
        },
        "volatile_headers": {"type": "array", "items": {"type": "string"}},
        "credentials": {"type": "object", "properties": {"headers": {"type": "array"}}},
        "profiles": {"type": "array", "items": {"enum": list(ALL_PROFILES)}, "uniqueItems": True},
        "limits": {"type": "object"},
        "proxy": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "pattern": "^https?://"},
                "subrequest_timeout_ms": {"type": "integer", "minimum": 1},
            },
        },
        "batch_timeout_ms": {"type": "integer", "minimum": 1},
        "random_max_n": {"type": "integer", "minimum": 0},
        "delay_max_ms": {"type": "integer", "minimum": 0},
    },
}


class ConfigError(ValueError):
    """The target description is unusable (a usage error: exit code 2)."""


@dataclass(frozen=True)
class Target:
    """A validated target description."""

    base_url: str
    batch_endpoint: str = "/batch"
    resources: dict[str, str] = field(default_factory=dict)
    volatile_headers: tuple[str, ...] = DEFAULT_VOLATILE
    credentials: tuple[tuple[str, str], ...] = ()
    profiles: frozenset[str] = frozenset({"core"})
    limits: dict[str, int] = field(default_factory=dict)
    timeout: float = 20.0
    #: The suite may change the target for good (spec 14.4: "A target that declares itself
    #: `disposable` lets a suite replay the valid vectors whose parts write"); true for a
    #: server the suite started itself, and for a target whose description says so.
    disposable: bool = False
    #: The member document the sandbox accepts (MB-TEST-3), None when the target gives none.
    sandbox_member: dict[str, Any] | None = None
    #: A GET of a sandbox member answers what was last written to it (MB-TEST-4).
    sandbox_reads_back: bool = False
    #: The target is a batching proxy (spec 10.2): the MB-PROXY checks apply.
    proxy: bool = False
    #: The proxy's one origin, where checks observe what it forwarded (None: not declared).
    proxy_origin: str | None = None
    #: The proxy's per-sub-request timeout in milliseconds (None: not declared).
    proxy_timeout_ms: int | None = None
    #: The server's whole-batch time limit in milliseconds (None: not declared).
    batch_timeout_ms: int | None = None
    #: The largest n the random resource serves (MB-TEST-5; None: not declared).
    random_max_n: int | None = None
    #: The largest ms the delay resource serves (MB-TEST-7; None: not declared).
    delay_max_ms: int | None = None

    def resource(self, name: str) -> str | None:
        return self.resources.get(name)

    def claims(self, profile: str) -> bool:
        return profile == "core" or profile in self.profiles

    def with_base_url(self, base_url: str) -> Target:
        return replace(self, base_url=base_url.rstrip("/"))


def _schema() -> dict[str, Any]:
    path = spec_dir() / "schemas" / "target.schema.json"
    if path.is_file():
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    return FALLBACK_SCHEMA


def target_from_dict(data: dict[str, Any]) -> Target:
    """Validate `data` and build a Target; raises ConfigError naming the bad member."""
    try:
        jsonschema.validate(data, _schema())
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise ConfigError(f"target config invalid at {where}: {exc.message}") from None
    creds = (data.get("credentials") or {}).get("headers") or []
    resources = dict(data.get("resources") or {})
    given = data.get("sandbox")
    sandbox: dict[str, Any] = given if isinstance(given, dict) else {}
    if sandbox.get("collection"):
        # target.schema.json: sandbox.collection "replaces resources.sandbox_collection".
        resources["sandbox_collection"] = str(sandbox["collection"])
    member = sandbox.get("member")
    profiles = frozenset(data.get("profiles") or ["core"]) | {"core"}
    proxy = data.get("proxy")
    return Target(
        base_url=str(data["base_url"]).rstrip("/"),
        batch_endpoint=data.get("batch_endpoint", "/batch"),
        resources=resources,
        volatile_headers=tuple(data.get("volatile_headers") or DEFAULT_VOLATILE),
        credentials=tuple((str(k), str(v)) for k, v in creds),
        profiles=profiles,
        limits={k: int(v) for k, v in (data.get("limits") or {}).items() if isinstance(v, int)},
        proxy=isinstance(proxy, dict),
        proxy_origin=str(proxy["origin"]).rstrip("/") if proxy and "origin" in proxy else None,
        proxy_timeout_ms=int(proxy["subrequest_timeout_ms"])
        if proxy and "subrequest_timeout_ms" in proxy
        else None,
        batch_timeout_ms=data.get("batch_timeout_ms"),
        random_max_n=data.get("random_max_n"),
        delay_max_ms=data.get("delay_max_ms"),
        disposable=data.get("disposable") is True,
        sandbox_member=dict(member) if isinstance(member, dict) else None,
        sandbox_reads_back=sandbox.get("reads_back") is True,
    )


def load_target(path: Path, base_url: str | None = None) -> Target:
    """Read a config file; `base_url` (from --target) overrides the file's."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read target config {str(path)!r}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"target config {str(path)!r} is not a JSON object")
    if base_url is not None:
        data["base_url"] = base_url
    return target_from_dict(data)


def reference_target(base_url: str) -> Target:
    """The description of the embedded reference server (its demo resources)."""
    described = target_from_dict(
        {
            "base_url": base_url,
            "batch_endpoint": "/batch",
            "resources": {
                "ok": "/books/1",
                "not_found": "/books/999999",
                "collection": "/books",
                "empty_collection": "/collections/empty",
                "sandbox_collection": "/books",
                "etag_resource": "/books/1",
                "echo": "/echo",
                "random": "/random/{n}",
                "status": "/status/{code}",
                "delay": "/delay/{ms}",
            },
            "volatile_headers": list(DEFAULT_VOLATILE),
            "profiles": list(ALL_PROFILES),
            "batch_timeout_ms": EMBEDDED_BATCH_TIMEOUT_MS,
            # The reference server's /random/{n} serves up to 16 MiB (its MAX_RANDOM_BYTES)
            # and answers a larger n 413.
            "random_max_n": REFERENCE_RANDOM_MAX_N,
            # The reference server's /delay/{ms} waits up to 10 s (its MAX_DELAY_MS) and
            # answers a larger ms 400.
            "delay_max_ms": REFERENCE_DELAY_MAX_MS,
            "sandbox": {
                "collection": "/books",
                "member": {"title": "mixbatch suite", "author": "mixbatch suite", "year": 2000},
                "reads_back": True,
            },
            "disposable": True,
        }
    )
    return described
