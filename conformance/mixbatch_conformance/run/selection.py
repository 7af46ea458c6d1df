"""Which checks a run selects: `--only` by check, requirement, ID prefix or spec section,
and `--skip` by the same words.

Theory of operation: each `--only` word is read as one of four kinds, tried in this order:
- a check id or an id prefix (`created-location`, `reject-`), as `--list` prints them;
- a requirement ID (`MB-WIRE-3`): every check that verifies it;
- a requirement ID prefix (`MB-WIRE`, `MB-WIRE-`): every check verifying one that starts so;
- a spec section (`§3.1`, `section:3.1`, `3.1`): every check verifying a requirement of that
  section or of one below it (3.1 takes in 3.1.2).
A word that selects nothing is a usage error (`SelectionError`) naming the word, so a typo
never runs zero checks and reports success. `--skip` leaves out every check its words select
(a word that selects nothing is the same usage error). `--read-only` then keeps only the checks
that change nothing on the target, and the run says how many it left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mixbatch_conformance.checks import select
from mixbatch_conformance.core.registry import Check, State
from mixbatch_conformance.core.requirements import RequirementIndex, load_index

__all__ = ["SelectionError", "matches", "plan", "read_only", "select_only"]

_SECTION = re.compile(r"(?:§|section:)?\s*([0-9]+(?:\.[0-9]+)*)", re.IGNORECASE)
_REQUIREMENT = re.compile(r"MB-[A-Z]+(?:-[0-9]*)?", re.IGNORECASE)


class SelectionError(ValueError):
    """An --only or --skip word selects no check (a usage error: exit status 2)."""


def matches(check: Check, word: str, index: RequirementIndex) -> bool:
    """Whether `word` (one --only value) selects `check`."""
    if check.id == word or check.id.startswith(word):
        return True
    if _REQUIREMENT.fullmatch(word):
        wanted = word.upper()
        if wanted in check.requirements:
            return True
        prefix = wanted if wanted.endswith("-") else wanted + "-"
        return not wanted[-1].isdigit() and any(r.startswith(prefix) for r in check.requirements)
    section = _SECTION.fullmatch(word)
    if section:
        number = section.group(1)
        return any(
            r in index
            and (index.get(r).section == number or index.get(r).section.startswith(number + "."))
            for r in check.requirements
        )
    return False


def select_only(
    checks: Iterable[Check], words: list[str], index: RequirementIndex, option: str = "--only"
) -> list[Check]:
    """The checks any of `words` selects; SelectionError names the words that select none."""
    pool = list(checks)
    empty = [w for w in words if not any(matches(c, w, index) for c in pool)]
    if empty:
        raise SelectionError(
            f"{option} {' '.join(empty)} selects no check in this tier; use a check id or prefix "
            "(see --list), a requirement ID (MB-WIRE-3), an ID prefix (MB-WIRE) or a spec "
            "section (section:3.1)"
        )
    return [c for c in pool if any(matches(c, w, index) for w in words)]


def read_only(checks: Iterable[Check]) -> tuple[list[Check], int]:
    """The checks that change nothing on the target, and how many others were left out."""
    pool = list(checks)
    kept = [c for c in pool if c.state is State.READ_ONLY]
    return kept, len(pool) - len(kept)


def plan(
    tier: str, only: list[str] | None, *, writes: bool = True, skip: list[str] | None = None
) -> tuple[list[Check], int]:
    """The checks a run of `tier` runs, and how many writing checks `writes=False` left out."""
    chosen = select(tier)
    if only:
        chosen = select_only(chosen, only, load_index())
    if skip:
        left_out = {c.id for c in select_only(chosen, skip, load_index(), "--skip")}
        chosen = [c for c in chosen if c.id not in left_out]
    if writes:
        return chosen, 0
    return read_only(chosen)
