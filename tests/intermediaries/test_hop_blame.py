"""Hop blame: checks failing only through a hop are put on the hop, with what it changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mixbatch_conformance.run.hop_blame import blame, write_hop_blame


def _report(**verdicts: str) -> dict[str, Any]:
    return {
        "results": [
            {
                "check_id": check.replace("_", "-"),
                "verdict": verdict,
                "message": f"{check} said {verdict}",
                "requirements": ["MB-SUB-2"],
            }
            for check, verdict in verdicts.items()
        ]
    }


def test_a_check_failing_only_through_the_hop_is_the_hops() -> None:
    direct = _report(a="PASS", b="FAIL", c="FAIL", d="PASS", e="PASS")
    hop = _report(a="FAIL", b="FAIL", c="PASS", d="N/A", e="PASS")
    result = blame(direct, hop, "nginx", "default")
    assert [b.check_id for b in result.blamed] == ["a"]
    assert result.both == ["b"]
    assert result.hidden == ["c"]
    assert result.not_through == ["d"]


def test_a_timeout_through_the_hop_counts_as_failing_there() -> None:
    result = blame(_report(a="PASS"), _report(a="TIMEOUT"), "varnish", "default")
    assert [(b.check_id, b.direct, b.through) for b in result.blamed] == [("a", "PASS", "TIMEOUT")]


BODY = b"--b\r\nHttp-Method: GET\r\nContent-Id: <http://127.0.0.1:8000/x>\r\n\r\n\r\n--b--"
CLIENT = (
    b"POST /batch HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: multipart/mixed; boundary=b"
    b"\r\nContent-Length: %d\r\n\r\n" % len(BODY)
) + BODY
ORIGIN = CLIENT.replace(b"Host: 127.0.0.1:8000", b"Host: 127.0.0.1:9000").replace(
    b"HTTP/1.1\r\n", b"HTTP/1.0\r\n", 1
)
ANSWER = b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\n\r\n{}"
RECEIVED = ANSWER.replace(b"\r\n\r\n", b"\r\nServer: nginx\r\n\r\n", 1)


def _folder(tmp_path: Path) -> Path:
    direct, hop = tmp_path / "direct", tmp_path / "nginx-default"
    direct.mkdir()
    (direct / "report.json").write_text(json.dumps(_report(absolute_target="PASS")))
    case = hop / "cases" / "absolute-target"
    case.mkdir(parents=True)
    (hop / "report.json").write_text(json.dumps(_report(absolute_target="FAIL")))
    (case / "request-0.http").write_bytes(CLIENT)
    (case / "request-0.body").write_bytes(BODY)
    (case / "response-0.http").write_bytes(RECEIVED)
    tap = tmp_path / "tap-0"
    tap.mkdir()
    # An earlier request on the same connection: the blamed one is the second.
    other = b"GET /books/1 HTTP/1.0\r\nHost: 127.0.0.1:9000\r\n\r\n"
    (tap / "conn-0.up").write_bytes(other + ORIGIN)
    (tap / "conn-0.down").write_bytes(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}" + ANSWER)
    hop_doc = {
        "intermediary": "nginx",
        "variant": "default",
        "version": "nginx/1.22.1",
        "direct_report": str(direct),
        "taps": [str(tap)],
    }
    (hop / "hop.json").write_text(json.dumps(hop_doc))
    return hop


def test_the_bytes_on_both_sides_of_the_hop_are_found_and_compared(tmp_path: Path) -> None:
    hop = _folder(tmp_path)
    result = write_hop_blame(hop)
    assert result is not None
    [item] = result.blamed
    [side] = item.exchanges
    assert side.origin_received is not None
    assert side.origin_sent is not None
    assert (hop / side.origin_received).read_bytes() == ORIGIN
    assert (hop / side.origin_sent).read_bytes() == ANSWER
    changed = {c.name: (c.before, c.after) for c in item.request_changes}
    assert changed == {"host": (["127.0.0.1:8000"], ["127.0.0.1:9000"])}
    assert [c.name for c in item.response_changes] == ["server"]
    page = (hop / "hop-blame.md").read_text()
    assert "`host` ['127.0.0.1:8000'] -> ['127.0.0.1:9000']" in page
    assert json.loads((hop / "hop-blame.json").read_text())["blamed"][0]["check_id"] == (
        "absolute-target"
    )


def test_a_report_without_a_hop_gets_no_blame(tmp_path: Path) -> None:
    (tmp_path / "report.json").write_text(json.dumps(_report(a="FAIL")))
    assert write_hop_blame(tmp_path) is None
    assert not (tmp_path / "hop-blame.json").exists()


def test_a_check_the_direct_run_lacks_is_not_put_on_the_hop() -> None:
    result = blame(_report(a="PASS"), _report(a="PASS", new_check="FAIL"), "apache", "default")
    assert result.blamed == []
    assert result.not_direct == ["new-check"]
