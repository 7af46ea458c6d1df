"""Verdicts, expectations and the Judge every check reports through.

Theory of operation: a check never returns a verdict of its own. It sends traffic, records
each exchange with `Judge.record`, and states each expectation with `Judge.expect`, naming
the SET of outcomes the spec allows, the actual outcome, and the requirement at stake. The
runner turns the record into a verdict: any broken expectation gives FAIL, WARN or INFO by
the keyword of its requirement; a check that stated no expectation at all is a
HARNESS-ERROR, never a PASS, so a check that silently asserts nothing cannot hide.

`require` is `expect` that stops the check when broken (later expectations would only repeat
the same failure). `setup_error` says the target could not be brought to the state the
check needs (e.g. its `ok` resource does not answer 2xx alone); `not_applicable` says the
check does not apply (e.g. the target publishes no limits).
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import NoReturn

from mixbatch_conformance.core.validator import parse_media_type
from mixbatch_conformance.transport.http import Exchange

__all__ = [
    "Expectation",
    "Judge",
    "NotApplicable",
    "SetupError",
    "StopCheck",
    "Verdict",
]


class Verdict(enum.Enum):
    """Outcome classes, after Autobahn's: one per check and run."""

    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    INFO = "INFO"
    NA = "N/A"
    SETUP_ERROR = "SETUP-ERROR"
    HARNESS_ERROR = "HARNESS-ERROR"
    TIMEOUT = "TIMEOUT"
    FLAKY = "FLAKY"

    @property
    def failing(self) -> bool:
        """Whether this verdict makes the target non-conformant."""
        return self in (Verdict.FAIL, Verdict.FLAKY)


class StopCheck(Exception):
    """Raised by `Judge.require` after recording a broken expectation."""


class SetupError(Exception):
    """The target could not be put in the state a check needs."""


class NotApplicable(Exception):
    """The check does not apply to this target."""


@dataclass(frozen=True)
class Expectation:
    """One stated expectation and how it came out."""

    what: str
    requirement: str
    allowed: str
    actual: str
    passed: bool


@dataclass
class Judge:
    """Collects a check's exchanges and expectations."""

    default_requirement: str
    expectations: list[Expectation] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The check it judges (the runner sets it): what seeds the check's request variants.
    check_id: str = ""
    #: Requests of the check considered for a variant so far (core.variants).
    variant_position: int = 0
    #: Seconds the check's exchanges may wait for each read when that is longer than the run's
    #: per-exchange timeout: a check that outlasts a time limit the target declares sets it
    #: (`Context.timeout_for`); 0 leaves the run's timeout.
    wait_s: float = 0.0
    #: The requirement an answer breaks whose head came and whose end did not within the wait,
    #: while a check holds `stalls_break` around an exchange it knows must have ended by then;
    #: None (elsewhere) leaves such an answer a TIMEOUT.
    stalled_answer_breaks: str | None = None

    @contextlib.contextmanager
    def stalls_break(self, requirement: str) -> Iterator[None]:
        """Within the block, an answer whose head came and whose end did not within the wait
        is a broken expectation of `requirement` (the check stops), not a TIMEOUT."""
        self.stalled_answer_breaks = requirement
        try:
            yield
        finally:
            self.stalled_answer_breaks = None

    def record(self, ex: Exchange) -> Exchange:
        self.exchanges.append(ex)
        if ex.error is not None and ex.error.startswith("TimeoutError"):
            stalled = _stalled_after(ex.raw)
            if stalled and self.stalled_answer_breaks is not None:
                self.expect_true(
                    "the end of an answer that began",
                    False,
                    f"no end within the wait{stalled}",
                    "the answer ended, by its close delimiter or a closed connection (spec 5.4)",
                    self.stalled_answer_breaks,
                )
                raise StopCheck
            raise TimeoutError(ex.error + stalled)
        return ex

    def note(self, text: str) -> None:
        self.notes.append(text)

    def expect(
        self,
        what: str,
        actual: object,
        allowed: Collection[object] | Callable[[object], bool],
        requirement: str | None = None,
        *,
        allowed_text: str | None = None,
    ) -> bool:
        """Record whether `actual` is one of the `allowed` outcomes (a set or a predicate)."""
        if callable(allowed):
            passed = bool(allowed(actual))
            text = allowed_text or getattr(allowed, "__doc__", None) or "predicate"
        else:
            passed = actual in allowed
            text = allowed_text or _show_set(allowed)
        self.expectations.append(
            Expectation(what, requirement or self.default_requirement, text, _show(actual), passed)
        )
        return passed

    def expect_true(
        self, what: str, ok: bool, actual: str, allowed: str, requirement: str | None = None
    ) -> bool:
        """Record a yes/no expectation with its own wording of allowed and actual."""
        self.expectations.append(
            Expectation(what, requirement or self.default_requirement, allowed, actual, bool(ok))
        )
        return bool(ok)

    def require(
        self,
        what: str,
        actual: object,
        allowed: Collection[object] | Callable[[object], bool],
        requirement: str | None = None,
        *,
        allowed_text: str | None = None,
    ) -> None:
        if not self.expect(what, actual, allowed, requirement, allowed_text=allowed_text):
            raise StopCheck(what)

    def require_true(
        self, what: str, ok: bool, actual: str, allowed: str, requirement: str | None = None
    ) -> None:
        if not self.expect_true(what, ok, actual, allowed, requirement):
            raise StopCheck(what)

    def media_type(
        self, what: str, value: str | None, requirement: str
    ) -> tuple[str, dict[str, str]]:
        """Read a `Content-Type` the target sent: its lower-cased type and its parameters.

        A value RFC 9110 §8.3.1 cannot parse (a parameter value with `/` or a space unquoted,
        a repeated parameter) is the target's fault: it is a broken expectation citing
        `requirement`, and it stops the check, never a harness error.
        """
        try:
            return parse_media_type(value or "")
        except ValueError as exc:
            self.expect_true(
                what, False, str(exc), "a media type as RFC 9110 §8.3.1 spells it", requirement
            )
            raise StopCheck(what) from None

    def setup_error(self, why: str) -> NoReturn:
        raise SetupError(why)

    def not_applicable(self, why: str) -> NoReturn:
        raise NotApplicable(why)

    @property
    def failed(self) -> list[Expectation]:
        return [e for e in self.expectations if not e.passed]


def _show(value: object) -> str:
    if isinstance(value, bytes):
        return repr(value[:200])
    text = str(value)
    return text if len(text) <= 300 else text[:300] + "..."


def _show_set(values: Collection[object]) -> str:
    items = sorted((_show(v) for v in values), key=lambda s: (len(s), s))
    return "one of {" + ", ".join(items) + "}"


#: How a TIMEOUT's account begins its second half when the answer's head had come.
STALLED_AFTER_HEAD = "the answer stalled after its head"


def _stalled_after(raw: bytes) -> str:
    """What an answer that timed out had sent: its head and how much content, when its head
    came (a server that stalls part way, not a silent one), else nothing."""
    head, sep, rest = raw.partition(b"\r\n\r\n")
    if not sep:
        return ""
    status = head.split(b"\r\n", 1)[0].decode("latin-1", "replace")
    return f"; {STALLED_AFTER_HEAD} ({status!r}) and {len(rest)} octets after it"
