"""Planted violations of how a server reads media-type parameters and Accept members (spec
3.1.1, 6.1; RFC 9110 §5.6.4, §5.6.6, §12.5.1).

- the batch Content-Type refused when it holds an empty parameter (`;;`, a trailing `;`),
  which RFC 9110 §5.6.6's `*( OWS ";" OWS [ parameter ] )` allows (MB-WIRE-4);
- its parameters read with quoted-strings that end at an escaped quote `\\"`, at a quote
  after an escaped backslash `\\\\`, or with no quoting at all, so a `boundary=` written
  inside another parameter's quoted value is taken as the boundary, or one after it is missed
  or doubled (MB-WIRE-4);
- a quoted boundary whose quoted-pair gives a backslash, which is no bchar, accepted
  (MB-WIRE-4);
- a parameter without `=` (`; x`) or without a name (`; =x`) skipped, so the batch is read by
  the boundary beside it, where MB-WIRE-4 answers a Content-Type that breaks RFC 9110 §5.6.6's
  grammar 400 (MB-WIRE-4);
- Accept split at every comma, or with quoted-strings that end at an escaped quote, so a
  media range written inside a quoted parameter value is read as a member, or a member after
  such a value is lost (MB-STATUS-9, MB-MULTI-1);
- an Accept member that is no media range taken to refuse every form (MB-MULTI-1);
- Accept's ranges matched as glob patterns (`*` standing for any run of characters within
  the type or the subtype), or as prefixes of a form's type/subtype, so `application/*+json`
  or `multipart/mix` admits a batch form (MB-STATUS-9).

Each reads the request as the client sent it and shows the reference server what the planted
reader makes of it, or answers for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fnmatch import fnmatchcase

from mixbatch_conformance.core.validator import list_members, parse_media_type
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    accepts,
    is_batch,
    problem,
    refuses,
    split_quoted,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["EQUALS_WHITESPACE_CASES", "PLANTS"]

#: Envelope cases whose Content-Type has whitespace around a parameter's `=`.
EQUALS_WHITESPACE_CASES = (
    "reject-media-type-parameter-space-before-equals",
    "reject-media-type-parameter-space-after-equals",
    "reject-media-type-parameter-spaces-around-equals",
    "reject-media-type-parameter-spaces-around-equals-quoted",
    "reject-media-type-parameter-tab-before-equals",
    "reject-media-type-parameter-spaces-around-equals-other-parameter",
)

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_RANGE = re.compile(rf"\s*({_TOKEN})/({_TOKEN})")
_QUALITY = re.compile(r";\s*q\s*=\s*([0-9.]+)", re.I)


def _boundaries(ctype: str, quotes: str) -> list[str]:
    """The values of the boundary parameters of `ctype` as a reader with `quotes` finds them,
    unquoted (a backslash dropped before the character it escapes)."""
    found: list[str] = []
    for piece in split_quoted(ctype, ";", quotes)[1:]:
        name, eq, value = piece.partition("=")
        if eq and name.strip(" \t").lower() == "boundary":
            value = value.strip(" \t")
            if quotes == "ignored":
                value = value.replace('"', "")
            elif value.startswith('"') and value.endswith('"') and len(value) > 1:
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            found.append(value)
    return found


def _quoted(value: str) -> str:
    """`value` as a quoted-string, its quotes and backslashes escaped (RFC 9110 §5.6.4)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _content_type_read_with(quotes: str) -> Callable[[RelayRequest], None]:
    """A server whose Content-Type parameters are read with `quotes`: where it finds other
    boundary parameters than RFC 9110's reading does, the reference server is shown the
    boundaries it found (none: no boundary; two: a repeated one)."""

    def edit(req: RelayRequest) -> None:
        ctype = req.get("Content-Type")
        if not is_batch(req) or ctype is None:
            return
        planted = _boundaries(ctype, quotes)
        if planted == _boundaries(ctype, "pair"):
            return
        params = "".join(f"; boundary={_quoted(b)}" for b in planted)
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
        req.headers.append(("Content-Type", f"multipart/mixed{params}"))

    return edit


def _empty_parameter(req: RelayRequest) -> bool:
    ctype = req.get("Content-Type") or ""
    return is_batch(req) and any(not p.strip(" \t") for p in split_quoted(ctype, ";", "pair")[1:])


def _malformed_parameter(piece: str) -> bool:
    """Whether a piece between semicolons breaks `parameter = parameter-name "=" parameter-value`
    (RFC 9110 §5.6.6): it is not empty (an empty parameter is valid) and has no `=`, or no name
    before it."""
    text = piece.strip(" \t")
    name, eq, _ = text.partition("=")
    return bool(text) and (not eq or not name.strip(" \t"))


def _malformed_parameters_skipped(req: RelayRequest) -> None:
    """A Content-Type reader that skips each parameter it cannot split into a name and a value,
    as lenient parsers do: the reference server is shown the Content-Type without them."""
    ctype = req.get("Content-Type")
    if not is_batch(req) or ctype is None:
        return
    pieces = split_quoted(ctype, ";", "pair")
    kept = [p for p in pieces[1:] if not _malformed_parameter(p)]
    if len(kept) == len(pieces) - 1:
        return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
    req.headers.append(("Content-Type", ";".join([pieces[0], *kept])))


def _equals_whitespace_trimmed(req: RelayRequest) -> None:
    """A Content-Type reader that trims whitespace around each parameter's `=` (the BWS some
    other grammars allow there): the reference server is shown the parameters without it."""
    ctype = req.get("Content-Type")
    if not is_batch(req) or ctype is None:
        return
    pieces = split_quoted(ctype, ";", "pair")
    trimmed = [pieces[0]]
    for piece in pieces[1:]:
        name, eq, value = piece.partition("=")
        trimmed.append(f"{name.rstrip(' \t')}={value.lstrip(' \t')}" if eq else piece)
    if trimmed != pieces:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
        req.headers.append(("Content-Type", ";".join(trimmed)))


def _backslash_boundary(req: RelayRequest) -> bool:
    try:
        _, params = parse_media_type(req.get("Content-Type") or "")
    except ValueError:
        return False
    return is_batch(req) and "\\" in params.get("boundary", "")


def _ranges(members: list[str]) -> list[str]:
    """Each member that opens with `type/subtype`, as that range with its q parameter."""
    out: list[str] = []
    for m in members:
        match = _RANGE.match(m)
        if match:
            q = _QUALITY.search(m[match.end() :])
            out.append(f"{match.group(1)}/{match.group(2)}" + (f";q={q.group(1)}" if q else ""))
    return out


def _accept_read_with(quotes: str) -> Callable[[RelayRequest], None]:
    """A server whose Accept members are split with `quotes`: where its members differ from
    RFC 9110's, the reference server is shown the ranges it found, parameters dropped."""

    def edit(req: RelayRequest) -> None:
        values = [v for n, v in req.headers if n.lower() == "accept"]
        if not is_batch(req) or not values:
            return
        planted = [m.strip(" \t") for v in values for m in split_quoted(v, ",", quotes)]
        if [m for m in planted if m] == list_members(values):
            return
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        req.headers.append(("Accept", ", ".join(_ranges(planted)) or "mb-plant/none"))

    return edit


def _unparsed_member_refuses_all(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that answers 406 when a member of Accept is no media range."""
    values = [v for n, v in req.headers if n.lower() == "accept"]
    if is_batch(req) and any(not _RANGE.match(m) for m in list_members(values)):
        problem(resp, 406, "MB-STATUS-9")


#: The batch forms the reference server offers, multipart/mixed first.
BATCH_FORMS = (
    "multipart/mixed",
    "application/xml",
    "application/vnd.mixbatch.multistatus+json",
)


def _glob_admits(kind: str, form: str) -> bool:
    """Whether the range `kind`, read as a glob over type and subtype, admits `form`."""
    r_type, _, r_sub = kind.partition("/")
    f_type, _, f_sub = form.partition("/")
    return fnmatchcase(f_type, r_type) and fnmatchcase(f_sub, r_sub)


def _prefix_admits(kind: str, form: str) -> bool:
    """Whether the range `kind`, read as a prefix of a form's type/subtype, admits `form`."""
    return "/" in kind and form.startswith(kind)


def _accept_ranges_read_as(admits: Callable[[str, str], bool]) -> Callable[[RelayRequest], None]:
    """A server that reads an Accept range which is neither `*/*`, `type/*` nor a form's own
    type/subtype with `admits`: the reference server is shown the form it admits instead."""

    def edit(req: RelayRequest) -> None:
        values = [v for n, v in req.headers if n.lower() == "accept"]
        if not is_batch(req) or not values:
            return
        members = list_members(values)
        out: list[str] = []
        for member in members:
            kind, sep, params = member.partition(";")
            kind = kind.strip().lower()
            wildcard = kind == "*/*" or (kind.endswith("/*") and "*" not in kind[:-2])
            if not wildcard and kind not in BATCH_FORMS:
                chosen = next((f for f in BATCH_FORMS if admits(kind, f)), None)
                if chosen is not None:
                    member = chosen + sep + params
            out.append(member)
        if out == members:
            return
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        req.headers.append(("Accept", ", ".join(out)))

    return edit


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "media-type-empty-parameter-refused",
        "MB-WIRE-4 a batch Content-Type with an empty parameter refused",
        (
            "accept-media-type-empty-parameter-before-boundary",
            "accept-media-type-empty-parameter-after-boundary",
            "accept-media-type-empty-parameters-with-ows",
        ),
        on_response=refuses(_empty_parameter, 400, "MB-WIRE-4"),
    ),
    P(
        "content-type-escaped-quote-ends-string",
        "MB-WIRE-4 a parameter's quoted-string ended at an escaped quote, a boundary inside it read",
        (
            "accept-boundary-after-quoted-pair-quote-parameter",
            "reject-boundary-inside-quoted-parameter-after-quoted-pair",
        ),
        on_request=_content_type_read_with("none"),
    ),
    P(
        "content-type-escaped-backslash-escapes-quote",
        "MB-WIRE-4 a quote after an escaped backslash read as escaped, the boundary after it missed",
        ("accept-boundary-after-quoted-pair-backslash-parameter",),
        on_request=_content_type_read_with("lookbehind"),
    ),
    P(
        "content-type-quotes-ignored",
        "MB-WIRE-4 Content-Type parameters split at every semicolon, a quoted boundary= read",
        ("reject-boundary-inside-quoted-parameter",),
        on_request=_content_type_read_with("ignored"),
    ),
    P(
        "boundary-backslash-accepted",
        "MB-WIRE-4 a boundary holding a backslash, from a quoted-pair, taken as valid",
        ("reject-boundary-quoted-pair-backslash",),
        on_response=accepts(_backslash_boundary),
    ),
    P(
        "content-type-malformed-parameter-skipped",
        "MB-WIRE-4 a batch Content-Type parameter without = or without a name skipped, not refused",
        (
            "reject-media-type-parameter-without-equals-after-boundary",
            "reject-media-type-parameter-without-equals-before-boundary",
            "reject-media-type-parameter-without-name",
            "reject-media-type-parameter-without-name-after-boundary",
        ),
        on_request=_malformed_parameters_skipped,
    ),
    P(
        "content-type-equals-whitespace-trimmed",
        "MB-WIRE-4 whitespace around a batch Content-Type parameter's = trimmed, not refused",
        EQUALS_WHITESPACE_CASES,
        on_request=_equals_whitespace_trimmed,
    ),
    P(
        "accept-quoted-commas-split",
        "MB-STATUS-9 Accept split at a comma inside a quoted parameter value",
        ("accept-quality-values",),
        on_request=_accept_read_with("ignored"),
    ),
    P(
        "accept-escaped-quote-ends-string",
        "MB-MULTI-1 Accept's quoted parameter value ended at an escaped quote",
        ("accept-quality-values",),
        on_request=_accept_read_with("none"),
    ),
    P(
        "accept-unparsed-member-refuses-all",
        "MB-MULTI-1 an Accept member that is no media range taken to refuse every form",
        ("accept-unparsed-member-beside-valid",),
        on_response=_unparsed_member_refuses_all,
    ),
    P(
        "accept-ranges-matched-as-globs",
        "MB-STATUS-9 Accept ranges matched as glob patterns, application/*+json admitting a form",
        ("accept-lookalike-ranges-admit-no-form",),
        on_request=_accept_ranges_read_as(_glob_admits),
    ),
    P(
        "accept-ranges-matched-as-prefixes",
        "MB-STATUS-9 an Accept range that begins a form's type/subtype taken to admit that form",
        ("accept-lookalike-ranges-admit-no-form",),
        on_request=_accept_ranges_read_as(_prefix_admits),
    ),
)
