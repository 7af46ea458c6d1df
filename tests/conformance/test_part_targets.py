"""What the sub-request checks expect a part's target to become (spec 3.2.2, 8.1)."""

from __future__ import annotations

from mixbatch_conformance.checks.target_spellings import resolved, routing_spellings
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import reference_target
from mixbatch_conformance.run.plants.parts import _repeated_fields_combined
from mixbatch_conformance.run.plants.responses import _failing_part_first
from mixbatch_conformance.run.plants.targets import _upper_escapes

CTX = Context(reference_target("http://127.0.0.1:9"))


def test_a_reference_with_a_path_never_takes_the_batch_query() -> None:
    base = "/api/batch?page=2"
    assert resolved(CTX, "echo", base) == "/api/echo"
    assert resolved(CTX, "./echo", base) == "/api/echo"
    assert resolved(CTX, "/echo?own=1", base) == "/echo?own=1"


def test_an_empty_query_is_kept_and_percent_case_is_kept() -> None:
    assert resolved(CTX, "/echo?") == "/echo?"
    assert resolved(CTX, "/echo?q=%2f%C3%a9") == "/echo?q=%2f%C3%a9"
    assert resolved(CTX, "/echo") == "/echo"


def test_routing_spellings_are_other_paths_and_never_network_paths() -> None:
    assert set(routing_spellings("/books/1")) == {"/books/1/", "/books//1", "/books%2F1"}
    assert not any(s.startswith("//") for s in routing_spellings("/books"))
    assert "/BOOKS" in routing_spellings("/books")


def test_the_plants_change_what_they_say() -> None:
    assert _upper_escapes("/e?q=%2f", "/batch") == "/e?q=%2F"
    assert _upper_escapes("/e?q=%2F", "/batch") is None
    combined = _repeated_fields_combined([([("Content-Id", "<a>"), ("X", "1"), ("x", "2")], b"")])
    assert combined == [([("Content-Id", "<a>"), ("X", "1, 2")], b"")]
    parts = [
        ([("Batch-Outcome", "rolled-back")], b"0"),
        ([("Http-Status-Code", "404")], b"1"),
        ([("Batch-Outcome", "skipped")], b"2"),
    ]
    assert [b for _, b in _failing_part_first(parts)] == [b"1", b"0", b"2"]
