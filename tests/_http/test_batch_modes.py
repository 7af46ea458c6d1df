"""Batch-Mode is read as an RFC 9110 §5.6.1 list by the server and the middleware alike."""

from __future__ import annotations

import pytest

from mixbatch._http.negotiation import batch_modes


@pytest.mark.parametrize(
    "lines",
    [
        ["atomic"],
        ["atomic,"],
        [", atomic"],
        ["atomic, atomic"],
        ["atomic", "atomic"],
        [" atomic ,\t,"],
    ],
)
def test_list_forms_of_one_mode_list_that_mode(lines: list[str]) -> None:
    assert batch_modes(lines) == {"atomic"}


def test_modes_keep_their_case_and_every_line() -> None:
    assert batch_modes(["ATOMIC", "references"]) == {"ATOMIC", "references"}


def test_no_field_lists_no_mode() -> None:
    assert batch_modes([]) == frozenset()


@pytest.mark.parametrize("lines", [[","], [""], [" , ", ","]])
def test_field_lines_without_an_element_list_the_empty_mode(lines: list[str]) -> None:
    assert batch_modes(lines) == {""}
