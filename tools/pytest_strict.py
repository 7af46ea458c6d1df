"""Run pytest and treat exit code 5 ("no tests collected") as a failure.

A test command that silently collects nothing is a broken test command, so CI must go red.
"""

from __future__ import annotations

import sys

import pytest

NO_TESTS_COLLECTED = int(pytest.ExitCode.NO_TESTS_COLLECTED)


def main(argv: list[str]) -> int:
    code = int(pytest.main(argv))
    if code == NO_TESTS_COLLECTED:
        print("pytest collected no tests: counted as a failure", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
