"""The shared negotiation: Accept lines as one list, and the yes/no question the proxy and the
ASGI middleware ask of it."""

from __future__ import annotations

import pytest

from mixbatch._http.negotiation import accept_of, accepts_multipart, choose
from mixbatch.codec import Fields


def test_accept_of_joins_every_accept_line_in_order() -> None:
    fields = Fields([("Accept", "text/plain"), ("X-Other", "1"), ("accept", "multipart/mixed")])
    assert accept_of(fields) == "text/plain, multipart/mixed"


def test_accept_of_is_none_without_an_accept_line() -> None:
    assert accept_of(Fields([("Content-Type", "text/plain")])) is None


@pytest.mark.parametrize(
    ("accept", "admitted"),
    [
        (None, True),
        ("", True),
        ("multipart/mixed", True),
        ("multipart/*", True),
        ("*/*;q=0.1", True),
        ("text/plain", False),
        ("multipart/mixed;q=0", False),
        ("multipart/mixed;q=0, */*", False),
        ("*/*, multipart/mixed;q=0", False),
        ("text/plain, multipart/mixed", True),
        ("not a range", True),
    ],
)
def test_accepts_multipart_lets_the_most_specific_range_decide(
    accept: str | None, admitted: bool
) -> None:
    assert accepts_multipart(accept) is admitted


@pytest.mark.parametrize(
    ("accept", "admitted"),
    [
        ('text/html; x="a, multipart/mixed, b"', False),
        ('text/html; x="a\\", multipart/mixed, b=\\"c"', False),
        ('text/html; x="a\\"b", multipart/mixed', True),
        ('text/html; x="a\\\\", multipart/mixed', True),
        ('multipart/mixed; x="a;q=0"', True),
    ],
)
def test_a_quoted_parameter_value_holds_commas_and_quoted_pairs(
    accept: str, admitted: bool
) -> None:
    # RFC 9110 §5.6.4, §5.6.6: a comma or `;q=0` inside a quoted-string separates nothing.
    assert accepts_multipart(accept) is admitted


@pytest.mark.parametrize(
    "accept",
    [
        "application/xml;charset",
        "application/xml; =utf-8",
        "application/xml;charset=",
        "application/xml;a b=c",
    ],
)
def test_a_range_whose_parameters_do_not_parse_is_never_read_as_a_form(accept: str) -> None:
    # Spec 6.1: such an element "does not follow RFC 9110 §12.5.1's grammar" and a server
    # "never reads such an element as a form"; read alone, the field is as if absent.
    offers = ("multipart/mixed", "application/xml")
    assert choose(accept, offers) == "multipart/mixed"
    assert choose(f"{accept}, multipart/mixed;q=0.1", offers) == "multipart/mixed"


def test_empty_parameters_and_quoted_values_still_parse() -> None:
    offers = ("multipart/mixed", "application/xml")
    assert choose('application/xml;;charset="utf-8";q=0.5', offers) == "application/xml"
