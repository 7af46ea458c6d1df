"""``mixbatch proxy``: option parsing, and a real process announcing its port and proxying."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from mixbatch.cli import build_parser
from mixbatch.cli._proxy import config_from_args, parse_limits

from ._harness import Sub, send_batch
from ._origin import RunningOrigin

ANNOUNCED = re.compile(r"mixbatch proxy listening on (http://\S+) -> (\S+)")


def test_parses_limits_named_as_in_the_capabilities_document() -> None:
    limits = parse_limits("max_parts=5, max_part_bytes=1024")
    assert (limits.max_parts, limits.max_part_bytes) == (5, 1024)


@pytest.mark.parametrize("text", ["max_parts", "nope=3", "max_parts=x", "max_parts=0"])
def test_rejects_malformed_limits_naming_the_member(text: str) -> None:
    with pytest.raises(ValueError, match=r"max_parts|nope"):
        parse_limits(text)


def test_builds_the_config_from_the_command_line() -> None:
    args = build_parser().parse_args(
        ["proxy", "--upstream", "http://127.0.0.1:9", "--timeout", "2.5", "--max-connections", "2"]
    )
    config = config_from_args(args)
    assert (config.upstream.authority, config.subrequest_timeout, config.max_connections) == (
        "127.0.0.1:9",
        2.5,
        2,
    )


def test_refuses_an_upstream_that_is_not_an_origin() -> None:
    args = build_parser().parse_args(["proxy", "--upstream", "http://127.0.0.1:9/base"])
    with pytest.raises(ValueError, match="origin"):
        config_from_args(args)


def test_runs_as_a_process_and_answers_a_batch(origin: RunningOrigin) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mixbatch", "proxy", "--upstream", origin.url, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = ANNOUNCED.search(line)
        assert found is not None, line
        assert found.group(2) == origin.url
        parts = send_batch(found.group(1), [Sub("GET", "/items/4"), Sub("GET", "/nope")]).parts
        assert [p.status for p in parts] == [200, 404]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
