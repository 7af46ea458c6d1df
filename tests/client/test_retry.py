"""Which answers the client may retry, and after how long (RFC 9110 §10.2.3, RFC 6585 §4)."""

from __future__ import annotations

import math
from email.utils import formatdate

import pytest

from mixbatch.client import RetryPolicy
from mixbatch.client._retry import MAX_DELAY, MAX_RETRIES, retry_after
from mixbatch.codec import Fields

NOW = 1_700_000_000.0


def _fields(retry: str | None) -> Fields:
    return Fields([] if retry is None else [("Retry-After", retry)])


@pytest.mark.parametrize("status", [429, 503])
def test_overload_statuses_with_retry_after_are_retried_after_that_delay(status: int) -> None:
    assert RetryPolicy().delay_for(status, _fields("3")) == 3.0
    assert RetryPolicy().delay_for(status, Fields([("retry-after", " 0 ")])) == 0.0


@pytest.mark.parametrize("status", [None, 200, 404, 500, 502, 504])
def test_other_statuses_are_never_retried(status: int | None) -> None:
    assert RetryPolicy().delay_for(status, _fields("1")) is None


def test_an_overload_status_without_retry_after_is_not_retried() -> None:
    assert RetryPolicy().delay_for(503, _fields(None)) is None
    assert RetryPolicy().delay_for(429, _fields("soon")) is None


def test_a_delay_beyond_max_delay_is_not_waited_for() -> None:
    policy = RetryPolicy(max_delay=10.0)
    assert policy.delay_for(503, _fields("10")) == 10.0
    assert policy.delay_for(503, _fields("11")) is None


def test_defaults_are_the_named_limits() -> None:
    assert RetryPolicy() == RetryPolicy(max_retries=MAX_RETRIES, max_delay=MAX_DELAY)


def test_retry_after_reads_delay_seconds_and_http_dates() -> None:
    assert retry_after("120", now=NOW) == 120.0
    assert retry_after(formatdate(NOW + 90, usegmt=True), now=NOW) == 90.0
    assert retry_after(formatdate(NOW - 90, usegmt=True), now=NOW) == 0.0  # already past
    assert retry_after(None) is None


@pytest.mark.parametrize(
    "value", ["", "-5", "1.5", "tomorrow", "Sun, 06 Nov 1994 08:49:37 -0000", "Sun, 99 Nov"]
)
def test_retry_after_that_is_not_a_delay_or_dated_moment_is_ignored(value: str) -> None:
    assert retry_after(value, now=NOW) is None


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"max_retries": -1}, ValueError),
        ({"max_retries": True}, TypeError),
        ({"max_retries": 1.0}, TypeError),
        ({"max_delay": -0.5}, ValueError),
        ({"max_delay": math.nan}, ValueError),
    ],
)
def test_policy_arguments_are_checked_when_built(kwargs: dict[str, object], error: type) -> None:
    with pytest.raises(error, match=r"RetryPolicy\.max_"):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]
