"""A TLS row's origin is told the front end's https address as its public origin (MB-SUB-2)."""

from __future__ import annotations

from typing import Any

from mixbatch_conformance.intermediaries.real import _rows


def test_tls_row_origin_gets_the_front_end_https_origin(recorded: dict[str, list[Any]]) -> None:
    rows = _rows.rows_from(["nginx:h2", "nginx:recommended"])
    _rows.run_rows(rows, None, ["--seed", "1"], lambda argv: 0, say=lambda _m: None)
    (h2_variant, h2_used, h2_port), (plain_variant, plain_used, plain_port) = recorded["hops"]
    assert h2_variant == "h2"
    assert h2_port is not None
    # The shared origin (direct run, plain rows) has no public origin; the h2 row's own has.
    assert recorded["origins"] == [None, f"https://127.0.0.1:{h2_port}"]
    assert h2_used != plain_used
    assert plain_variant == "recommended"
    assert plain_port is None


def test_a_given_target_is_used_as_it_is(recorded: dict[str, list[Any]]) -> None:
    rows = _rows.rows_from(["nginx:h2"])
    _rows.run_rows(rows, "http://origin.test:8080", ["--seed", "1"], lambda a: 0, say=print)
    assert recorded["origins"] == []
    assert recorded["hops"] == [("h2", ["http://origin.test:8080"], None)]
