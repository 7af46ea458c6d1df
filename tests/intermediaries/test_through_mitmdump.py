"""A real batch through a real mitmdump in front of the reference server, per scenario.

Octets in, parts out: the batch goes through mitmdump with the scenario's addon, and the answer
must hold one part per request part, in order (Content-Id echo), with the statuses the parts
asked of /status. The gzip scenario's answer is decoded first (MB-INTER-2). The close-mid-part
fault must reach the client as an incomplete batch (MB-WIRE-14).
"""

from __future__ import annotations

import gzip

import httpx
import pytest

from mixbatch.codec import BatchParser, IncompleteBatch, ResponsePartStart, Role
from mixbatch.codec import parse_batch_content_type as boundary_of
from mixbatch_conformance.intermediaries._launcher import start_mitmdump
from tests.proxy._harness import RunningReference, Sub, encode_batch

SUBS = [Sub("GET", f"/status/{200 + n % 7}") for n in range(25)]


def _through(reference: RunningReference, name: str) -> tuple[httpx.Response, bytes]:
    content_type, data = encode_batch(SUBS)
    with (
        start_mitmdump(reference.url, name) as via,
        httpx.Client(timeout=20) as client,
        client.stream(
            "POST", via + "/batch", content=data, headers={"Content-Type": content_type}
        ) as response,
    ):
        raw = b"".join(response.iter_raw())
    if response.headers.get("content-encoding") == "gzip":
        raw = gzip.decompress(raw)
    return response, raw


@pytest.mark.parametrize("name", ["passthrough", "headers", "rechunk", "gzip"])
def test_a_batch_keeps_its_parts_and_their_order_through(
    reference: RunningReference, name: str
) -> None:
    response, content = _through(reference, name)
    assert response.status_code == 200
    parser = BatchParser(boundary_of(response.headers["content-type"]), Role.RESPONSE)
    events = [*parser.feed(content), *parser.feed_eof()]
    starts = [e for e in events if isinstance(e, ResponsePartStart)]
    assert [s.content_id for s in starts] == [s.target for s in SUBS]
    assert [s.status for s in starts] == [200 + n % 7 for n in range(25)]
    if name == "gzip":
        assert response.headers["content-encoding"] == "gzip"


def test_close_mid_part_reaches_the_client_as_an_incomplete_batch(
    reference: RunningReference,
) -> None:
    response, content = _through(reference, "close-mid-part")
    parser = BatchParser(boundary_of(response.headers["content-type"]), Role.RESPONSE)
    parser.feed(content)
    with pytest.raises(IncompleteBatch):
        parser.feed_eof()
