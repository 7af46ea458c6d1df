"""The 207 forms' entries are held to the multipart form's parts, a problem document's
occurrence members (`instance`, `detail`) aside."""

from __future__ import annotations

import json

from mixbatch_conformance.checks._shared.forms_alike import expect_entries_as_multipart
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.representations import Entry

PROBLEM = (("Content-Type", "application/problem+json"),)


def _skipped(**doc: object) -> Entry:
    body = json.dumps({"type": "about:blank", "status": 424, **doc}).encode()
    return Entry(1, None, "skipped", "<$(0)>", PROBLEM, body)


def _judged(entry: Entry, mine: Entry) -> list[bool]:
    judge = Judge("MB-MULTI-5")
    expect_entries_as_multipart(judge, "application/xml", [entry], [mine], ())
    return [e.passed for e in judge.expectations]


def test_problem_documents_that_name_their_occurrence_compare_alike() -> None:
    mine = _skipped(requirement="MB-PROC-20", instance="urn:uuid:1", detail="trace 1")
    assert _judged(_skipped(requirement="MB-PROC-20", instance="urn:uuid:2"), mine) == [True]


def test_problem_documents_naming_another_fault_differ() -> None:
    mine = _skipped(requirement="MB-PROC-20", reference="$(0)")
    assert _judged(_skipped(requirement="MB-PROC-20", reference="$(1)"), mine) == [False]


def test_an_entry_without_the_parts_fields_differs() -> None:
    mine = _skipped(requirement="MB-PROC-20")
    bare = Entry(1, None, "skipped", "<$(0)>", (), mine.body)
    assert _judged(bare, mine) == [False]
