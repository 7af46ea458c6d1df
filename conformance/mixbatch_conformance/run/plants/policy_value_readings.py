"""Planted readings of values a server recognises from a fixed set: the batch-on-error policy
(`stop`, `continue`; MB-PROC-11) and the Batch-Mode modes (`atomic`, `references`; MB-PROC-12)
taken for a value they are only near to.

- batch-on-error: MB-PROC-11 treats a value the server does not recognise as absent. A reader
  that trims whitespace (and the control characters and no-break space many string libraries
  count as whitespace) from inside a quoted value, matches a policy by prefix, or strips every
  quote and backslash from the value recognises `"stop "`, `stopp`, `stop.`, `'stop'` or
  `"\\"stop\\""` as stop (or their continue neighbours as continue), so the reference server
  is asked for that policy. One that finds a preference's parameters only after `; ` reads
  `batch-on-error=stop;x=1` as an unrecognised value, where RFC 7240 §2 reads stop with a
  parameter (MB-PROC-13), and runs the batch without the policy.
- Batch-Mode: MB-PROC-12 answers 501 to a value the server does not implement. A reader that
  drops trailing punctuation from an element, forgives a plural `s` and matches a mode by
  prefix runs `atomic.`, `atomics` or `atomi` as atomic.

Each edits what the reference server receives, on batch requests only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, split_quoted
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

POLICIES = ("stop", "continue")
MODES = ("atomic", "references")


def _first_policy_word(values: list[str], params: str = ";") -> str | None:
    """The value of the first batch-on-error preference (not a parameter) of the Prefer lines,
    a quoted-string read as RFC 9110 §5.6.4 reads it, its parameters cut at `params`; None
    when there is none."""
    for v in values:
        for pref in split_quoted(v, ",", "pair"):
            head = split_quoted(pref, ";", "pair")[0] if params == ";" else pref.split(params)[0]
            name, eq, value = head.partition("=")
            if name.strip(" \t").lower() != "batch-on-error":
                continue
            if not eq:
                return ""
            word = value.strip(" \t")
            if len(word) > 1 and word[0] == word[-1] == '"':
                word = re.sub(r"\\(.)", r"\1", word[1:-1], flags=re.S)
            return word
    return None


def _trimmed(word: str) -> str:
    return word.strip()


def _by_prefix(word: str) -> str:
    low = word.lower()
    for policy in POLICIES:
        if low.startswith(policy) or (len(low) >= 3 and policy.startswith(low)):
            return policy
    return word


def _quotes_stripped(word: str) -> str:
    return re.sub(r"[\"'\\]", "", word)


def _unicode_folded(word: str) -> str:
    """The value decoded as UTF-8 and case-folded as Unicode folds it (long s to s)."""
    try:
        return word.encode("latin-1").decode("utf-8").casefold()
    except (UnicodeEncodeError, UnicodeDecodeError):
        return word


def _policy_read_loosely(loosen: Callable[[str], str]) -> Callable[[RelayRequest], None]:
    """A server whose first batch-on-error value, unrecognised as sent, is recognised once
    `loosen` has been applied: the reference server is asked for that policy alone."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        word = _first_policy_word([v for n, v in req.headers if n.lower() == "prefer"])
        if word is None or word.lower() in POLICIES:
            return
        loose = loosen(word).lower()
        if loose in POLICIES:
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]
            req.headers.append(("Prefer", f"batch-on-error={loose}"))

    return edit


def _parameters_after_space_only(req: RelayRequest) -> None:
    """A server that finds a preference's parameters only after `; `, so the value of
    `batch-on-error=stop;x=1` is `stop;x=1`, which it does not recognise: where the right
    reading is a policy and this one is not, the reference server hears no preference."""
    values = [v for n, v in req.headers if n.lower() == "prefer"]
    right = _first_policy_word(values)
    planted = _first_policy_word(values, "; ")
    known = right is not None and right.lower() in POLICIES
    if is_batch(req) and known and (planted or "").lower() not in POLICIES:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]


def _near_mode(element: str) -> str:
    """The mode a loose reader takes `element` for: trailing punctuation dropped, a plural `s`
    or a missing last letter forgiven."""
    e = element.strip(" \t").rstrip(".-")
    for mode in MODES:
        if e in (mode, mode + "s") or (len(e) >= 4 and mode.startswith(e)):
            return mode
    return element


def _modes_read_loosely(req: RelayRequest) -> None:
    if not is_batch(req):
        return
    out: list[tuple[str, str]] = []
    for n, v in req.headers:
        if n.lower() == "batch-mode":
            v = ",".join(_near_mode(e) for e in v.split(","))
        out.append((n, v))
    req.headers = out


P = Mutation

PLANTS: tuple[Mutation, ...] = (
    P(
        "quoted-policy-value-trimmed",
        'MB-PROC-11 a quoted batch-on-error value trimmed of whitespace, so "stop " is stop',
        ("prefer-unknown-value",),
        on_request=_policy_read_loosely(_trimmed),
    ),
    P(
        "policy-value-matched-by-prefix",
        "MB-PROC-11 a batch-on-error value matched by prefix, so stopp and stop. are stop",
        ("prefer-unknown-value",),
        on_request=_policy_read_loosely(_by_prefix),
    ),
    P(
        "policy-value-quotes-stripped",
        "MB-PROC-11 every quote and backslash stripped from a batch-on-error value, so 'stop' is stop",
        ("prefer-unknown-value",),
        on_request=_policy_read_loosely(_quotes_stripped),
    ),
    P(
        "policy-value-unicode-folded",
        "MB-PROC-11 a batch-on-error value compared after a Unicode case fold, so a long-s stop is stop",
        ("prefer-unknown-value",),
        on_request=_policy_read_loosely(_unicode_folded),
    ),
    P(
        "policy-parameters-after-space-only",
        "MB-PROC-13 batch-on-error=stop;x=1 read as the value stop;x=1, not as stop",
        ("prefer-several-preferences",),
        on_request=_parameters_after_space_only,
    ),
    P(
        "batch-mode-near-spellings-read",
        "MB-PROC-12 a Batch-Mode element stripped of trailing punctuation, matched by prefix",
        ("mode-lookalike-values-refused",),
        on_request=_modes_read_loosely,
    ),
)
