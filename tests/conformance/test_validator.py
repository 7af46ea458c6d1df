"""The suite's own reader agrees with the spec's vectors and with the stdlib email parser."""

from __future__ import annotations

import base64
import email.policy
from email.message import Message
from email.parser import BytesParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mixbatch_conformance.checks.corpus import Vector, load_vectors
from mixbatch_conformance.core.validator import (
    boundary_problem,
    directive_names,
    list_members,
    names_media_type,
    parse_media_type,
    read_multipart,
    request_part_findings,
    response_part_findings,
)

VECTORS = load_vectors()
REQUEST = [v for v in VECTORS if v.direction == "request"]
RESPONSE = [v for v in VECTORS if v.direction == "response"]


def _body_of(expected: dict[str, Any]) -> bytes:
    if "body_base64" in expected:
        return base64.b64decode(expected["body_base64"])
    return str(expected["body_text"]).encode("utf-8")


def _boundary(v: Vector) -> str | None:
    try:
        media, params = parse_media_type(v.meta["content_type"])
    except ValueError:
        return None
    b = params.get("boundary")
    if media != "multipart/mixed" or b is None or boundary_problem(b):
        return None
    return b


def _receiver_findings(v: Vector) -> set[str]:
    b = _boundary(v)
    if b is None:
        return {"MB-WIRE-4" if "multipart/mixed" in v.meta["content_type"] else "MB-WIRE-2"}
    env = read_multipart(v.body, b)
    found = {f.receiver for f in env.findings if f.receiver}
    if not env.fatal:
        for part in env.parts:
            found |= {f.receiver for f in request_part_findings(part) if f.receiver}
    return found


@pytest.mark.parametrize("vector", [v for v in REQUEST if v.meta["valid"]], ids=lambda v: v.name)
def test_reads_valid_request_vector_as_the_vector_says(vector: Vector) -> None:
    b = _boundary(vector)
    assert b is not None
    env = read_multipart(vector.body, b)
    assert env.receiver_rejects() == ()
    expected = vector.meta["expect"]["parts"]
    assert [p.get("Http-Method") for p in env.parts] == [e["method"] for e in expected]
    assert [p.get("Content-Id") for p in env.parts] == [f"<{e['target']}>" for e in expected]
    assert [p.body for p in env.parts] == [_body_of(e) for e in expected]
    assert all(request_part_findings(p) == [] for p in env.parts)


CONTEXT_FREE = [
    v
    for v in REQUEST
    if not v.meta["valid"]
    and v.meta["error"]["detected_by"] == "codec"
    and v.meta["error"]["status"] in (400, 415)
]


@pytest.mark.parametrize("vector", CONTEXT_FREE, ids=lambda v: v.name)
def test_rejects_invalid_request_vector_for_its_requirement(vector: Vector) -> None:
    assert vector.meta["error"]["requirement"] in _receiver_findings(vector)


@pytest.mark.parametrize("vector", RESPONSE, ids=lambda v: v.name)
def test_judges_response_vector_as_the_vector_says(vector: Vector) -> None:
    b = _boundary(vector)
    assert b is not None
    env = read_multipart(vector.body, b)
    part_findings = [f for p in env.parts for f in response_part_findings(p, None)]
    if vector.meta["valid"]:
        assert env.fatal == ()
        assert part_findings == []
        expected = vector.meta["expect"]["parts"]
        assert [p.body for p in env.parts] == [_body_of(e) for e in expected]
        statuses = [p.get("Http-Status-Code") for p in env.parts]
        assert statuses == [None if e["status"] is None else str(e["status"]) for e in expected]
    else:
        requirement = vector.meta["error"]["requirement"]
        named = {f.sender for f in env.findings} | {f.receiver for f in env.findings}
        named |= {f.sender for f in part_findings}
        if requirement == "MB-WIRE-14":
            assert not env.complete
            assert len(env.parts) == vector.meta["error"].get("parts_complete", len(env.parts))
        else:
            assert requirement in named


def test_rejects_text_after_close_delimiter() -> None:
    env = read_multipart(b"--b\r\nA: 1\r\n\r\n\r\n--b--junk", "b")
    assert [f.receiver for f in env.fatal] == ["MB-WIRE-19"]


def test_accepts_padding_but_reports_it_to_senders() -> None:
    env = read_multipart(b"--b \t\r\nA: 1\r\n\r\nx\r\n--b-- ", "b")
    assert env.receiver_rejects() == ()
    assert {f.sender for f in env.findings} == {"MB-WIRE-12"}


def test_reports_an_incomplete_body_keeping_whole_parts() -> None:
    env = read_multipart(b"--b\r\nA: 1\r\n\r\nx\r\n--b\r\nA: 2\r\n\r\ny", "b")
    assert not env.complete
    assert [p.body for p in env.parts] == [b"x"]


@pytest.mark.parametrize(
    "data",
    [
        b"--b\r\nA: 1\r\n\r\nx\n--b--\r\n",
        b"--b\r\nA: 1\r\n\r\nx\n--b\r\nA: 2\r\n\r\ny\n--b--\r\n",
    ],
)
def test_blames_a_bare_lf_before_the_next_delimiter_on_its_line_end(data: bytes) -> None:
    env = read_multipart(data, "b")
    assert [(f.sender, f.offset) for f in env.fatal] == [("MB-WIRE-7", data.index(b"\n--b"))]


def test_parses_media_type_parameters() -> None:
    assert parse_media_type('Multipart/Mixed; Boundary="a b"; x=1') == (
        "multipart/mixed",
        {"boundary": "a b", "x": "1"},
    )
    with pytest.raises(ValueError, match="repeated"):
        parse_media_type("multipart/mixed; boundary=a; boundary=b")


# -- cross-check with the standard library's email parser (compat32) -------------------------
TOKEN = st.text(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", min_size=1, max_size=12
)
VALUE = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=30)
LINE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
BODY = st.lists(LINE, max_size=4).map(lambda lines: "\r\n".join(lines).encode("ascii"))
PART = st.tuples(
    st.lists(
        st.tuples(TOKEN.filter(lambda t: t.lower() not in ("content-type", "from")), VALUE),
        min_size=1,
        max_size=4,
    ),
    BODY,
)


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(PART, min_size=1, max_size=5),
    boundary=st.from_regex(r"[A-Za-z0-9_-]{16,30}", fullmatch=True),
)
def test_agrees_with_stdlib_email_compat32(
    parts: list[tuple[list[tuple[str, str]], bytes]], boundary: str
) -> None:
    """Bodies are CRLF-delimited printable lines that cannot hold the delimiter (they have no '--' lines of that boundary); strategies shrink toward one part with one field and an empty body."""
    dash = b"--" + boundary.encode()
    out = bytearray()
    for i, (fields, body) in enumerate(parts):
        out += (b"\r\n" if i else b"") + dash + b"\r\n"
        for n, v in fields:
            out += f"{n}: {v}\r\n".encode()
        out += b"\r\n" + body
    out += b"\r\n" + dash + b"--"
    data = bytes(out)
    ours = read_multipart(data, boundary)
    head = f"Content-Type: multipart/mixed; boundary={boundary}\r\n\r\n".encode()
    theirs = BytesParser(policy=email.policy.compat32).parsebytes(head + data)
    payload = theirs.get_payload()
    assert isinstance(payload, list)
    assert ours.fatal == ()
    assert len(ours.parts) == len(payload)
    for mine, msg in zip(ours.parts, payload, strict=True):
        assert isinstance(msg, Message)
        assert list(mine.fields) == [(k, str(v)) for k, v in msg.items()]
        text = msg.get_payload()
        assert isinstance(text, str)
        assert mine.body == text.encode("ascii")


def test_list_members_split_at_commas_outside_quoted_strings_over_every_line() -> None:
    assert list_members(['a, "b,c" , ,d', "e"]) == ["a", '"b,c"', "d", "e"]
    assert list_members(['"x\\",y", z']) == ['"x\\",y"', "z"]
    assert list_members([]) == []


def test_a_media_type_is_named_only_by_a_member_that_is_exactly_it() -> None:
    assert names_media_type(["Multipart/Mixed; q=1, text/plain"], "multipart/mixed")
    assert names_media_type(["text/plain", "multipart/mixed"], "multipart/mixed")
    assert not names_media_type(["multipart/mixedx"], "multipart/mixed")
    assert not names_media_type(["multipart/mixed-replace"], "multipart/mixed")


def test_directive_names_are_lower_cased_and_stop_at_the_value() -> None:
    assert directive_names(["no-store, No-Transform", "max-age=5"]) == [
        "no-store",
        "no-transform",
        "max-age",
    ]
    assert "no-transform" not in directive_names(["no-transformx"])
