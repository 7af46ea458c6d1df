"""Every vector in spec/examples/ parses as its expectation says: whole, byte by byte, and in
hypothesis-chosen splits. Invalid vectors fail with the stated requirement, status, part index
and byte offset."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mixbatch.codec import (
    BatchParser,
    Event,
    Limits,
    RemoteProtocolError,
    RequestPartStart,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
    resolve_part_target,
    resolve_target,
)

from .strategies import chunkings
from .test_roundtrip import collect

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
VECTORS = sorted(p.with_name(p.name.removesuffix(".http")) for p in EXAMPLES.glob("*.http"))


def load(stem: Path) -> tuple[bytes, dict[str, Any]]:
    wire = stem.with_name(stem.name + ".http").read_bytes()
    spec = json.loads(stem.with_name(stem.name + ".json").read_text())
    return wire, spec


def run(wire: bytes, spec: dict[str, Any], cuts: list[int]) -> list[Event]:
    role = Role.REQUEST if spec["direction"] == "request" else Role.RESPONSE
    parser = BatchParser(
        parse_batch_content_type(spec["content_type"]), role, Limits(**spec.get("limits", {}))
    )
    events: list[Event] = []
    last = 0
    for cut in [*cuts, len(wire)]:
        events += parser.feed(wire[last:cut])
        last = cut
    events += parser.feed_eof()
    if spec["direction"] == "request":
        context = spec["context"]
        for ev in events:
            if isinstance(ev, RequestPartStart):
                # What the server adds to the codec (spec §8): same-origin targets and no nesting.
                resolve_part_target(
                    ev,
                    base=context["target"],
                    scheme=context["scheme"],
                    authority=context["authority"],
                    batch_paths=(context["target"].split("?")[0],),
                )
    return events


def body_of(part: dict[str, Any]) -> bytes:
    if "body_base64" in part:
        return base64.b64decode(part["body_base64"])
    return str(part.get("body_text", "")).encode("utf-8")


def check(stem: Path, cuts: list[int]) -> None:
    wire, spec = load(stem)
    if not spec["valid"]:
        error = spec["error"]
        with pytest.raises(RemoteProtocolError) as info:
            run(wire, spec, cuts)
        exc = info.value
        assert exc.requirement == error["requirement"], str(exc)
        if error["detected_by"] == "codec":
            if error["status"] is not None:
                assert exc.status_hint == error["status"], str(exc)
            if error.get("part_index") is not None:
                assert exc.part_index == error["part_index"], str(exc)
            if error.get("byte_offset") is not None:
                assert exc.offset == error["byte_offset"], str(exc)
        return
    parts = collect(run(wire, spec, cuts))
    expected = spec["expect"]["parts"]
    assert len(parts) == len(expected)
    context = spec["context"]
    for (start, body), want in zip(parts, expected, strict=True):
        assert body == body_of(want)
        assert len(body) == want["body_length"]
        assert [list(f) for f in start.fields] == want["fields"]  # type: ignore[attr-defined]
        if isinstance(start, RequestPartStart):
            assert (start.method, start.target) == (want["method"], want["target"])
            resolved = resolve_target(
                context["target"],
                start.target,
                scheme=context["scheme"],
                authority=context["authority"],
            )
            assert resolved == want["resolved_target"]
        else:
            assert isinstance(start, ResponsePartStart)
            assert (start.status, start.outcome, start.content_id) == (
                want["status"],
                want["outcome"],
                want["content_id"],
            )


def test_there_are_at_least_forty_vectors() -> None:
    assert len(VECTORS) >= 40


@pytest.mark.parametrize("stem", VECTORS, ids=lambda p: p.name)
def test_vector_parses_whole(stem: Path) -> None:
    check(stem, [])


@pytest.mark.parametrize("stem", VECTORS, ids=lambda p: p.name)
def test_vector_parses_byte_by_byte(stem: Path) -> None:
    size = len(load(stem)[0])
    check(stem, list(range(1, size)))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(VECTORS), st.data())
def test_vector_parses_in_any_split(stem: Path, data: st.DataObject) -> None:
    check(stem, data.draw(chunkings(len(load(stem)[0]))))
