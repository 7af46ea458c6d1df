"""The collections a target declares, as the collection checks walk them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

__all__ = [
    "created_path",
    "declared_collections",
    "judge_member_parts",
    "retrieval_member_paths",
]

#: The roles that name a collection (target.schema.json).
COLLECTION_ROLES = ("collection", "empty_collection", "sandbox_collection")


def declared_collections(ctx: Context, judge: Judge) -> list[str]:
    """The paths of the collections the target declares, each once; N/A when it declares none."""
    paths = [ctx.path(p) for p in dict.fromkeys(map(ctx.target.resource, COLLECTION_ROLES)) if p]
    if not paths:
        judge.not_applicable("the target declares no collection")
    return paths


def created_path(ctx: Context, request_path: str, location: str | None) -> str | None:
    """The path a `Location` value names, resolved against the URI of the request it answers
    (`request_path` on the target's origin: the collection for a POST, the member for a PUT);
    None without a value.

    MB-RESP-7 cites RFC 9110 §10.2.2: "the field value consists of a single URI-reference.
    When it has the form of a relative reference, the final value is computed by resolving it
    against the target URI": `7`, `./7`, `books/7` and an absolute URI are all the same member
    wherever they resolve to it.
    """
    if not location or not location.strip(" \t"):
        return None
    base = f"{ctx.scheme}://{ctx.authority}{request_path}"
    return urlsplit(urljoin(base, location.strip(" \t"))).path or None


def retrieval_member_paths(
    ctx: Context, coll: str, status: int | None, content_type: str, body: bytes
) -> list[str] | None:
    """The member path each part of a collection retrieval names, in order ([] for a 204);
    None for an answer that is no collection retrieval."""
    if status == 204:
        return []
    try:
        media, params = parse_media_type(content_type)
    except ValueError:
        return None
    if status != 200 or media != "multipart/mixed" or not params.get("boundary"):
        return None
    base = f"{ctx.scheme}://{ctx.authority}{coll}"
    env = read_multipart(body, params["boundary"])
    # MB-METHOD-6: a Content-Id "naming the member, resolvable against the collection's URI".
    return [
        urlsplit(urljoin(base, (p.get("Content-Id") or "").strip(" \t").strip("<>"))).path
        for p in env.parts
    ]


def judge_member_parts(
    judge: Judge, what: str, paths: list[str], known: Mapping[str, bool | None]
) -> None:
    """No member named by two parts of a retrieval, each of `known` that is there (True) by
    exactly one and each deleted (False) by none; a member of unknown state (None), and any
    other client's, is not counted."""
    counts = Counter(paths)
    twice = sorted(p for p, n in counts.items() if n > 1)
    # MB-METHOD-4: "one part per member of the collection": no member twice.
    judge.expect_true(
        f"{what}: no member named by two parts",
        not twice,
        ", ".join(f"{p} in {counts[p]} parts" for p in twice) if twice else "none",
        "one part per member",
        "MB-METHOD-4",
    )
    wrong = [
        f"{p}: {counts[p]} parts, {'there' if there else 'deleted'}"
        for p, there in known.items()
        if there is not None and counts[p] != (1 if there else 0)
    ]
    # MB-METHOD-4: "one part per member of the collection": each member there once, a deleted
    # one (MB-TEST-3: "after which a `GET` of it answers 404 or 410") in none.
    judge.expect_true(
        f"{what}: the suite's members",
        not wrong,
        "; ".join(wrong) if wrong else "each there once, each deleted in none",
        "one part for each member there, none for a deleted one",
        "MB-METHOD-4",
    )
