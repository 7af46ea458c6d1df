"""The smoke tier through real nginx (default) and haproxy (recommended) in front of the
reference server: the matrix runner, the probe and hop blame end to end. Skipped, with the
command that installs it, when a program is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mixbatch_conformance.cli import main
from mixbatch_conformance.intermediaries.real import INTERMEDIARIES, install_command

pytestmark = pytest.mark.slow


def _require(*names: str) -> None:
    for name in names:
        chosen = INTERMEDIARIES[name]
        if not chosen.installed():
            pytest.skip(f"{name} is not installed: {install_command(chosen)}")


def test_nginx_default_is_blamed_for_the_host_it_rewrites_and_haproxy_for_nothing(
    tmp_path: Path,
) -> None:
    _require("nginx", "haproxy")
    code = main(
        [
            "--via",
            "nginx:default,haproxy:recommended",
            "--tier",
            "smoke",
            "--seed",
            "7",
            "--report",
            str(tmp_path),
            "--no-progress",
            "--quiet",
            "--only",
            "MB-SUB-2",
            "MB-RESP-1",
        ]
    )
    assert code in (0, 1)
    matrix = json.loads((tmp_path / "matrix.json").read_text())
    rows = {(r["intermediary"], r["variant"]): r for r in matrix["rows"]}
    nginx, haproxy = rows["nginx", "default"], rows["haproxy", "recommended"]
    assert nginx["status"] == haproxy["status"] == "ran"
    # nginx sends the upstream's address as Host: a same-origin absolute target then names
    # another origin to the server, which refuses the batch (MB-SUB-2).
    assert nginx["observed"]["host_kept"] is False
    assert "vector-target-absolute-same-origin" in nginx["blamed"]
    blame = json.loads((tmp_path / "nginx-default" / "hop-blame.json").read_text())
    item = next(b for b in blame["blamed"] if b["check_id"] == "vector-target-absolute-same-origin")
    assert "host" in {c["name"] for c in item["request_changes"]}
    received = [s["origin_received"] for s in item["exchanges"] if s["origin_received"]]
    assert received
    assert (tmp_path / "nginx-default" / received[0]).read_bytes().startswith(b"POST /batch ")
    assert (tmp_path / "nginx-default" / "hop" / "nginx.conf").is_file()
    assert haproxy["observed"]["host_kept"] is True
    assert haproxy["blamed"] == []
