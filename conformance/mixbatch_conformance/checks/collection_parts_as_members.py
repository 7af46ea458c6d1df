"""Each part of a collection retrieval is the member as a GET of it alone answers it (spec 4.2,
MB-METHOD-4).

Theory of operation: MB-METHOD-4 answers a collection retrieval "with one part per member of
the collection", and spec 4.2 describes it as a response that "carries each member as a part":
the members "are the representation", and spec 4.2 says each part "carries what a `GET` of that
member alone answers". A server that writes every part with the collection's
own media type, or with the type most of its members have, labels a text member as JSON. For
each part of the declared collection's retrieval (the first `PARTS_COMPARED`) and for members
the check writes into the sandbox collection in two media types (the target's JSON member
document, and text/plain), the check sends a GET of the member alone and compares the part
with it: status, media type with its parameters (type, subtype and parameter names compared
without case, RFC 9110 §8.3.1) and content. The sandbox half runs only where the sandbox
collection answers a collection retrieval (200 multipart/mixed), and a member the sandbox
refuses to create in a media type is noted and left out. Every member written is deleted at the
end (MB-TEST-3).
"""

from __future__ import annotations

import json
import re
import secrets
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Part, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Parts of the declared collection's retrieval compared with their members alone.
PARTS_COMPARED = 8
RETRIEVAL = (("Accept", "multipart/mixed"),)
#: A text member's content: not JSON, so a part labelled application/json misnames it.
TEXT_NOTE = "a plain-text note, not JSON: {}\r\n"


def _media(judge: Judge, what: str, value: str | None) -> tuple[str, dict[str, str]]:
    """A Content-Type as (type/subtype, parameters), names and the charset lower-cased."""
    media, params = judge.media_type(what, value or "", "MB-METHOD-4")
    # RFC 9110 §8.3.2: charset names are case-insensitive; other parameter values as sent
    # (§8.3.1: they "might or might not be case-sensitive").
    return media.lower(), {
        k.lower(): v.lower() if k.lower() == "charset" else v for k, v in params.items()
    }


def _path_of(ctx: Context, coll: str, ref: str) -> str | None:
    """The path a member reference names against the collection, None off the origin; spelt
    as RFC 3986 §6.2.2 and §6.2.3 compare it (percent-encodings in upper case, a default port
    left out), so two spellings of one member give one path."""
    url = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{coll}", ref.strip()))
    default = {"http": ":80", "https": ":443"}.get(url.scheme, "")
    netloc = url.netloc.lower().removesuffix(default) if default else url.netloc.lower()
    if (url.scheme, netloc) != (ctx.scheme, ctx.authority.lower().removesuffix(default)):
        return None
    path = url.path + (f"?{url.query}" if url.query else "")
    return re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group(0).upper(), path)


def _retrieve(ctx: Context, judge: Judge, coll: str) -> list[Part] | None:
    return _parts_of(judge, ctx.send(judge, ctx.raw_request("GET", coll, list(RETRIEVAL))))


def _parts_of(judge: Judge, resp: Response) -> list[Part] | None:
    """The parts of a collection retrieval answered 200 in multipart/mixed, else None."""
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        return None
    _, params = judge.media_type("retrieval Content-Type", resp.get("Content-Type"), "MB-METHOD-4")
    env = read_multipart(resp.body, params.get("boundary", ""))
    return None if env.fatal else list(env.parts)


def _compare(ctx: Context, judge: Judge, label: str, part: Part, path: str) -> None:
    alone: Response = ctx.send(judge, ctx.raw_request("GET", path))
    if alone.status != 200:
        # Spec 4.2: "each part carries what a `GET` of that member alone answers (its status,
        # ...)", so a member alone answered otherwise is no fault in itself; but a part that
        # reports a member where its `Content-Id` names nothing (404, 410) names no member
        # (MB-METHOD-6: "naming the member, resolvable against the collection's URI").
        code = part.get("Http-Status-Code")
        absent = alone.status in (404, 410) and code is not None and code.startswith("2")
        judge.expect(
            f"{label} Http-Status-Code, as GET {path} alone answers",
            code,
            {str(alone.status)},
            "MB-METHOD-6" if absent else "MB-METHOD-4",
        )
        return
    # MB-METHOD-4: "one part per member of the collection"; spec 4.2: the retrieval "carries
    # each member as a part" (the members "are the representation"): the part is the member's
    # representation, as a GET of it alone answers it, its media type included.
    # MB-METHOD-6: "give each part of a collection retrieval an `Http-Status-Code` field": a
    # part without one breaks it; one with another code than the member's alone, MB-METHOD-4.
    code = part.get("Http-Status-Code")
    cited = "MB-METHOD-6" if code is None else "MB-METHOD-4"
    judge.expect(f"{label} Http-Status-Code", code, {"200"}, cited)
    judge.expect(
        f"{label} Content-Type as the member's alone",
        _media(judge, f"{label} Content-Type", part.get("Content-Type")),
        [_media(judge, f"GET {path} alone Content-Type", alone.get("Content-Type"))],
        "MB-METHOD-4",
    )
    judge.expect(f"{label} content as the member's alone", part.body, [alone.body], "MB-METHOD-4")


def _declared(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    parts = _retrieve(ctx, judge, coll)
    if parts is None:
        judge.note(f"{coll} gave no readable collection retrieval; judged by collection-get")
        return
    for part in parts[:PARTS_COMPARED]:
        cid = (part.get("Content-Id") or "").strip(" \t")
        path = _path_of(ctx, coll, cid[1:-1]) if cid.startswith("<") else None
        if path is not None:
            _compare(ctx, judge, f"{coll} part {part.index} {cid}", part, path)


def _created(ctx: Context, judge: Judge, coll: str, ctype: str, body: bytes) -> str | None:
    resp = ctx.send(judge, ctx.raw_request("POST", coll, [("Content-Type", ctype)], body))
    location = resp.get("Location")
    if resp.status != 201 or not location:
        judge.note(f"a {ctype} member POSTed to {coll}: {resp.status}; left out")
        return None
    return _path_of(ctx, coll, location)


def _sandbox(ctx: Context, judge: Judge) -> None:
    if ctx.target.sandbox_member is None:
        return
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    tag = secrets.token_hex(6)
    doc = {
        k: f"mb-suite-part-{tag}" if isinstance(v, str) else v
        for k, v in ctx.target.sandbox_member.items()
    }
    made = {
        "application/json": _created(
            ctx, judge, coll, "application/json", json.dumps(doc).encode()
        ),
        "text/plain": _created(
            ctx, judge, coll, "text/plain; charset=utf-8", TEXT_NOTE.format(tag).encode()
        ),
    }
    paths = {p: kind for kind, p in made.items() if p is not None}
    if not paths:
        return
    parts = _retrieve(ctx, judge, coll)
    if parts is None:
        judge.note(f"{coll} answers no collection retrieval; its members are not compared")
        return
    base = f"{ctx.scheme}://{ctx.authority}{coll}"
    for part in parts:
        cid = (part.get("Content-Id") or "").strip(" \t")
        path = _path_of(ctx, coll, cid[1:-1]) if cid.startswith("<") else None
        if path in paths:
            _compare(ctx, judge, f"{coll} part {part.index}, the {paths[path]} member", part, path)
            paths.pop(path)
    # MB-METHOD-4: "one part per member of the collection": the member document written with a
    # 201 and its Location is a member until deleted, and it is not deleted before the
    # retrieval. Other content "is outside this requirement: a sandbox may store it or refuse
    # it" (MB-TEST-3), and where it keeps it is its own business, so the text member is not
    # looked for.
    missing = sorted(p for p, kind in paths.items() if kind == "application/json")
    judge.expect_true(
        f"the member document written, in the retrieval of {base}",
        not missing,
        f"no part names {missing}",
        "a part for it",
        "MB-METHOD-4",
    )


@checker(
    "collection-parts-are-members-alone",
    ("MB-METHOD-4", "MB-METHOD-6"),
    "Each part of a collection retrieval, of the declared collection and of members written to the sandbox as JSON and as text/plain, has the status, media type and content of a GET of that member alone; a part whose member a GET alone does not answer 200 carries that GET's status, and the member document written has a part.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
)
def collection_parts_are_members_alone(ctx: Context, judge: Judge) -> None:
    _declared(ctx, judge)
    _sandbox(ctx, judge)


def _member_paths(ctx: Context, coll: str, parts: list[Part]) -> list[tuple[Part, str]]:
    out = []
    for part in parts[:PARTS_COMPARED]:
        cid = (part.get("Content-Id") or "").strip(" \t")
        path = _path_of(ctx, coll, cid[1:-1]) if cid.startswith("<") else None
        if path is not None:
            out.append((part, path))
    return out


def _earlier(date: str, than: str) -> bool:
    """Whether HTTP-date `date` names an instant before `than` (False when either is none)."""
    try:
        return parsedate_to_datetime(date) < parsedate_to_datetime(than)
    except (TypeError, ValueError, IndexError):
        return False


@checker(
    "collection-parts-ignore-member-conditions",
    ("MB-METHOD-4", "MB-STATUS-7"),
    "A collection retrieval carrying If-None-Match with a member's own tag, or If-Modified-Since at a member's Last-Modified earlier than the aggregate one, is answered 200 with every part the member as a GET of it alone answers, and one carrying If-Unmodified-Since at that date 412: the conditions are the retrieval's, judged against the aggregate validators, not each part's.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_parts_ignore_member_conditions(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    whole = ctx.send(judge, ctx.raw_request("GET", coll, list(RETRIEVAL)))
    parts = _parts_of(judge, whole)
    if parts is None:
        judge.not_applicable(f"{coll} gave no readable collection retrieval")
    members = _member_paths(ctx, coll, parts)
    if not members:
        judge.not_applicable(f"no part of {coll}'s retrieval names a member on its origin")
    aggregate = (whole.get("ETag") or "").strip()
    modified = (whole.get("Last-Modified") or "").strip()
    tag_field: tuple[str, str] | None = None
    date: str | None = None
    for _, path in members:
        alone = ctx.send(judge, ctx.raw_request("GET", path))
        tag = (alone.get("ETag") or "").strip()
        own = (alone.get("Last-Modified") or "").strip()
        if tag_field is None and tag and tag.removeprefix("W/") != aggregate.removeprefix("W/"):
            tag_field = ("If-None-Match", tag)
        if date is None and own and _earlier(own, modified):
            date = own
    # Spec 5.2: "A conditional retrieval is evaluated as RFC 9110 §13.2.2 evaluates any `GET`,
    # against the aggregate validators": a member's own tag is no aggregate one, and the
    # aggregate Last-Modified the 200 carries is later than this member's date, so the
    # collection has changed since (RFC 9110 §13.1.3) and was not unmodified since (§13.1.4).
    cases: list[tuple[tuple[str, str], int]] = []
    if tag_field is not None:
        cases.append((tag_field, 200))
    if date is not None:
        cases += [(("If-Modified-Since", date), 200), (("If-Unmodified-Since", date), 412)]
    if not cases:
        judge.not_applicable("no member has a tag or an earlier date of its own")
    for field, want in cases:
        shown = f"{field[0]}: {field[1]}"
        resp = ctx.send(judge, ctx.raw_request("GET", coll, [*RETRIEVAL, field]))
        cited = "MB-METHOD-4" if field[0] == "If-None-Match" else "MB-STATUS-7"
        if not judge.expect(f"GET {coll} with {shown}: status", resp.status, {want}, cited):
            continue
        if want != 200:
            continue
        got = _parts_of(judge, resp)
        if got is None:
            judge.expect_true(
                f"GET {coll} with {shown}",
                False,
                "no readable retrieval",
                "one part per member",
                "MB-METHOD-4",
            )
            continue
        # MB-METHOD-4: "each part carries what a `GET` of that member alone answers (its
        # status, its `Content-Type` with its parameters and its content)", whatever the
        # retrieval's own conditions.
        for part, path in _member_paths(ctx, coll, got):
            _compare(ctx, judge, f"{coll} with {shown}, part {part.index}", part, path)
