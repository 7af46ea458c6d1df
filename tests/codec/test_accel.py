"""The C fast path (codec/_accel.c) against the pure-Python reference parser.

The fast path may only take whole, plainly valid parts; everything else goes to the reference
code. So for any input, in any chunking, the accelerated parser must give exactly the events
or exactly the error (type, requirement, part index, offset and text) of the pure one. These
tests check that on every vector, on valid batches, and on valid batches with faults planted
where parsers differ (line ends, control fields, Content-Length, limits). A last group shows the
fast path really takes parts, so the comparisons are not comparing the reference with itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    Event,
    Limits,
    MixbatchError,
    PartEnd,
    Role,
    is_uri_reference,
    parse_batch_content_type,
)
from mixbatch.codec._accelerator import SCAN, UNAVAILABLE_REASON

from .strategies import SUB_REQUESTS, SubRequest, boundaries, chunkings
from .test_roundtrip import write
from .test_vectors import VECTORS, load

PURE_RUN = os.environ.get("MIXBATCH_PURE_PYTHON") == "1"
needs_accel = pytest.mark.skipif(SCAN is None, reason=f"C fast path: {UNAVAILABLE_REASON}")

Outcome = tuple[list[Event], tuple[str, str, str | None, int | None, int | None] | None]


def outcome(
    wire: bytes,
    boundary: str,
    role: Role,
    limits: Limits,
    cuts: list[int],
    *,
    accelerated: bool,
) -> Outcome:
    """The events a parser gives, and the error that stopped it, if any."""
    parser = BatchParser(boundary, role, limits, accelerated=accelerated)
    events: list[Event] = []
    last = 0
    try:
        for cut in [*cuts, len(wire)]:
            events += parser.feed(wire[last:cut])
            last = cut
        events += parser.feed_eof()
    except MixbatchError as exc:
        error = (type(exc).__name__, str(exc), exc.requirement, exc.part_index, exc.offset)
        return events, error
    return events, None


def same_outcome(
    wire: bytes, boundary: str, role: Role, limits: Limits, cuts: list[int] | None = None
) -> Outcome:
    cuts = cuts or []
    fast = outcome(wire, boundary, role, limits, cuts, accelerated=True)
    pure = outcome(wire, boundary, role, limits, cuts, accelerated=False)
    assert fast == pure
    return pure


def test_fast_path_is_built() -> None:
    """make env builds the extension; a checkout that silently lost it would only be slow."""
    if PURE_RUN:
        pytest.skip("MIXBATCH_PURE_PYTHON=1 turns the fast path off on purpose")
    assert SCAN is not None, UNAVAILABLE_REASON


def test_requiring_an_unavailable_fast_path_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from mixbatch.codec import _parser

    monkeypatch.setattr(_parser, "SCAN", None)
    with pytest.raises(RuntimeError, match="unavailable"):
        BatchParser("b", accelerated=True)


# -- every vector -----------------------------------------------------------------------------


def _vector(stem: Path) -> tuple[bytes, str, Role, Limits] | None:
    """The vector's parser inputs, or None when its Content-Type is refused before parsing."""
    wire, spec = load(stem)
    role = Role.REQUEST if spec["direction"] == "request" else Role.RESPONSE
    try:
        boundary = parse_batch_content_type(spec["content_type"])
    except MixbatchError:
        return None
    return wire, boundary, role, Limits(**spec.get("limits", {}))


PARSED_VECTORS = [stem for stem in VECTORS if _vector(stem) is not None]


def test_most_vectors_reach_the_parser() -> None:
    assert len(PARSED_VECTORS) >= len(VECTORS) - 10


@needs_accel
@pytest.mark.parametrize("stem", PARSED_VECTORS, ids=lambda p: p.name)
def test_vector_gives_the_same_outcome(stem: Path) -> None:
    inputs = _vector(stem)
    assert inputs is not None
    wire, boundary, role, limits = inputs
    same_outcome(wire, boundary, role, limits)
    same_outcome(wire, boundary, role, limits, list(range(7, len(wire), 7)))


# -- valid batches and planted faults ---------------------------------------------------------

#: Octet strings that turn a valid batch into a near miss somewhere the two parsers could differ.
PLANTS = [
    b"\r",
    b"\n",
    b" ",
    b"\t",
    b":",
    b"-",
    b"--",
    b"<",
    b">",
    b"%",
    b"%4",
    b"\x00",
    b"\x7f",
    b"\xe9",
    b"0",
    b"\r\n",
    b"\r\n\r\n",
    b"Content-Length: 0\r\n",
    b"Content-Length: 3\r\n",
    b"Content-Length: 00\r\n",
    b"Content-Length: x\r\n",
    b"Content-Id: <a>\r\n",
    b"Content-Id: <a b>\r\n",
    b"Content-Id: </a[1]>\r\n",
    b"Content-Id: <http://u@[::1]:8/a?b>\r\n",
    b"[",
    b"]",
    b"Http-Method: GET\r\n",
    b"Http-Method: trace\r\n",
    b"Http-Method: G(T\r\n",
    b"Http-Status-Code: 200\r\n",
    b"Http-Status-Code: 600\r\n",
    b"Batch-Outcome: skipped\r\n",
    b"Batch-Outcome: aborted\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"TE: trailers\r\n",
    b" folded\r\n",
]


#: Where faults matter most: inside and around field lines, Content-Id brackets, delimiters.
ANCHORS = (b":", b"\r\n", b"<", b">", b"--", b"-Id: <", b"Code: ")


@st.composite
def planted(draw: st.DrawFn, wire: bytes) -> bytes:
    """``wire`` with one to three plants inserted, replacing or deleting octets; most land
    next to an anchor, so header lines are hit as often as bodies."""
    for _ in range(draw(st.integers(1, 3))):
        spots = [i for anchor in ANCHORS for i in _occurrences(wire, anchor)]
        if spots and draw(st.integers(0, 3)):
            at = draw(st.sampled_from(spots)) + draw(st.integers(-2, 8))
        else:
            at = draw(st.integers(0, len(wire)))
        at = max(0, min(len(wire), at))
        cut = draw(st.integers(0, 3))
        wire = wire[:at] + draw(st.sampled_from(PLANTS)) + wire[at + cut :]
    return wire


def _occurrences(wire: bytes, needle: bytes) -> list[int]:
    found, at = [], wire.find(needle)
    while at != -1:
        found.append(at)
        at = wire.find(needle, at + 1)
    return found


LIMITS = st.builds(
    Limits,
    max_parts=st.integers(1, 12),
    max_part_header_bytes=st.integers(8, 400),
    max_part_fields=st.integers(1, 8),
    max_part_bytes=st.integers(1, 400),
) | st.just(Limits())


def _response_batch(boundary: str, subs: list[SubRequest], statuses: list[int]) -> bytes:
    writer = BatchWriter(boundary)
    out = b"".join(
        writer.response_part(status, s.target, list(s.fields), s.body)
        for s, status in zip(subs, statuses, strict=False)
    )
    return out + writer.close()


@st.composite
def batches(draw: st.DrawFn) -> tuple[bytes, str, Role]:
    """A valid request or response batch; the writer's Content-Length lines may be left out,
    so that only the limits and the delimiters bound a body."""
    subs = draw(st.lists(SUB_REQUESTS, min_size=1, max_size=6))
    boundary = draw(boundaries([s.body for s in subs]))
    if draw(st.booleans()):
        wire, role = write(boundary, subs), Role.REQUEST
    else:
        statuses = draw(st.lists(st.integers(100, 599), min_size=len(subs), max_size=len(subs)))
        wire, role = _response_batch(boundary, subs, statuses), Role.RESPONSE
    if draw(st.booleans()):
        wire = re.sub(rb"Content-Length: [0-9]+\r\n", b"", wire)
    return wire, boundary, role


@needs_accel
@settings(max_examples=300, deadline=None)
@given(batches(), LIMITS, st.data())
def test_valid_batches_give_the_same_events(
    batch: tuple[bytes, str, Role], limits: Limits, data: st.DataObject
) -> None:
    wire, boundary, role = batch
    same_outcome(wire, boundary, role, limits, data.draw(chunkings(len(wire))))


@needs_accel
@settings(max_examples=600, deadline=None)
@given(batches(), LIMITS, st.data())
def test_planted_faults_give_the_same_outcome(
    batch: tuple[bytes, str, Role], limits: Limits, data: st.DataObject
) -> None:
    wire, boundary, role = batch
    wire = data.draw(planted(wire))
    cuts = data.draw(st.just([]) | chunkings(len(wire)))
    same_outcome(wire, boundary, role, limits, cuts)


#: Content-Id values around the one structural rule of the URI check: "[" and "]" only around
#: an IP-literal host (RFC 3986 §3.2.2; spec 3.2.2).
BRACKETED_IDS = (
    "/a[1]",
    "/a?x=[1]",
    "/a#[x]",
    "//[::1]/x",
    "//[::1]",
    "http://[::1]:80/x?q",
    "http://u@[::1]/a",
    "http://[v1.x]:/",
    "http://[::1]x/",
    "http://[::1]/a[",
    "//[]/",
    "http://a@b@[::1]/",
    "http://[[::1]]/",
    "[::1]",
    "http:[::1]",
)


#: Of BRACKETED_IDS, those whose brackets enclose an IP-literal host, and nothing else.
BRACKETS_PLACED = {
    "//[::1]/x",
    "//[::1]",
    "http://[::1]:80/x?q",
    "http://u@[::1]/a",
    "http://[v1.x]:/",
}


@needs_accel
@pytest.mark.parametrize("content_id", BRACKETED_IDS)
def test_brackets_give_the_same_outcome(content_id: str) -> None:
    wire = (
        f"--bb\r\nHttp-Method: GET\r\nContent-Id: <{content_id}>\r\n\r\n\r\n--bb--\r\n"
    ).encode()
    _events, error = same_outcome(wire, "bb", Role.REQUEST, Limits(), [])
    assert (error is None) == (content_id in BRACKETS_PLACED), error
    if error is not None:
        assert error[2] == "MB-PART-4"


#: Small batches whose every octet position gets every plant, in both roles.
_SEEDS = {
    Role.REQUEST: (
        b"--bb\r\nHttp-Method: GET\r\nContent-Id: </a/b?c=%41>\r\nX-A:\t v \r\n\r\n"
        b"\r\n--bb\r\nHttp-Method: POST\r\nContent-Id: <x>\r\nContent-Length: 2\r\n\r\n"
        b"{}\r\n--bb--\r\n"
    ),
    Role.RESPONSE: (
        b"--bb\r\nHttp-Status-Code: 200\r\nContent-Id: <a>\r\nContent-Length: 3\r\n\r\n"
        b"abc\r\n--bb\r\nContent-Id: <>\r\nHttp-Status-Code: 404\r\nX: y\r\n\r\n--bb--"
    ),
}


@needs_accel
@pytest.mark.parametrize("role", list(_SEEDS), ids=lambda r: r.value)
def test_every_plant_at_every_position_gives_the_same_outcome(role: Role) -> None:
    seed = _SEEDS[role]
    same_outcome(seed, "bb", role, Limits())  # the seed itself is valid
    for at in range(len(seed) + 1):
        for plant in PLANTS:
            for cut in (0, 1):
                same_outcome(seed[:at] + plant + seed[at + cut :], "bb", role, Limits())


# -- the fast path is really taken ------------------------------------------------------------


def _count_fast_parts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Wrap the C scan and record how many parts each call took."""
    return _record_fast_parts(monkeypatch, lambda before, after: [after - before])


def _fast_part_indexes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Wrap the C scan and record the index of every part it took."""
    return _record_fast_parts(monkeypatch, lambda before, after: range(before + 1, after + 1))


def _record_fast_parts(
    monkeypatch: pytest.MonkeyPatch, note: Callable[[int, int], Iterable[int]]
) -> list[int]:
    from mixbatch.codec import _parser

    taken: list[int] = []
    real = _parser.SCAN
    assert real is not None

    def recording(*args: object) -> tuple[int, int, int]:
        before = args[3]  # scan(buf, pos, base, index, ...)
        pos, index, dash_at = real(*args)
        assert isinstance(before, int)
        taken.extend(note(before, index))
        return pos, index, dash_at

    monkeypatch.setattr(_parser, "SCAN", recording)
    return taken


def _plain_responses(n: int, outcome_at: int | None = None) -> tuple[bytes, str]:
    writer = BatchWriter()
    chunks = []
    for i in range(n):
        if i == outcome_at:
            chunks.append(writer.response_part(None, f"item/{i}", [], b"", outcome="skipped"))
        else:
            body = f"body {i}\r\n--not a delimiter".encode()
            chunks.append(
                writer.response_part(200, f"item/{i}", [("Content-Type", "text/plain")], body)
            )
    return b"".join([*chunks, writer.close()]), writer.boundary


@needs_accel
def test_fast_path_takes_every_plain_part(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _count_fast_parts(monkeypatch)
    wire, boundary = _plain_responses(50)
    events, error = same_outcome(wire, boundary, Role.RESPONSE, Limits())
    assert error is None
    assert sum(type(e) is PartEnd for e in events) == 50
    assert sum(taken) == 50


@needs_accel
def test_fast_path_leaves_an_outcome_part_to_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = _count_fast_parts(monkeypatch)
    wire, boundary = _plain_responses(50, outcome_at=10)
    events, error = same_outcome(wire, boundary, Role.RESPONSE, Limits())
    assert error is None
    assert sum(type(e) is PartEnd for e in events) == 50
    assert sum(taken) == 49  # all but the skipped part, which the Python code parsed


@needs_accel
def test_fast_path_takes_plain_request_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _count_fast_parts(monkeypatch)
    writer = BatchWriter()
    wire = b"".join(
        [
            *(
                writer.request_part("GET", f"/books/{i}", [("Accept", "application/json")], b"")
                for i in range(20)
            ),
            writer.request_part("POST", "/books?x=%41", [("Content-Length", "2")], b"{}"),
            writer.close(),
        ]
    )
    events, error = same_outcome(wire, writer.boundary, Role.REQUEST, Limits())
    assert error is None
    assert sum(type(e) is PartEnd for e in events) == 21
    assert sum(taken) == 21


def _many_fields(lines: int, *, role: Role = Role.REQUEST) -> tuple[bytes, str]:
    """A batch of three parts whose middle one has ``lines`` field lines in all."""
    writer = BatchWriter()
    # Beside Http-Method (or Http-Status-Code), Content-Id and the writer's Content-Length.
    extra = [(f"X-F{i}", str(i)) for i in range(lines - 3)]
    if role is Role.REQUEST:
        chunks = [
            writer.request_part("GET", f"/items/{i}", extra if i == 1 else [], b"")
            for i in range(3)
        ]
    else:
        chunks = [
            writer.response_part(200, f"items/{i}", extra if i == 1 else [], b"") for i in range(3)
        ]
    section = chunks[1].split(b"\r\n\r\n")[0].removeprefix(b"\r\n")  # after the delimiter
    assert section.count(b"\r\n") + 1 == lines
    return b"".join([*chunks, writer.close()]), writer.boundary


@needs_accel
@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.value)
@pytest.mark.parametrize(("lines", "limit"), [(99, 100), (100, 100), (101, 100), (5, 5), (6, 5)])
def test_fast_path_leaves_a_section_over_max_part_fields_to_the_reference(
    monkeypatch: pytest.MonkeyPatch, role: Role, lines: int, limit: int
) -> None:
    # MB-LIMIT-5: the reference enforces max_part_fields; the fast path only stops before it.
    taken = _fast_part_indexes(monkeypatch)
    wire, boundary = _many_fields(lines, role=role)
    _, error = same_outcome(wire, boundary, role, Limits(max_part_fields=limit))
    if lines <= limit:
        assert error is None
        assert taken == [0, 1, 2]
    else:
        assert 1 not in taken
        if error is not None:  # the reference enforces the limit (MB-LIMIT-5)
            assert (error[0], error[3]) == ("LimitExceeded", 1)


@needs_accel
def test_fast_path_takes_parts_with_a_boundary_longer_than_rfc_2046_allows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # BatchWriter refuses such a boundary (MB-WIRE-3), but a parser given one parses with it.
    taken = _count_fast_parts(monkeypatch)
    boundary = "b" * 100
    for role, seed in _SEEDS.items():
        wire = seed.replace(b"--bb", b"--" + boundary.encode())
        events, error = same_outcome(wire, boundary, role, Limits())
        assert error is None
        assert sum(type(e) is PartEnd for e in events) == 2
    assert sum(taken) == 4


@needs_accel
def test_fast_path_takes_limits_beyond_a_machine_word(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _count_fast_parts(monkeypatch)
    huge = 10**30
    limits = Limits(
        max_parts=huge,
        max_part_header_bytes=huge,
        max_part_fields=huge,
        max_part_bytes=huge,
        max_batch_bytes=huge,
    )
    for role, seed in _SEEDS.items():
        _, error = same_outcome(seed, "bb", role, limits)
        assert error is None
    assert sum(taken) == 4


# -- Content-Id syntax beyond the character set -----------------------------------------------

#: (reference, a URI-reference?) beside RFC 3986's grammar: a colon before the first "/", "?"
#: or "#" ends a scheme, and a fragment holds no "#" (spec 3.2.2, MB-PART-4).
REFERENCES = [
    (":a", False),
    ("1a:/books/1", False),
    ("a_b://mb-host/x", False),
    ("/x#a#b", False),
    ("/a:b", True),
    ("a/b:c", True),
    ("./a:b", True),
    ("?a:b", True),
    ("#a:b", True),
    ("/x#f", True),
    ("http://h/x", True),
    ("urn:x", True),
]


@pytest.mark.parametrize(("reference", "valid"), REFERENCES)
def test_content_id_syntax_is_read_alike_by_both_paths(reference: str, valid: bool) -> None:
    assert is_uri_reference(reference) is valid
    wire = f"--b\r\nHttp-Method: GET\r\nContent-Id: <{reference}>\r\n\r\n--b--\r\n".encode()
    _, error = same_outcome(wire, "b", Role.REQUEST, Limits(), [])
    if valid:
        assert error is None, error
    else:
        assert error is not None
        assert error[2] == "MB-PART-4", error
