"""Planted violations on a path a usual batch never takes: the batch over HTTP/1.0, a status
whose definition reads as fixing its content, a weight spelt as RFC 9110 allows but not as
usually written (spec 3.3.3, 5.4, 6.1, 7.3).

Each is a mistake a competent implementer makes:

    http10-answer-held                   the answer to a batch sent over HTTP/1.0 held whole
                                         and sent with a Content-Length, because the client
                                         cannot take the chunked coding (MB-PROC-4)
    http10-abort-without-close-delimiter the answer to an HTTP/1.0 batch that outlasts its time
                                         budget ends after the abort part without the close
                                         delimiter, the connection's close taken to end it
                                         (MB-STATUS-6)
    reset-content-part-emptied           a 205 sub-response's part written without its
                                         content, RFC 9110 §15.3.6 read as "205 has no
                                         content" (MB-RESP-4)
    accept-weight-by-literal-q           an Accept weight found only as the literal `;q=`, so
                                         `multipart/mixed; q=0.1` and `Q=0.1` keep q=1
                                         (MB-MULTI-1)
    accept-weight-read-as-a-number       an Accept weight that is no qvalue (`q=1e0`, `q=2`,
                                         `q=.5`, non-ASCII digits) read by a general-purpose
                                         number reader and held to 0..1 (MB-MULTI-1)
    accept-weight-unread-as-zero         an Accept weight that is no qvalue read as 0, so the
                                         range refuses its form instead of being left out
                                         (MB-MULTI-1)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    map_parts,
    set_field,
    split_quoted,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: An abort part's field line.
_ABORTED = re.compile(rb"(?im)^batch-outcome:[ \t]*aborted[ \t]*\r?$")


def _http10_batch(req: RelayRequest) -> bool:
    return is_batch(req) and req.version == "1.0"


def _abort_unclosed(req: RelayRequest, resp: RelayResponse) -> None:
    """An HTTP/1.0 answer that holds an abort part loses its close delimiter (and epilogue)."""
    b = boundary_of(resp)
    if not b or not _http10_batch(req) or not _ABORTED.search(resp.body):
        return
    close = b"\r\n--" + b.encode("latin-1") + b"--"
    end = resp.body.rfind(close)
    if end >= 0:
        resp.body = resp.body[:end]


def _reset_content_emptied(parts: list[Part]) -> list[Part]:
    """A part answered 205 keeps its fields but not its content."""
    return [
        (set_field(f, "Content-Length", "0"), b"")
        if (field_of(f, "Http-Status-Code") or "").strip() == "205"
        else (f, b)
        for f, b in parts
    ]


def _weight_by_literal_q(req: RelayRequest) -> None:
    """Each Accept member's weight is read only where the member holds `;q=` as written; a
    weight spelt otherwise (OWS around the semicolon, `Q=`) is dropped, so the range keeps
    q=1. The members go on as one field line."""
    if not is_batch(req):
        return
    values = [v for n, v in req.headers if n.lower() == "accept"]
    if not values:
        return
    members: list[str] = []
    for value in values:
        for member in split_quoted(value, ",", "pair"):
            if not member.strip():
                continue
            if ";q=" not in member:
                params = split_quoted(member, ";", "pair")
                kept = [p for p in params[1:] if p.split("=", 1)[0].strip().lower() != "q"]
                member = ";".join([params[0], *kept])
            members.append(member.strip())
    rest = [(n, v) for n, v in req.headers if n.lower() != "accept"]
    req.headers = [*rest, ("Accept", ", ".join(members))]


#: RFC 9110 §12.4.2's qvalue.
_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")


def _reweigh(req: RelayRequest, weigh: Callable[[str], str]) -> None:
    """Each parameter after an Accept member's range, rewritten by `weigh`."""
    req.headers = [
        (
            n,
            ", ".join(
                ";".join([params[0], *map(weigh, params[1:])])
                for params in (split_quoted(m, ";", "pair") for m in split_quoted(v, ",", "pair"))
            ),
        )
        if n.lower() == "accept"
        else (n, v)
        for n, v in req.headers
    ]


def _weight_read_as_a_number(req: RelayRequest) -> None:
    """Each Accept member's weight that is no qvalue but that `float` reads (its octets read
    as UTF-8) is written as the qvalue nearest that number, from 0 to 1."""
    if not is_batch(req):
        return

    def weigh(param: str) -> str:
        name, eq, value = param.partition("=")
        text = value.strip().encode("latin-1").decode("utf-8", "replace")
        if not eq or name.strip().lower() != "q" or _QVALUE.fullmatch(text):
            return param
        try:
            number = float(text)
        except ValueError:
            return param
        return f"{name}={min(1.0, max(0.0, number)):.3f}" if number == number else param

    _reweigh(req, weigh)


def _weight_unread_as_zero(req: RelayRequest) -> None:
    """Each Accept member's weight that is no qvalue is written `q=0`, as a reader does that
    falls back to 0 where its number parse fails."""
    if not is_batch(req):
        return

    def weigh(param: str) -> str:
        name, eq, value = param.partition("=")
        if not eq or name.strip().lower() != "q" or _QVALUE.fullmatch(value.strip()):
            return param
        return f"{name}=0"

    _reweigh(req, weigh)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "http10-answer-held",
        "MB-PROC-4 the answer to a batch sent over HTTP/1.0 held whole for a Content-Length",
        ("parts-streamed-over-http10",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(hold=_http10_batch),
    ),
    Mutation(
        "http10-abort-without-close-delimiter",
        "MB-STATUS-6 the abort part of an HTTP/1.0 batch's answer not followed by the close "
        "delimiter",
        ("batch-abort-over-http10",),
        on_response=_abort_unclosed,
    ),
    Mutation(
        "reset-content-part-emptied",
        "MB-RESP-4 a 205 sub-response's content dropped from its part",
        ("statuses-carried-as-alone",),
        on_response=map_parts(_reset_content_emptied),
    ),
    Mutation(
        "accept-weight-by-literal-q",
        "MB-MULTI-1 an Accept weight read only where spelt `;q=`",
        ("accept-weight-spellings",),
        on_request=_weight_by_literal_q,
    ),
    Mutation(
        "accept-weight-read-as-a-number",
        "MB-MULTI-1 an Accept weight that is no qvalue read as the number it spells",
        ("accept-weights-that-are-no-qvalue",),
        on_request=_weight_read_as_a_number,
    ),
    Mutation(
        "accept-weight-unread-as-zero",
        "MB-MULTI-1 an Accept weight that is no qvalue read as 0",
        ("accept-weights-that-are-no-qvalue",),
        on_request=_weight_unread_as_zero,
    ),
)
