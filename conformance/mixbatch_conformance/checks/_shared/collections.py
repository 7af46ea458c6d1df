"""The collections a target declares, as the collection checks walk them, and a collection
retrieval's parts judged against the GET of each member alone (spec 4.2, MB-METHOD-4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.validator import Part, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__ = [
    "RETRIEVAL",
    "created_path",
    "declared_collections",
    "expect_part_as_member_alone",
    "judge_member_parts",
    "part_member_path",
    "path_on_origin",
    "retrieval_member_paths",
    "retrieve_parts",
]

#: The request fields of a collection retrieval (spec 4.2: "A client asks for it with
#: `Accept: multipart/mixed`").
RETRIEVAL = (("Accept", "multipart/mixed"),)

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


def path_on_origin(ctx: Context, coll: str, ref: str) -> str | None:
    """The path (and query) `ref` names, resolved against the URI of `coll`; None when it names
    a resource on another origin than the target's."""
    url = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{coll}", ref.strip()))
    if (url.scheme, url.netloc.lower()) != (ctx.scheme, ctx.authority.lower()):
        return None
    return url.path + (f"?{url.query}" if url.query else "")


def part_member_path(ctx: Context, coll: str, part: Part) -> str | None:
    """The path of the member a retrieval part's `Content-Id` names, resolved against the
    collection's URI (MB-METHOD-6); None when it names none on the target's origin."""
    cid = (part.get("Content-Id") or "").strip(" \t")
    return (
        path_on_origin(ctx, coll, cid[1:-1]) if cid.startswith("<") and cid.endswith(">") else None
    )


def retrieve_parts(ctx: Context, judge: Judge, coll: str) -> tuple[str | None, list[Part]] | None:
    """The boundary and parts of the collection retrieval of `coll` (no parts for 204), else
    None (noted) for an answer that is no readable collection retrieval."""
    resp = ctx.send(judge, ctx.raw_request("GET", coll, list(RETRIEVAL)))
    if resp.status == 204:
        return None, []
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        judge.note(f"GET {coll} with Accept: multipart/mixed: {resp.status} {resp.media_type!r}")
        return None
    _, params = judge.media_type("retrieval Content-Type", resp.get("Content-Type"), "MB-METHOD-4")
    env = read_multipart(resp.body, params.get("boundary", ""))
    if env.fatal:
        judge.note(f"GET {coll} with Accept: multipart/mixed: unreadable, {env.fatal}")
        return None
    return params.get("boundary"), list(env.parts)


def _media(value: str | None) -> tuple[str, dict[str, str]] | str:
    try:
        media, params = parse_media_type(value or "")
    except ValueError:
        return value or ""
    return media.lower(), {
        k.lower(): v.lower() if k.lower() == "charset" else v for k, v in params.items()
    }


def expect_part_as_member_alone(judge: Judge, label: str, part: Part, alone: Response) -> None:
    """A retrieval part carries what the GET of its member alone answered."""
    # MB-METHOD-4: "one part per member of the collection"; spec 4.2: "each part carries what
    # a `GET` of that member alone answers (its status, its `Content-Type` with its parameters
    # and its content)", and "a part's `ETag` is its member's".
    judge.expect(
        f"{label} Http-Status-Code",
        part.get("Http-Status-Code"),
        {str(alone.status)},
        "MB-METHOD-4",
    )
    judge.expect(
        f"{label} Content-Type as the member's alone",
        _media(part.get("Content-Type")),
        [_media(alone.get("Content-Type"))],
        "MB-METHOD-4",
    )
    judge.expect_true(
        f"{label} content as the member's alone",
        part.body == alone.body,
        f"{len(part.body)} octets"
        + (
            ""
            if part.body == alone.body
            else f", not the {len(alone.body)} of the GET alone: {part.body[:60]!r}"
            f" where the GET alone read {alone.body[:60]!r}"
        ),
        f"the {len(alone.body)} octets of the GET alone",
        "MB-METHOD-4",
    )
    if part.get("ETag") is not None and alone.get("ETag") is not None:
        judge.expect(
            f"{label} ETag as the member's alone",
            (part.get("ETag") or "").strip(" \t"),
            {(alone.get("ETag") or "").strip(" \t")},
            "MB-METHOD-4",
        )
