"""Every request vector of spec/examples, sent to the server as a batch.

A valid vector is answered 200 with one response part per request part. An invalid one is
answered with the vector's status and a problem document naming the vector's requirement, part
index and byte offset, and none of its parts runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mixbatch.codec import Limits
from mixbatch.server import ServerConfig

from ._client import RunningServer, parse_batch

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
VECTORS = sorted(EXAMPLES.glob("*.request.json"))


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return document


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.name.removesuffix(".request.json"))
def test_server_answers_request_vector_as_spec_expects(make_server: Any, path: Path) -> None:
    vector = _load(path)
    context = vector["context"]
    limits = Limits(**vector.get("limits", {}))
    running: RunningServer = make_server(
        ServerConfig(port=0, batch_path=context["target"], limits=limits)
    )
    content = path.with_suffix(".http").read_bytes()
    with running.client() as http:
        http.send(
            "POST",
            context["target"],
            [("Host", context["authority"]), ("Content-Type", vector["content_type"])],
            content,
        )
        reply = http.receive()
    if vector["valid"]:
        assert reply.status == 200, reply.body[:500]
        assert len(parse_batch(reply)) == len(vector["expect"]["parts"])
        return
    error = vector["error"]
    assert reply.status == error["status"], reply.body
    problem = json.loads(reply.body)
    assert problem["requirement"] == error["requirement"]
    for key in ("part_index", "byte_offset"):
        if error.get(key) is not None:
            assert problem.get(key) == error[key], key
