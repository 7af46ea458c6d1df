"""The input strategies' models: the outcome each drawn input is held to is the spec's."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import urljoin, urlsplit

from hypothesis import given, settings

from mixbatch_conformance.checks._shared.inputs import (
    EPOCH,
    JSON_FORM,
    MULTIPART,
    NO_SUCH_ETAG,
    SIZES,
    XML_FORM,
    accept_fields,
    allowed_forms,
    body_sizes,
    conditional_fields,
    counts_around,
    expected_conditional_status,
    name_spellings,
    prefer_fields,
    target_spellings,
)

ALL = (MULTIPART, XML_FORM, JSON_FORM)
ETAG = '"e1"'
MODIFIED = "Sun, 22 Nov 2026 12:00:00 GMT"


def test_quality_values_outrank_listing_order() -> None:
    assert allowed_forms([(XML_FORM, 0.5), (MULTIPART, 0.9)], ALL) == {MULTIPART}
    assert allowed_forms([(MULTIPART, 0.2), (XML_FORM, 0.6)], ALL) == {XML_FORM}


def test_a_tie_with_multipart_chooses_multipart() -> None:
    assert allowed_forms([(XML_FORM, 0.8), (JSON_FORM, 0.8), (MULTIPART, 0.8)], ALL) == {MULTIPART}


def test_a_tie_between_the_207_forms_allows_either() -> None:
    assert allowed_forms([(XML_FORM, 1.0), (JSON_FORM, 1.0), (MULTIPART, 0.1)], ALL) == {
        XML_FORM,
        JSON_FORM,
    }


def test_q_zero_excludes_and_nothing_acceptable_is_406() -> None:
    assert allowed_forms([(MULTIPART, 0.0), ("*/*", 1.0)], ALL) == {XML_FORM, JSON_FORM}
    assert allowed_forms([(MULTIPART, 0.0)], (MULTIPART,)) == {"406"}
    assert allowed_forms([("application/json", 1.0)], ALL) == {"406"}


def test_the_most_specific_range_decides() -> None:
    assert allowed_forms([("*/*", 1.0), ("multipart/*", 0.0), (XML_FORM, 0.3)], ALL) == {JSON_FORM}


def test_no_accept_is_multipart() -> None:
    assert allowed_forms([], ALL) == {MULTIPART}


def test_conditional_order_of_evaluation() -> None:
    def status(**fields: str) -> int:
        named = {k.replace("_", "-").title().replace("If-", "If-"): v for k, v in fields.items()}
        return expected_conditional_status(named, ETAG, MODIFIED)

    assert status() == 200
    assert status(If_Match=NO_SUCH_ETAG) == 412
    assert status(If_Match=ETAG, If_Unmodified_Since=EPOCH) == 200
    assert status(If_Unmodified_Since=EPOCH) == 412
    assert status(If_None_Match=ETAG) == 304
    assert status(If_None_Match=NO_SUCH_ETAG, If_Modified_Since=MODIFIED) == 200
    assert status(If_Modified_Since=MODIFIED) == 304
    assert status(If_Match=NO_SUCH_ETAG, If_None_Match=ETAG) == 412


@settings(max_examples=60, database=None)
@given(accept_fields(ALL))
def test_drawn_accept_values_allow_a_form_or_406(drawn: tuple[str, set[str]]) -> None:
    accept, allowed = drawn
    assert accept
    assert allowed <= {*ALL, "406"}
    assert allowed


@settings(max_examples=60, database=None)
@given(conditional_fields(ETAG, MODIFIED))
def test_drawn_conditionals_give_a_conditional_status(
    drawn: tuple[tuple[tuple[str, str], ...], int],
) -> None:
    fields, status = drawn
    assert status in (200, 304, 412)
    assert len({n for n, _ in fields}) == len(fields)


@settings(max_examples=60, database=None)
@given(prefer_fields())
def test_drawn_prefer_lines_say_whether_they_ask_for_stop(
    drawn: tuple[tuple[str, ...], bool],
) -> None:
    lines, stop = drawn
    # RFC 7240 §2: a preference is what stands before its first ";" in a comma-separated
    # member; commas and semicolons inside a quoted-string separate nothing.
    members = re.findall(r'(?:^|,)\s*((?:[^,;"]|"[^"]*")*)', ",".join(lines))
    named = [m.split("=")[0].strip().lower() for m in members]
    assert ("batch-on-error" in named) == stop


@settings(max_examples=60, database=None)
@given(target_spellings("/api/echo"))
def test_drawn_targets_resolve_as_rfc_3986_says(drawn: tuple[str, str]) -> None:
    spelled, resolved = drawn
    url = urlsplit(urljoin("http://h/api/batch", spelled))
    assert url.path + (f"?{url.query}" if url.query else "") == resolved
    assert posixpath.normpath(url.path) == "/api/echo"


@given(name_spellings("Authorization"))
def test_spellings_are_the_same_name(name: str) -> None:
    assert name.lower() == "authorization"


@given(body_sizes(70_000))
def test_sizes_keep_to_the_limit(n: int) -> None:
    assert 0 <= n <= 70_000


def test_sizes_cross_64_kib_both_ways() -> None:
    assert {65_535, 65_536, 65_537} <= set(SIZES)
    assert max(SIZES) > 2 * 65_536 - 1


@given(counts_around(100))
def test_counts_around_a_limit(n: int) -> None:
    assert n in {1, 99, 100, 101}
