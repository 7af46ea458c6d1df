"""Envelope checks: the deterministic cases in cases/envelope.json plus generated ones.

Theory of operation: each case in the data file is a byte-exact request body (with target
tokens filled in) and the set of outcomes the spec allows. This module validates the file
against cases/cases.schema.json at import, turns each case into a Check whose id is the
case id, and adds the cases that are generated from a table rather than written out: one
per forbidden request-part field (MB-PART-10), and the limit cases that need the target's
published limits (MB-STATUS-3, MB-LIMIT-1), which are N/A when no limits are published.
"""

from __future__ import annotations

import base64
import json
import re
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema

from mixbatch_conformance.checks._shared.accept_post import expect_accept_post_exact
from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import (
    expect_located,
    expect_processed,
    expect_rejected,
)
from mixbatch_conformance.core.registry import BOTH_ROLES, Check, State, register
from mixbatch_conformance.core.validator import FORBIDDEN_REQUEST_FIELDS, Envelope, read_multipart
from mixbatch_conformance.transport.http import Response
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__ = ["CASES_FILE", "load_cases", "render_body", "render_segments"]

CASES_DIR = Path(__file__).parent / "cases"
CASES_FILE = CASES_DIR / "envelope.json"
DEFAULT_BOUNDARY = "mb-case-7c1f0e93d4a2b685"
#: Put before a located fault to learn whether the server knows where faults are: one valid
#: part, so the same fault sits one part later and that many octets further on.
PROBE_PART = "--{b}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n"
#: How far from the target's port the other-port case's port is (MB-SUB-2).
OTHER_PORT_STEP = 1000
TOKENS = re.compile(
    r"\{(b|ok|nf|batch|authority|host|host_upper|host_alias|host_pct|port|other_port"
    r"|port_wrapped16|port_wrapped32|other_scheme|scheme|scheme_upper|scheme_title|echo"
    r"|len[0-9]+)\}"
)


def load_cases(path: Path = CASES_FILE) -> list[dict[str, Any]]:
    """Read and schema-validate a cases file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads((CASES_DIR / "cases.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    cases: list[dict[str, Any]] = data["cases"]
    return cases


def _fill(text: str, values: dict[str, str], lengths: dict[str, int]) -> str:
    def sub(m: re.Match[str]) -> str:
        key = m.group(1)
        if key.startswith("len"):
            return str(lengths[key]) if key in lengths else m.group(0)
        return values[key]

    return TOKENS.sub(sub, text)


def render_segments(case: dict[str, Any], values: dict[str, str]) -> list[bytes]:
    """The case's body segments as octets, target tokens filled in.

    `{lenN}` is the octet length of body segment N after filling, so a case can state an
    exact Content-Length for a segment that embeds the boundary.
    """
    segments: list[bytes] = []
    for seg in case["body"]:
        if isinstance(seg, str):
            segments.append(_fill(seg, values, {}).encode("latin-1"))
        elif "base64" in seg:
            segments.append(base64.b64decode(seg["base64"]))
        else:
            segments.append(_fill(seg["repeat"], values, {}).encode("latin-1") * seg["times"])
    lengths = {f"len{i}": len(s) for i, s in enumerate(segments)}
    return [
        _fill(seg, values, lengths).encode("latin-1")
        if isinstance(seg, str) and "{len" in seg
        else raw
        for seg, raw in zip(case["body"], segments, strict=True)
    ]


def render_body(case: dict[str, Any], values: dict[str, str]) -> bytes:
    """The case's body octets with target tokens filled in (see `render_segments`)."""
    return b"".join(render_segments(case, values))


#: Loopback host names and the address each resolves to on a usual host: the same machine, but
#: MB-SUB-2 says "a host name is not compared with the address it resolves to".
HOST_ALIASES = {"127.0.0.1": "localhost", "localhost": "127.0.0.1", "[::1]": "localhost"}


def _host_pct(host: str) -> str:
    """`host` with its first letter or digit percent-encoded: the same octets once decoded,
    but another spelling, which MB-SUB-2 does not normalise."""
    for i, c in enumerate(host):
        if c.isalnum():
            return f"{host[:i]}%{ord(c):02X}{host[i + 1 :]}"
    return host


def _other_port(port: int) -> int:
    return port + OTHER_PORT_STEP if port + OTHER_PORT_STEP <= 65535 else port - OTHER_PORT_STEP


def _values(ctx: Context, judge: Judge, case: dict[str, Any]) -> dict[str, str]:
    for need in case.get("needs", []):
        ctx.resource(judge, need)
    boundary = case.get("boundary", DEFAULT_BOUNDARY)
    echo = ctx.target.resource("echo") or "/echo"
    alias = HOST_ALIASES.get(ctx.host.lower())
    if alias is None and "{host_alias}" in json.dumps(case):
        judge.not_applicable(f"the host {ctx.host} is none of {', '.join(HOST_ALIASES)}")
    return {
        "b": boundary,
        "ok": ctx.path(ctx.resource(judge, "ok")),
        "nf": ctx.path(ctx.resource(judge, "not_found")),
        "batch": ctx.batch_path,
        "authority": ctx.authority,
        "host": ctx.host,
        # MB-SUB-2: "Scheme and host compare case-insensitively".
        "host_upper": ctx.host.upper(),
        "scheme_upper": ctx.scheme.upper(),
        "scheme_title": ctx.scheme.title(),
        # The same machine by another name: another host (MB-SUB-2).
        "host_alias": alias or "",
        # The port as a number even when the authority leaves the default one out.
        "port": str(ctx.port),
        "scheme": ctx.scheme,
        # The batch's host with another port: another authority, so another origin (MB-SUB-2),
        # however many ports the server listens on. A port far off, not the next one, so that it
        # is not the origin's own behind a front end that took the port next to it.
        "other_port": f"{ctx.host}:{_other_port(ctx.port)}",
        # The batch's host with one character percent-encoded: MB-SUB-2 folds the case of a
        # host and nothing else ("Nothing else is normalised"), so it is another host.
        "host_pct": _host_pct(ctx.host),
        # The port plus 2^16 and plus 2^32: the port's number read into 16 or 32 bits, but
        # another number ("A port compares as a decimal number").
        "port_wrapped16": str(ctx.port + (1 << 16)),
        "port_wrapped32": str(ctx.port + (1 << 32)),
        # A scheme that is not the target's own: https for a target reached over http, and
        # http for one reached over https (MB-SUB-2: another scheme is another origin).
        "other_scheme": "http" if ctx.scheme == "https" else "https",
        "echo": ctx.path(echo),
    }


def run_case(case: dict[str, Any], ctx: Context, judge: Judge) -> None:
    values = _values(ctx, judge, case)
    segments = render_segments(case, values)
    body = b"".join(segments)
    # A content_type of null sends no Content-Type field at all.
    spelled = case.get("content_type", "multipart/mixed; boundary={b}")
    ctype = [] if spelled is None else [("Content-Type", _fill(spelled, values, {}))]
    headers = [*ctype, *[(n, v) for n, v in case.get("headers", [])]]
    # An unframed case sends no Content-Length: its content has length zero (RFC 9112 §6.3).
    sent = None if case.get("unframed") and not body else body
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, headers, sent))
    expect = case["expect"]
    requirement = case["requirements"][0]
    if "parts" in expect:
        judge.require("top-level status", resp.status, set(expect["status"]), requirement)
        if "content_ids" in expect:
            # The case names its parts' Content-Ids: its preamble or epilogue holds
            # Content-Id lines of parts that are no parts.
            expected = [_fill(c, values, {}) for c in expect["content_ids"]]
        else:
            request_cids = re.findall(rb"(?im)^content-id:[ \t]*([^\r\n]*?)[ \t]*\r?$", body)
            expected = [c.decode("latin-1") for c in request_cids]
        if len(expected) != expect["parts"]:
            raise AssertionError(f"case {case['id']}: {len(expected)} Content-Id lines")
        env = expect_processed(
            ctx,
            judge,
            resp,
            expected,
            [set(s) for s in expect.get("part_status", [])],
            # A part's status is the case's own rule unless the case names the requirement
            # that fixes it (the echo's 200 is MB-TEST-2's, whatever the part carries).
            expect.get("part_status_requirement", requirement),
            # A case that names its parts' Content-Ids holds the look of further parts in its
            # preamble or epilogue: how many parts there are is the case's own rule (MB-WIRE-9:
            # "A receiver MUST ignore the preamble ... and the epilogue").
            count_requirement=requirement if "content_ids" in expect else "MB-RESP-1",
        )
        if expect.get("echo_body"):
            _expect_echoed_bodies(ctx, judge, body, case.get("boundary", DEFAULT_BOUNDARY), env)
    else:
        expect_rejected(
            judge,
            resp,
            expect["status"],
            requirement,
            problem=expect.get("problem", False),
            # MB-WIRE-2's Accept-Post goes with its 415, not with another status a case allows.
            accept_post=expect.get("accept_post", False) and resp.status == 415,
        )
        if expect.get("accept_post") and resp.status == 415:
            # MB-WIRE-2: "an `Accept-Post: multipart/mixed` field": that type and no other.
            expect_accept_post_exact(judge, resp, "MB-WIRE-2")
        if "at" in expect and resp.status in expect["status"]:
            _expect_at(ctx, judge, expect["at"], segments, values, headers, resp)


def _expect_at(
    ctx: Context,
    judge: Judge,
    at: dict[str, Any],
    segments: list[bytes],
    values: dict[str, str],
    headers: list[tuple[str, str]],
    resp: Response,
) -> None:
    """The problem places the fault where spec 5.3's convention does, 0 included.

    A member left out is judged by the same fault one valid part later: a server that names
    it there knows it, so it "knows them" here too (MB-STATUS-4), and an offset of 0 or a first
    part is no reason to leave it out."""
    body = b"".join(segments)
    if at.get("start_or_end"):
        _expect_start_or_end(judge, at, len(body), resp)
        return
    offset = len(body) if at.get("end") else len(b"".join(segments[: at["segment"]]))
    offset += at.get("plus", 0)
    named = (problem_of(resp) or {}).get("requirement")
    if "named" in at and named != at["named"]:
        # The content holds more than one fault a server may report (spec 3.1.2 lets a server
        # name MB-PART-11 or MB-WIRE-13 for one, MB-WIRE-19 and MB-WIRE-13 both fit a close
        # delimiter cut after one hyphen); spec 5.3 places each fault by its own convention, so
        # the place is judged only for the fault the case is about.
        judge.note(f"the problem names {named!r}, not {at['named']}: its place is not judged")
        return
    missing = expect_located(judge, resp, at.get("part_index"), offset)
    if not missing:
        return
    prefix = _fill(PROBE_PART, values, {}).encode("latin-1")
    probe = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, headers, prefix + body))
    doc = problem_of(probe)
    expected = {"part_index": at.get("part_index"), "byte_offset": offset}
    for member in missing:
        given = doc.get(member) if doc is not None else None
        # MB-STATUS-4: "`part_index` (from 0) and `byte_offset` ... members when the server
        # knows them".
        judge.expect_true(
            f"problem {member}",
            given is None,
            f"left out; given as {given!r} for the same fault one part later",
            f"{member} {expected[member]}, since the server knows it",
            "MB-STATUS-4",
        )


def _expect_start_or_end(judge: Judge, at: dict[str, Any], length: int, resp: Response) -> None:
    """Content with no delimiter line at all: spec 5.3 places it in `part_index` 0 and at
    `byte_offset` "the length of the content, where the reader met its end, or 0, where it
    looked for the first delimiter"; each member is judged when present."""
    doc = problem_of(resp) or {}
    index = doc.get("part_index")
    if index is not None:
        judge.expect_true(
            "problem part_index",
            is_json_integer(index) and index == at["part_index"],
            repr(index),
            f"the integer {at['part_index']}",
            "MB-STATUS-4",
        )
    offset = doc.get("byte_offset")
    if offset is not None:
        judge.expect_true(
            "problem byte_offset",
            is_json_integer(offset) and offset in {0, length},
            repr(offset),
            f"the integer {length} (the content's length) or 0",
            "MB-STATUS-4",
        )


def _expect_echoed_bodies(
    ctx: Context, judge: Judge, sent: bytes, boundary: str, env: Envelope
) -> None:
    """Each part sent to the echo resource reached it with exactly its part body's octets.

    MB-PART-8: "the part body as the sub-request's content"; the echo describes the content it
    received (MB-TEST-2), so a server that alters a body (CRLFs, hyphens, a boundary prefix)
    shows it here even when the status and the part count are right."""
    echo = ctx.path(ctx.target.resource("echo") or "/echo")
    request = read_multipart(sent, boundary)
    for i, (part, answer) in enumerate(zip(request.parts, env.parts, strict=False)):
        if part.get("Content-Id") != f"<{echo}>":
            continue
        seen = read_echo(answer.body)
        if seen is None:
            judge.not_applicable(
                "the echo resource does not describe the request as MB-TEST-2 says"
            )
        judge.expect(
            f"part {i} content as the resource received it", seen.body, {part.body}, "MB-PART-8"
        )


def spellings_of(name: str) -> list[str]:
    """`name` as the spec writes it, in lower case, in upper case and in alternating case.

    Field names are case-insensitive (RFC 9110 §5.1), so MB-PART-10 forbids each spelling."""
    mixed = "".join(c.lower() if i % 2 else c.upper() for i, c in enumerate(name))
    return list(dict.fromkeys((name, name.lower(), name.upper(), mixed)))


def _forbidden(name: str, ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    value = {"Host": ctx.authority, "Http-Status-Code": "200", "TE": "trailers"}.get(name, "x")
    if name == "Transfer-Encoding":
        value = "chunked"
    head = [("Content-Type", f"multipart/mixed; boundary={DEFAULT_BOUNDARY}")]
    for spelling in spellings_of(name):
        body = (
            f"--{DEFAULT_BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n"
            f"{spelling}: {value}\r\n\r\n\r\n--{DEFAULT_BOUNDARY}--"
        ).encode("latin-1")
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        # MB-PART-10: "answer 400 to a batch request in which a request part carries a field
        # that MB-PART-9 forbids", whatever the case of its name.
        judge.note(f"sent {spelling}: {value}")
        expect_rejected(judge, resp, {400}, "MB-PART-10")


def _default_port(port_part: str, ctx: Context, judge: Judge) -> None:
    """A target on the batch's host whose port is empty (`port_part` ":") or absent ("")."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    cid = f"<{ctx.scheme}://{ctx.host}{port_part}{ok}>"
    body = (
        f"--{DEFAULT_BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: {cid}\r\n"
        f"\r\n\r\n--{DEFAULT_BOUNDARY}--"
    ).encode("latin-1")
    head = [("Content-Type", f"multipart/mixed; boundary={DEFAULT_BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    # MB-SUB-2: "an absent port equals the scheme's default" and "an empty port (`host:`) is
    # the default", so the target is the batch's own origin exactly when the batch request is
    # on the scheme's default port.
    if ctx.port == DEFAULT_PORTS[ctx.scheme]:
        judge.note(f"{cid} names the default port, which is the batch request's own")
        expect_processed(ctx, judge, resp, [cid], [{200}], "MB-SUB-2")
    else:
        judge.note(f"{cid} names port {DEFAULT_PORTS[ctx.scheme]}, the batch is on {ctx.port}")
        expect_rejected(judge, resp, {400}, "MB-SUB-2")


def _names_limit(judge: Judge, resp: Response, name: str) -> None:
    doc = problem_of(resp)
    if doc is not None:
        judge.expect("problem names the limit", doc.get("limit"), {name}, "MB-LIMIT-4")


def _too_many_parts(ctx: Context, judge: Judge) -> None:
    limit = ctx.limit("max_parts")
    if limit is None:
        judge.not_applicable("the target publishes no max_parts limit")
    if limit > 100_000:
        judge.not_applicable(f"max_parts {limit} is too large to exceed in a bounded test")
    ok = ctx.path(ctx.resource(judge, "ok"))
    one = f"--{DEFAULT_BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n".encode()
    body = one * (limit + 1) + f"--{DEFAULT_BOUNDARY}--".encode()
    head = [("Content-Type", f"multipart/mixed; boundary={DEFAULT_BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    expect_rejected(judge, resp, {413}, "MB-STATUS-3")
    _names_limit(judge, resp, "max_parts")
    if resp.status == 413:
        # Spec 5.3, too many parts: "the delimiter line that opens the first part over the
        # limit", the part with index `limit`.
        expect_located(judge, resp, limit, limit * len(one))


def _oversized_part_header(ctx: Context, judge: Judge) -> None:
    limit = ctx.limit("max_part_header_bytes")
    if limit is None:
        judge.not_applicable("the target publishes no max_part_header_bytes limit")
    if limit > 1_000_000:
        judge.not_applicable(f"max_part_header_bytes {limit} is too large for a bounded test")
    ok = ctx.path(ctx.resource(judge, "ok"))
    filler = "x" * (limit + 16)
    body = (
        f"--{DEFAULT_BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\nX-Filler: {filler}\r\n"
        f"\r\n\r\n--{DEFAULT_BOUNDARY}--"
    ).encode()
    head = [("Content-Type", f"multipart/mixed; boundary={DEFAULT_BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    expect_rejected(judge, resp, {431}, "MB-STATUS-3")
    _names_limit(judge, resp, "max_part_header_bytes")


def _register_all() -> None:
    for case in load_cases():
        register(
            Check(
                id=case["id"],
                requirements=tuple(case["requirements"]),
                profile=case.get("profile", "core"),
                tier="smoke",
                description=case["description"],
                run=partial(run_case, case),
                # Writes in these cases go to `echo`, or sit in batches the spec makes the
                # target reject before any part runs.
                state=State.READ_ONLY,
                roles=BOTH_ROLES,
            )
        )
    for name in FORBIDDEN_REQUEST_FIELDS:
        register(
            Check(
                id=f"reject-forbidden-field-{name.lower()}",
                requirements=("MB-PART-10",),
                profile="core",
                tier="smoke",
                description=f"A request part carrying the {name} field, in any case, is rejected with 400.",
                run=partial(_forbidden, name),
                state=State.READ_ONLY,
                roles=BOTH_ROLES,
            )
        )
    register(
        Check(
            "target-empty-port-is-default",
            ("MB-SUB-2",),
            "core",
            "smoke",
            "An absolute part target with an empty port names the scheme's default port: it runs when the batch is on that port and is rejected with 400 when not.",
            partial(_default_port, ":"),
            state=State.READ_ONLY,
            roles=BOTH_ROLES,
        )
    )
    register(
        Check(
            "target-absent-port-is-default",
            ("MB-SUB-2",),
            "core",
            "smoke",
            "An absolute part target on the batch's host with no port names the scheme's default port: it runs when the batch is on that port and is rejected with 400 when not.",
            partial(_default_port, ""),
            state=State.READ_ONLY,
            roles=BOTH_ROLES,
        )
    )
    register(
        Check(
            "reject-too-many-parts",
            ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
            "core",
            "smoke",
            "A batch with one part more than the published max_parts is answered 413.",
            _too_many_parts,
            state=State.READ_ONLY,
            roles=BOTH_ROLES,
        )
    )
    register(
        Check(
            "reject-oversized-part-header",
            ("MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"),
            "core",
            "smoke",
            "A part header section larger than the published max_part_header_bytes is answered 431.",
            _oversized_part_header,
            state=State.READ_ONLY,
            roles=BOTH_ROLES,
        )
    )


_register_all()
