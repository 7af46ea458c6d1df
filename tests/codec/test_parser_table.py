"""The parser's transitions are a table the code looks up, and the docstring shows that table."""

from __future__ import annotations

import itertools

from mixbatch.codec import BatchWriter, _parser
from mixbatch.codec._parser import _READERS, _TRANSITIONS, BatchParser, _Input, _State


def test_every_state_but_the_epilogue_has_a_reader_and_a_way_out() -> None:
    assert set(_READERS) == set(_State) - {_State.EPILOGUE}
    assert {state for state, _ in _TRANSITIONS} == set(_READERS)


def test_every_input_leads_somewhere_and_every_state_is_reached() -> None:
    assert {seen for _, seen in _TRANSITIONS} == set(_Input)
    assert set(_TRANSITIONS.values()) | {_State.PREAMBLE} == set(_State)


def test_the_module_docstring_lists_each_transition() -> None:
    doc = _parser.__doc__ or ""
    rows = [line.split() for line in doc.splitlines() if line.startswith("    ")]
    for (state, _), following in _TRANSITIONS.items():
        assert any(row[0] == state.name and following.name in row[1:] for row in rows), (
            state,
            following,
        )


def test_a_parse_walks_the_table_from_preamble_to_epilogue() -> None:
    writer = BatchWriter()
    content = writer.request_part("GET", "/", [], b"") + writer.close()
    parser = BatchParser(writer.boundary, accelerated=False)
    seen = [parser._state]
    for octet in content:
        parser.feed(bytes([octet]))
        if parser._state is not seen[-1]:
            seen.append(parser._state)
    assert seen == [
        _State.PREAMBLE,
        _State.AFTER_DASH,
        _State.HEADERS,
        _State.BODY,
        _State.AFTER_DASH,
        _State.EPILOGUE,
    ]
    for before, after in itertools.pairwise(seen):
        assert after in {f for (s, _), f in _TRANSITIONS.items() if s is before}
