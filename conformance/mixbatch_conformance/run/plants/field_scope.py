"""Planted violations of which fields belong to the batch and which to a part (spec 3.2.3,
7.4, 8.2): a server that reads a field with the wrong grammar or at the wrong level.

- the Prefer field split into preferences at semicolons too, so another preference's
  parameter `batch-on-error=stop` runs the batch under stop (MB-PROC-5), and split at commas
  inside quoted-strings, so a quoted value holding it does (MB-PROC-5), or a quoted
  `batch-on-error=continue` in a parameter undoes the stop before it (MB-PROC-6);
- of several batch-on-error instances the last one whose value it knows followed instead of
  the first, so stop then continue runs under continue and an unrecognised value then stop
  under stop (MB-PROC-13), or a first instance without a value, or with an empty one, read
  past as no batch-on-error at all, so the next instance decides (MB-PROC-13);
- a quoted-string in Prefer ended at an escaped quote `\\"`, so the text after it reads as a
  preference (MB-PROC-5) or a stop after the string is swallowed (MB-PROC-6), or a quote
  after an escaped backslash `\\\\` taken for an escaped one, swallowing the stop (MB-PROC-6);
- a field the client writes on every request (User-Agent, Referer, Origin) applied to each
  part without one of its own, like Authorization and Cookie (MB-SUB-6);
- a batch rule applied to a part's own fields: a part carrying a content coding refused 415,
  a part of multipart type refused 400 as a malformed nested batch, a part's Batch-Mode made
  the batch's (MB-PART-8);
- a batch refused 406 whole because a part asks for a charset no resource has, as though the
  part's negotiation fields were the batch request's (MB-STATUS-1), and a batch holding a
  collection retrieval part refused as a GET with content (MB-TEST-8).

Each edits what the reference server receives, or answers for it, on batch requests only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    inherited,
    is_batch,
    parts_of,
    problem,
    split_quoted,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Fields a client writes on every request, each planted as inherited on its own.
CLIENT_FIELDS = ("User-Agent", "Referer", "Origin")


def _stop_member(member: str, *, pairs_read: bool = True) -> bool:
    """Whether `member` is batch-on-error=stop, a quoted value's quoted-pairs read as RFC 9110
    §5.6.4 reads them or, without `pairs_read`, kept with their backslashes."""
    name, _, value = member.partition("=")
    word = value.strip(" \t")
    if len(word) > 1 and word[0] == word[-1] == '"':
        word = word[1:-1]
        word = re.sub(r"\\(.)", r"\1", word) if pairs_read else word
    return name.strip(" \t").lower() == "batch-on-error" and word.lower() == "stop"


def _prefer_split(pattern: str) -> Callable[[RelayRequest], None]:
    """Prefer fields split at `pattern` whatever quoting says; a piece reading as
    batch-on-error=stop asks the reference server for stop."""
    rx = re.compile(pattern)

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        values = [v for n, v in req.headers if n.lower() == "prefer"]
        if any(_stop_member(piece) for v in values for piece in rx.split(v)):
            req.headers.append(("Prefer", "batch-on-error=stop"))

    return edit


def _quoted_member_overrides(req: RelayRequest) -> None:
    """Prefer split at every comma, quoted or not, the last batch-on-error piece winning: a
    parameter's quoted `batch-on-error=continue` after stop undoes it."""
    values = [v for n, v in req.headers if n.lower() == "prefer"]
    pieces = [p.split(";")[0] for v in values for p in v.split(",")]
    named = [p for p in pieces if p.partition("=")[0].strip(" \t").lower() == "batch-on-error"]
    if is_batch(req) and len(named) > 1 and not _stop_member(named[-1]):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]


def _asks_stop(values: list[str], escapes: str, *, pairs_read: bool = True) -> bool:
    """Whether a preference (not a parameter) of the Prefer lines is batch-on-error=stop, the
    first batch-on-error winning (RFC 7240 §2), with quoted-strings read as `escapes` says."""
    for v in values:
        for pref in split_quoted(v, ",", escapes):
            head = split_quoted(pref, ";", escapes)[0]
            if head.partition("=")[0].strip(" \t").lower() == "batch-on-error":
                return _stop_member(head, pairs_read=pairs_read)
    return False


def _policies(values: list[str]) -> list[str]:
    """The values of the batch-on-error preferences (not parameters) of the Prefer lines, in
    order, unquoted as RFC 9110 §5.6.4 reads a quoted-string and lower-cased."""
    out = []
    for v in values:
        for pref in split_quoted(v, ",", "pair"):
            name, _, value = split_quoted(pref, ";", "pair")[0].partition("=")
            if name.strip(" \t").lower() != "batch-on-error":
                continue
            word = value.strip(" \t")
            if len(word) > 1 and word[0] == word[-1] == '"':
                word = re.sub(r"\\(.)", r"\1", word[1:-1])
            out.append(word.lower())
    return out


def _last_instance_wins(req: RelayRequest) -> None:
    """A reader that walks every batch-on-error of the Prefer lines and keeps the last value it
    knows, instead of the first instance alone (RFC 7240 §2): where that differs from the first
    instance's policy, the reference server is asked for the last one."""
    values = [v for n, v in req.headers if n.lower() == "prefer"]
    policies = _policies(values)
    if not is_batch(req) or len(policies) < 2:
        return
    known = ("stop", "continue")
    right = policies[0] if policies[0] in known else None
    planted = next((p for p in reversed(policies) if p in known), None)
    if planted != right:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]
        if planted is not None:
            req.headers.append(("Prefer", f"batch-on-error={planted}"))


def _instances(values: list[str]) -> list[tuple[bool, str, str]]:
    """The batch-on-error preferences (not parameters) of the Prefer lines, in order: whether
    each has an `=`, its value as written and its value unquoted as RFC 9110 §5.6.4 reads a
    quoted-string, lower-cased."""
    out = []
    for v in values:
        for pref in split_quoted(v, ",", "pair"):
            name, eq, value = split_quoted(pref, ";", "pair")[0].partition("=")
            if name.strip(" \t").lower() != "batch-on-error":
                continue
            word = value.strip(" \t")
            read = word
            if len(word) > 1 and word[0] == word[-1] == '"':
                read = re.sub(r"\\(.)", r"\1", word[1:-1])
            out.append((bool(eq), word, read.lower()))
    return out


def _instance_read_past(skips: Callable[[bool, str], bool]) -> Callable[[RelayRequest], None]:
    """A reader that takes a batch-on-error instance for which `skips(has "=", value as
    written)` holds for no batch-on-error at all and reads on to the next: where the instance
    it settles on asks for another policy than the first instance (RFC 7240 §2), the reference
    server is asked for that policy."""

    def edit(req: RelayRequest) -> None:
        found = _instances([v for n, v in req.headers if n.lower() == "prefer"])
        if not is_batch(req) or not found:
            return
        known = ("stop", "continue")
        right = found[0][2] if found[0][2] in known else None
        settled = next((read for eq, word, read in found if not skips(eq, word)), None)
        planted = settled if settled in known else None
        if planted != right:
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]
            if planted is not None:
                req.headers.append(("Prefer", f"batch-on-error={planted}"))

    return edit


def _valueless(eq: bool, word: str) -> bool:
    return not eq


def _empty_valued(eq: bool, word: str) -> bool:
    return eq and word in ("", '""')


def _value_pairs_kept(req: RelayRequest) -> None:
    """A reader that drops a quoted value's quotes and keeps its quoted-pairs: where RFC 9110
    reads stop (`"st\\op"`) and it does not, the reference server hears no preference."""
    values = [v for n, v in req.headers if n.lower() == "prefer"]
    right = _asks_stop(values, "pair")
    if is_batch(req) and right and not _asks_stop(values, "pair", pairs_read=False):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]


def _prefer_read_with(escapes: str, *, finds: bool) -> Callable[[RelayRequest], None]:
    """A Prefer reader whose quoted-strings end as `escapes` says. With `finds`, where it finds
    stop and RFC 9110's reading does not, the reference server is asked for stop; without,
    where RFC 9110's reading finds stop and it does not, the reference server hears no
    preference."""

    def edit(req: RelayRequest) -> None:
        values = [v for n, v in req.headers if n.lower() == "prefer"]
        if not is_batch(req) or not values:
            return
        planted, right = _asks_stop(values, escapes), _asks_stop(values, "pair")
        if finds and planted and not right:
            req.headers.append(("Prefer", "batch-on-error=stop"))
        elif not finds and right and not planted:
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]

    return edit


def _part_field_refused(
    name: str, matches: re.Pattern[str], status: int, requirement: str
) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if any(matches.search(field_of(f, name) or "") for f, _ in parts or []):
            problem(resp, status, requirement)

    return edit


def _retrieval_part_read_with_content(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that takes the empty line ending a GET part's header section for content and
    answers a collection retrieval sent as a part 400, as a GET with content (MB-METHOD-3)."""
    b, answered = boundary_of(req), boundary_of(resp)
    asked = parts_of(req.body, b) if b and is_batch(req) else None
    parts = parts_of(resp.body, answered) if answered and asked else None
    if not asked or parts is None or answered is None or len(parts) != len(asked):
        return
    out = []
    for (fields, _), (got, body) in zip(asked, parts, strict=True):
        get = (field_of(fields, "Http-Method") or "").strip().upper() == "GET"
        if get and "multipart" in (field_of(fields, "Accept") or "").lower():
            status = {"http-status-code": "400", "content-length": "0"}
            got = [(n, status.get(n.lower(), v)) for n, v in got]
            got = [(n, v) for n, v in got if n.lower() not in ("etag", "vary", "last-modified")]
            body = b""
        out.append((got, body))
    resp.body = write_parts(out, answered)


def _part_mode_as_batch(req: RelayRequest) -> None:
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) and req.get("Batch-Mode") is None else None
    modes = [m for f, _ in parts or [] if (m := field_of(f, "Batch-Mode")) is not None]
    if modes:
        req.headers.append(("Batch-Mode", modes[0]))


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "prefer-parameters-read-as-preferences",
        "MB-PROC-5 Prefer split at semicolons, a parameter read as batch-on-error",
        ("continue-whatever-other-preferences",),
        on_request=_prefer_split(r"[,;]"),
    ),
    P(
        "prefer-quoted-commas-split",
        "MB-PROC-5 Prefer split at commas inside a quoted value",
        ("continue-whatever-other-preferences",),
        on_request=_prefer_split(r","),
    ),
    P(
        "prefer-quoted-member-overrides-stop",
        "MB-PROC-6 a batch-on-error inside a quoted parameter overrides the stop before it",
        ("prefer-several-preferences",),
        on_request=_quoted_member_overrides,
    ),
    P(
        "prefer-escaped-quote-ends-string",
        "MB-PROC-5 Prefer's quoted-string ended at an escaped quote, its text read as a preference",
        ("continue-whatever-other-preferences",),
        on_request=_prefer_read_with("none", finds=True),
    ),
    P(
        "prefer-escaped-quote-swallows-stop",
        "MB-PROC-6 Prefer's quoted-string ended at an escaped quote, the stop after it unread",
        ("prefer-several-preferences",),
        on_request=_prefer_read_with("none", finds=False),
    ),
    P(
        "prefer-escaped-backslash-escapes-quote",
        "MB-PROC-6 a quote after an escaped backslash read as escaped, the stop after it unread",
        ("prefer-several-preferences",),
        on_request=_prefer_read_with("lookbehind", finds=False),
    ),
    P(
        "prefer-last-instance-wins",
        "MB-PROC-13 of several batch-on-error instances the last one it knows followed, not the first",
        ("prefer-repeated-preference-first-counts",),
        on_request=_last_instance_wins,
    ),
    P(
        "prefer-valueless-instance-read-past",
        "MB-PROC-13 a first batch-on-error without a value read past as no batch-on-error, a later instance followed",
        ("prefer-repeated-preference-first-counts",),
        on_request=_instance_read_past(_valueless),
    ),
    P(
        "prefer-empty-value-instance-read-past",
        'MB-PROC-13 a first batch-on-error with an empty value (= alone or "") read past, a later instance followed',
        ("prefer-repeated-preference-first-counts",),
        on_request=_instance_read_past(_empty_valued),
    ),
    P(
        "prefer-value-quoted-pairs-kept",
        'MB-PROC-13 a quoted batch-on-error value\'s quoted-pairs kept, so "st\\op" is not stop',
        ("prefer-several-preferences",),
        on_request=_value_pairs_kept,
    ),
    *(
        P(
            f"{name.lower()}-inherited",
            f"MB-SUB-6 the batch request's {name} applied to parts",
            ("client-fields-not-inherited", "batch-answered-whatever-client-fields"),
            on_request=inherited(name),
        )
        for name in CLIENT_FIELDS
    ),
    P(
        "part-content-coding-refused",
        "MB-PART-8 a part's Content-Encoding refused as the batch's would be",
        ("part-batch-rule-fields-as-alone",),
        on_response=_part_field_refused(
            "Content-Encoding", re.compile(r"^(?!\s*identity\s*$).+", re.I), 415, "MB-INTER-6"
        ),
    ),
    P(
        "part-multipart-read-as-batch",
        "MB-PART-8 a part of multipart type read as a nested batch and refused",
        ("part-batch-rule-fields-as-alone",),
        on_response=_part_field_refused(
            "Content-Type", re.compile(r"^\s*multipart/", re.I), 400, "MB-WIRE-3"
        ),
    ),
    P(
        "part-negotiation-refused-whole",
        "MB-STATUS-1 a batch whose part asks for a charset no resource has refused 406 whole",
        ("test-resources-ignore-negotiation",),
        on_response=_part_field_refused(
            "Accept-Charset", re.compile(r"x-none", re.I), 406, "MB-MULTI-1"
        ),
    ),
    P(
        "retrieval-part-read-as-get-with-content",
        "MB-TEST-8 a collection retrieval sent as a part refused as a GET with content",
        ("collection-retrieval-in-part",),
        on_response=_retrieval_part_read_with_content,
    ),
    P(
        "part-batch-mode-applied",
        "MB-PART-8 a part's Batch-Mode taken as the batch's",
        ("part-batch-rule-fields-as-alone",),
        on_request=_part_mode_as_batch,
    ),
)
