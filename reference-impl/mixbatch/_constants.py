"""Names and values the server, the proxy, the client and the ASGI middleware share, each once.

The spec version and the profile names are read from the packaged spec (spec/requirements.json
and the capabilities schema's ``profiles`` enum; the wheel ships spec/ as ``mixbatch/_spec``),
so a new draft or profile is spelled in one place. Each component's profile subset is checked
against that enum when this module is imported: a misspelt or withdrawn profile fails at import,
not in a capabilities document.
"""

from __future__ import annotations

from collections.abc import Iterable

from mixbatch import spec_document, spec_version

__all__ = [
    "ASGI_DEFAULT_PROFILES",
    "ASGI_PROFILES",
    "CAPABILITIES_MEDIA_TYPE",
    "INHERITED_FIELDS",
    "PROBLEM_MEDIA_TYPE",
    "PROFILES",
    "PROXY_PROFILES",
    "SERVER_PROFILES",
    "SPEC_VERSION",
]

#: The version of the spec implemented (``spec_version`` in spec/requirements.json).
SPEC_VERSION = spec_version()
#: The media type of the capabilities document a batch endpoint serves.
CAPABILITIES_MEDIA_TYPE = "application/vnd.mixbatch.capabilities+json"
#: RFC 9457 problem details.
PROBLEM_MEDIA_TYPE = "application/problem+json"
#: MB-SUB-5: "The batch request's Authorization and Cookie fields apply to each part that
#: carries none of its own; a part's own field replaces the outer one." MB-SUB-6: no other.
INHERITED_FIELDS = ("Authorization", "Cookie")


def _schema_profiles() -> tuple[str, ...]:
    schema = spec_document("schemas/capabilities.schema.json")
    items = schema.get("properties", {}).get("profiles", {}).get("items", {})
    return tuple(str(name) for name in items.get("enum", ()))


#: Every profile the spec defines, in the schema's order.
PROFILES = _schema_profiles()


def _subset(names: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(names)
    unknown = [name for name in chosen if PROFILES and name not in PROFILES]
    if unknown:
        raise RuntimeError(f"profiles {unknown!r} are not in the capabilities schema {PROFILES!r}")
    return chosen


#: The reference server's profiles: every one (atomic and references run on its SQLite store).
SERVER_PROFILES = _subset(
    (
        "core",
        "xml",
        "json",
        "collection-get",
        "conditional",
        "error-policy",
        "atomic",
        "references",
        "pipelining",
        "limits",
    )
)
#: The batching proxy's: it answers in multipart/mixed only and passes conditions through.
PROXY_PROFILES = _subset(("core", "error-policy", "limits"))
#: The profiles the ASGI middleware can offer, and those it offers unless told otherwise: atomic
#: only with the application's transaction hook; references by default, since a batch whose
#: Batch-Mode does not list them is unaffected (MB-PROC-18).
ASGI_PROFILES = _subset(
    ("core", "error-policy", "limits", "conditional", "collection-get", "references", "atomic")
)
ASGI_DEFAULT_PROFILES = _subset(("core", "error-policy", "limits", "references"))
