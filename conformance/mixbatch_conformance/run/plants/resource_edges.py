"""Planted violations at the edges of the test resources' published ranges (spec 14.4).

    random-declared-largest-refused   the random resource's bound tested with `<` for `<=`:
                                      the largest n the target declares (random_max_n) is
                                      refused 400, alone
    random-part-at-declared-largest-one-short
                                      a part answering the random resource at the declared
                                      largest n carries one octet fewer than the resource
                                      answered, its Content-Length matching what it carries
    random-serves-one-past-declared-largest
                                      the random resource serves n one over the declared
                                      largest with 200 and n octets
    status-resource-refuses-599       the status resource's range read as 200 to 598: 599 is
                                      refused 400, alone
    echo-length-one-short-over-1000   the echo describes a body over 1000 octets without its
                                      last octet, alone and in a part

MB-TEST-5 has the random resource answer "every *n* up to the largest it accepts" with
exactly *n* octets and "any larger *n* with a 4xx status", and a target that declares that
largest n holds the resource to it; MB-TEST-6 has the status resource answer "a code from 200
to 599 with that status"; MB-TEST-2 has the echo describe the content it received. The
reference server's random resource is at /random/{n}, its status resource at /status/{code}
and its echo at /echo.
"""

from __future__ import annotations

import base64
import json

from mixbatch_conformance.core.target import REFERENCE_RANDOM_MAX_N
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import Part, echo_doc, map_parts, problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's random resource at the largest n its target declares, and one over.
_LARGEST = f"/random/{REFERENCE_RANDOM_MAX_N}"
_ONE_OVER = f"/random/{REFERENCE_RANDOM_MAX_N + 1}"
#: Bodies longer than this are described one octet short.
_SHORT_FROM = 1000


def _largest_refused(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "GET" and req.target == _LARGEST:
        problem(resp, 400, "MB-TEST-5")


def _one_over_served(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "GET" and req.target == _ONE_OVER:
        resp.status = 200
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
        resp.headers.append(("Content-Type", "application/octet-stream"))
        resp.body = bytes(REFERENCE_RANDOM_MAX_N + 1)


def _largest_part_short(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for fields, body in parts:
        if len(body) == REFERENCE_RANDOM_MAX_N:
            body = body[:-1]
            fields = [
                (n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields
            ]
        out.append((fields, body))
    return out


def _status_599_refused(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "GET" and req.target == "/status/599":
        problem(resp, 400, "MB-TEST-6")


def _short_description(body: bytes) -> bytes | None:
    """The echo description `body` with its content one octet short, or None to leave it."""
    doc = echo_doc(body)
    if doc is None:
        return None
    if isinstance(doc.get("body"), str):
        content = str(doc.pop("body")).encode()
    elif isinstance(doc.get("body_base64"), str):
        content = base64.b64decode(str(doc.pop("body_base64")))
    else:
        return None
    if len(content) > _SHORT_FROM:
        content = content[:-1]
    try:
        doc["body"] = content.decode("utf-8")
    except UnicodeDecodeError:
        doc["body_base64"] = base64.b64encode(content).decode("ascii")
    return json.dumps(doc).encode()


def _echo_short_in_parts(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for fields, body in parts:
        described = _short_description(body)
        if described is not None:
            body = described
            fields = [
                (n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields
            ]
        out.append((fields, body))
    return out


_echo_parts = map_parts(_echo_short_in_parts)


def _echo_short(req: RelayRequest, resp: RelayResponse) -> None:
    if req.target.startswith("/echo") and resp.status == 200:
        described = _short_description(resp.body)
        if described is not None:
            resp.body = described
    _echo_parts(req, resp)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "random-declared-largest-refused",
        "MB-TEST-5 the random resource refusing the largest n its target declares",
        ("random-sizes-at-declared-largest",),
        on_response=_largest_refused,
    ),
    P(
        "random-part-at-declared-largest-one-short",
        "MB-RESP-4 a part answering the random resource at the declared largest n one octet short",
        ("random-sizes-at-declared-largest",),
        on_response=map_parts(_largest_part_short),
    ),
    P(
        "random-serves-one-past-declared-largest",
        "MB-TEST-5 the random resource serving n one over the largest its target declares",
        ("random-sizes-at-declared-largest",),
        on_response=_one_over_served,
    ),
    P(
        "status-resource-refuses-599",
        "MB-TEST-6 the status resource refusing 599, the top of its range, with 400",
        ("test-resource-status",),
        on_response=_status_599_refused,
    ),
    P(
        "echo-length-one-short-over-1000",
        "MB-TEST-2 the echo describing a body over 1000 octets without its last octet, alone "
        "and in a part",
        ("bodies-across-sizes",),
        on_response=_echo_short,
    ),
)
