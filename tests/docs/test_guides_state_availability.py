"""Guides say "not yet available" exactly while a feature they describe is missing from the CLI.

Two guides describe commands that other parts of the project are still building: the
`mixbatch proxy` subcommand and the suite's `--via` option. Each marks its section with a
"not yet available" admonition. This test asks the installed CLI: while the feature is
missing, the mark must be there (no guide promises what does not exist); once the feature
exists, the mark must go (no guide hides what does).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

import docs_cli

from .conftest import ROOT

MARK = "not yet available"


def _help(*argv: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "mixbatch", *argv, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def _proxy_command_exists() -> bool:
    return "proxy" in docs_cli.subcommands(_help())


def _via_option_exists() -> bool:
    # `--via` is dispatched before the suite's own parser, so its help does not list it; a
    # CLI without it rejects the option as unrecognised instead of asking for --target.
    proc = subprocess.run(
        [sys.executable, "-m", "mixbatch", "conformance", "--via", "passthrough"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return proc.returncode != 0 and "unrecognized arguments" not in proc.stderr


@pytest.mark.parametrize(
    ("guide", "feature_exists"),
    [
        ("docs/guides/proxy.md", _proxy_command_exists),
        ("docs/guides/test-your-server.md", _via_option_exists),
    ],
    ids=["mixbatch-proxy", "conformance-via"],
)
def test_guide_marks_a_feature_unavailable_only_while_it_is(
    guide: str, feature_exists: Callable[[], bool]
) -> None:
    marked = MARK in (ROOT / guide).read_text(encoding="utf-8").lower()
    if feature_exists():
        assert not marked, f"{guide} still says {MARK!r}, but the CLI now has the feature"
    else:
        assert marked, f"{guide} describes a feature the CLI lacks without saying {MARK!r}"
