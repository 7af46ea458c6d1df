"""The writer's C fast path (``_accel.response_part``) against the pure-Python writer.

The fast path may only write a response part the reference writes, and must write the very
same octets; for anything else it returns None and the reference writes or refuses the part.
So for any arguments, a writer with the fast path and one without must give the same octets or
the same error (type, requirement, part index and text). These tests check that on plain parts,
on parts drawn near every rule the writer enforces, and on faults planted one at a time. A last
group shows the fast path really writes parts, so the comparisons are not comparing the
reference with itself.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mixbatch.codec import BatchWriter, Fields, MixbatchError
from mixbatch.codec import _writer as writer_module
from mixbatch.codec._accelerator import RESPONSE_PART, UNAVAILABLE_REASON

needs_accel = pytest.mark.skipif(RESPONSE_PART is None, reason=f"C fast path: {UNAVAILABLE_REASON}")

BOUNDARY = "b0uNd4ry-x"
Outcome = tuple[list[bytes], tuple[str, str, str | None, int | None] | None]


def written(parts: list[dict[str, Any]], *, accelerated: bool) -> Outcome:
    """The octets of each part written in turn, and the error that stopped the writer."""
    writer = BatchWriter(BOUNDARY, accelerated=accelerated)
    out: list[bytes] = []
    try:
        for part in parts:
            out.append(writer.response_part(**part))
        out.append(writer.close())
    except MixbatchError as exc:
        return out, (type(exc).__name__, str(exc), exc.requirement, exc.part_index)
    except (TypeError, ValueError, AttributeError) as exc:  # arguments of the wrong type
        return out, (type(exc).__name__, str(exc), None, None)
    return out, None


def same_outcome(parts: list[dict[str, Any]]) -> Outcome:
    fast = written(parts, accelerated=True)
    pure = written(parts, accelerated=False)
    assert fast == pure
    return pure


# -- drawn arguments: mostly plain, each rule's edge close by ---------------------------------

_TOKEN = string.ascii_letters + string.digits + "!#$%&'*+.^_`|~-"
NAMES = (
    st.text(_TOKEN, min_size=1, max_size=10)
    | st.sampled_from(
        [
            "Content-Length",
            "content-length",
            "Content-Type",
            "Transfer-Encoding",
            "HTTP-METHOD",
            "Batch-Outcome",
            "Content-Id",
            "Http-Status-Code",
            "",
            "bad name",
            "na:me",
            "é",
        ]
    )
    | st.text(max_size=6)
)
VALUES = (
    st.text(string.printable + "\x80\xe9\xff\x7f\x00", max_size=20)
    | st.sampled_from(["", " x", "x ", "a\tb", "\t", "a\r\nb", "1024", "0", "01", "ā"])
    | st.text(max_size=6)
)
STATUSES = st.integers(95, 605) | st.sampled_from([True, 200.0, "200", None, 10**30])
CONTENT_IDS = (
    st.text(string.ascii_letters + string.digits + "/?=&-._~%:@!$'()*+,;#[]", max_size=20)
    | st.sampled_from(["/a%2Fb", "/a%2", "/%zz", "", "/a b", "/é", "<x>"])
    | st.none()
)
_DASH = b"--" + BOUNDARY.encode("ascii")
BODIES = (
    st.binary(max_size=200)
    | st.sampled_from(
        [
            b"",
            _DASH,
            _DASH + b"x",
            b"x\n" + _DASH,
            b"x\r\n" + _DASH + b"--",
            b"x\n" + _DASH[:-1],
            b"\n" + _DASH[:-1],
            _DASH[:-1],
        ]
    )
    | st.sampled_from([bytearray(b"abc"), memoryview(b"abc")])
)
OUTCOMES = st.sampled_from([None, None, None, "rolled-back", "skipped", "bogus"])


@st.composite
def fields_lists(draw: st.DrawFn) -> object:
    pairs = draw(st.lists(st.tuples(NAMES, VALUES), max_size=5))
    shape = draw(st.sampled_from(["list", "tuple", "Fields", "lists"]))
    if shape == "tuple":
        return tuple(pairs)
    if shape == "Fields":
        return Fields(pairs)
    if shape == "lists":
        return [list(pair) for pair in pairs]
    return pairs


@st.composite
def response_parts(draw: st.DrawFn) -> dict[str, Any]:
    body = draw(BODIES)
    fields = draw(fields_lists())
    if draw(st.booleans()):  # a Content-Length the writer must check, right or wrong
        declared = draw(st.sampled_from([str(len(body)), str(len(body) + 1), f"0{len(body)}"]))
        fields = [*fields, ("Content-Length", declared)]
    return {
        "status": draw(STATUSES),
        "content_id": draw(CONTENT_IDS),
        "fields": fields,
        "body": body,
        "outcome": draw(OUTCOMES),
    }


@given(st.lists(response_parts(), min_size=1, max_size=3))
@settings(max_examples=600, deadline=None)
def test_drawn_parts_give_the_same_octets_or_error(parts: list[dict[str, Any]]) -> None:
    same_outcome(parts)


PLAIN: dict[str, Any] = {
    "status": 200,
    "content_id": "/random/1024?seed=1",
    "fields": [("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store")],
    "body": bytes(range(256)) * 4,
}

#: One fault each, planted in an otherwise plain part.
PLANTS: dict[str, dict[str, Any]] = {
    "status-low": {"status": 99},
    "status-high": {"status": 600},
    "status-bool": {"status": True},
    "no-content-id": {"content_id": None},
    "empty-content-id": {"content_id": ""},
    "content-id-space": {"content_id": "/a b"},
    "content-id-bad-escape": {"content_id": "/a%4"},
    "content-id-non-ascii": {"content_id": "/é"},
    "forbidden-field": {"fields": [("Transfer-Encoding", "chunked")]},
    "control-field": {"fields": [("Http-Status-Code", "200")]},
    "outcome-field": {"fields": [("batch-outcome", "skipped")]},
    "name-not-token": {"fields": [("Bad Name", "x")]},
    "value-crlf": {"fields": [("X-A", "a\r\nX-B: b")]},
    "value-leading-space": {"fields": [("X-A", " a")]},
    "value-del": {"fields": [("X-A", "a\x7fb")]},
    "value-beyond-latin-1": {"fields": [("X-A", "ā")]},
    "length-wrong": {"fields": [("Content-Length", "1")]},
    "length-repeated": {"fields": [("Content-Length", "1024"), ("content-length", "1024")]},
    "delimiter-in-body": {"body": b"a\n" + _DASH + b"b"},
    "delimiter-opens-body": {"body": _DASH},
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_fault_gives_the_same_error(plant: str) -> None:
    _, error = same_outcome([PLAIN, {**PLAIN, **PLANTS[plant]}])
    assert error is not None


def test_a_part_after_close_gives_the_same_error() -> None:
    for accelerated in (True, False):
        writer = BatchWriter(BOUNDARY, accelerated=accelerated)
        writer.response_part(**PLAIN)
        writer.close()
        with pytest.raises(MixbatchError, match="close delimiter"):
            writer.response_part(**PLAIN)


# -- the fast path really writes --------------------------------------------------------------


@needs_accel
@pytest.mark.parametrize(
    "part",
    [
        PLAIN,
        {**PLAIN, "fields": Fields(PLAIN["fields"])},
        {**PLAIN, "fields": tuple(PLAIN["fields"])},
        {**PLAIN, "fields": [("Content-Length", "1024"), ("X-Obs", "caf\xe9\tau lait")]},
        {**PLAIN, "status": 599, "content_id": "/a%2Fb?x=1&y=;", "body": b""},
    ],
)
def test_fast_path_writes_a_plain_part(
    part: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the reference writer was asked")

    pure, error = written([part, part], accelerated=False)
    assert error is None
    monkeypatch.setattr(writer_module, "_field_line", refuse)
    monkeypatch.setattr(writer_module, "is_uri_reference", refuse)
    assert written([part, part], accelerated=True) == (pure, None)


@needs_accel
def test_fast_path_returns_none_rather_than_raise() -> None:
    dash = _DASH
    assert RESPONSE_PART is not None
    assert RESPONSE_PART(dash, True, 200, "/a", [("Transfer-Encoding", "x")], b"", ()) is not None
    not_allowed = (b"transfer-encoding",)
    assert (
        RESPONSE_PART(dash, True, 200, "/a", [("Transfer-Encoding", "x")], b"", not_allowed) is None
    )
    assert RESPONSE_PART(dash, True, 200, "/a", "not a list", b"", ()) is None
    assert RESPONSE_PART(dash, True, 200, "/a", [], "not bytes", ()) is None
    with pytest.raises(TypeError):
        RESPONSE_PART(dash, True, 200, "/a", [], b"")  # type: ignore[call-arg]
