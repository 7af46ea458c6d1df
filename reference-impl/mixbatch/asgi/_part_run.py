"""One part of a batch, answered: references substituted, authorised, run through the app.

A part's answer comes from the whole wrapped application (``_dispatch``, MB-SUB-1), after two
steps of the middleware's own. With ``Batch-Mode: references`` its ``$(N)`` and ``$(N:Field)``
are substituted from the earlier answers by the rules the reference server uses
(``mixbatch.references``, spec §7.7); one that names nothing skips the part (MB-PROC-20).
Then ``authorize_part``, when given, may refuse it: the part is answered 403 and never reaches
the app. The outer request's credentials go with a part that has none of its own (MB-SUB-5).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from mixbatch import references
from mixbatch.codec import Fields

from ._atomic import Answer
from ._dispatch import SubResponse, build_scope, run_part
from ._envelope import Envelope, Part
from ._replies import PROBLEM_MEDIA_TYPE, problem_bytes, problem_document
from ._types import ASGIApp, Scope

__all__ = [
    "Authorizer",
    "Batch",
    "PartEndpoint",
    "PartRequest",
    "answer_part",
    "authority",
    "inherited_fields",
]


@dataclass(frozen=True, slots=True)
class PartRequest:
    """What ``authorize_part`` sees: one sub-request about to run, and the batch's scope."""

    index: int
    method: str
    target: str
    headers: Fields
    scope: Scope


Authorizer = Callable[[PartRequest], bool | Awaitable[bool]]


class PartEndpoint(Protocol):
    """What running a part reads of the batch endpoint (``BatchMiddleware`` has it all)."""

    @property
    def app(self) -> ASGIApp: ...
    @property
    def path(self) -> str: ...
    @property
    def inherit_headers(self) -> tuple[str, ...]: ...
    @property
    def authorize_part(self) -> Authorizer | None: ...


@dataclass(frozen=True, slots=True)
class Batch:
    """One batch request being answered: its scope, fields, envelope, base URI and modes."""

    scope: Scope
    headers: Fields
    envelope: Envelope
    base: str
    modes: frozenset[str]


def authority(scope: Scope, headers: Fields) -> str:
    """The batch request's authority: its Host, else the server's address, else localhost."""
    host = headers.get("Host")
    if host:
        return host
    server = scope.get("server")
    if server:
        name, port = server[0], server[1]
        default = 443 if scope.get("scheme") == "https" else 80
        return name if port in (None, default) else f"{name}:{port}"
    return "localhost"


def inherited_fields(endpoint: PartEndpoint, headers: Fields) -> list[tuple[str, str]]:
    """The outer fields a part may inherit (``inherit_headers``), as the batch carries them."""
    return [(name, value) for name, value in headers if name.lower() in endpoint.inherit_headers]


async def answer_part(
    endpoint: PartEndpoint,
    batch: Batch,
    inherited: list[tuple[str, str]],
    part: Part,
    earlier: Sequence[Answer],
) -> Answer:
    """Part ``part`` run through the app, its references substituted first (§7.7)."""
    target, fields = part.target, part.fields
    if references.MODE in batch.modes:
        scope = batch.scope
        try:
            resolved = references.resolve(
                part,
                [references.Earlier(a.status, a.outcome, a.target, a.headers) for a in earlier],
                base=batch.base,
                scheme=scope.get("scheme", "http"),
                authority=authority(scope, batch.headers),
                batch_paths=(endpoint.path,),
            )
        except references.Unresolved as exc:
            return _unresolved(part, exc)
        if resolved is not None:
            target, fields = resolved
    result = await _run(endpoint, batch, inherited, part, target, fields)
    return Answer(result.status, result.headers, result.body, None, target)


async def _run(
    endpoint: PartEndpoint,
    batch: Batch,
    inherited: list[tuple[str, str]],
    part: Part,
    target: str,
    part_fields: Fields,
) -> SubResponse:
    scope = batch.scope
    own = {name.lower() for name, _ in part_fields}
    fields = list(part_fields)
    # MB-SUB-5: outer credentials apply to a part without its own; a part's own field
    # replaces them. MB-SUB-6: no other outer field is applied.
    fields += [(n, v) for n, v in inherited if n.lower() not in own]
    body = batch.envelope.body(part)
    if body and "content-length" not in own:
        fields.append(("Content-Length", str(len(body))))
    if endpoint.authorize_part is not None:
        request = PartRequest(part.index, part.method, target, Fields(fields), scope)
        allowed = endpoint.authorize_part(request)
        if inspect.isawaitable(allowed):
            allowed = await allowed
        if not allowed:
            document = problem_document(
                403,
                "part-forbidden",
                f"part {part.index} ({part.method} {target}) is not authorised",
                requirement="MB-SUB-1",
            )
            document["part_index"] = part.index
            return SubResponse(403, [("Content-Type", PROBLEM_MEDIA_TYPE)], problem_bytes(document))
    host = [("Host", authority(scope, batch.headers))]
    sub_scope = build_scope(scope, part.method, target, host + fields)
    return await run_part(endpoint.app, sub_scope, body)


def _unresolved(part: Part, exc: references.Unresolved) -> Answer:
    # MB-PROC-20: "The answer is Batch-Outcome: skipped with an application/problem+json body
    # whose requirement is MB-PROC-20 and whose reference member is the reference as written".
    document = problem_document(
        424,
        "reference-unresolved",
        exc.detail,
        title="Reference unresolved",
        requirement="MB-PROC-20",
        part_index=part.index,
        reference=exc.reference,
    )
    body = problem_bytes(document)
    return Answer(None, [("Content-Type", PROBLEM_MEDIA_TYPE)], body, "skipped", part.target)
