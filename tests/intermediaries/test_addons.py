"""Every scenario addon run through mitmproxy's own test context (taddons, tflow).

Each test loads the addon, sets its options, feeds it a flow carrying a real batch written by
the codec, and checks what the addon did to the octets. Bad option values must be refused.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable

import pytest
from mitmproxy import exceptions, http
from mitmproxy.test import taddons, tflow

from mixbatch.codec import BatchParser, BatchWriter, IncompleteBatch, ResponsePartStart, Role
from mixbatch_conformance.intermediaries import (
    SCENARIOS,
    buffering,
    close_mid_part,
    drop_part,
    duplicate_part,
    gzip_coding,
    headers,
    http2_client,
    passthrough,
    rechunk,
    slow_drip,
    split_delimiter,
)
from mixbatch_conformance.intermediaries._slices import boundary_of, split_parts


def _batch(n: int = 3) -> tuple[str, bytes, str]:
    writer = BatchWriter()
    body = b"".join(
        writer.response_part(
            200, f"/items/{i}", [("Content-Type", "text/plain")], f"body {i}".encode()
        )
        for i in range(n)
    )
    return writer.content_type, body + writer.close(), writer.boundary


def _flow(n: int = 3) -> tuple[http.HTTPFlow, bytes]:
    flow = tflow.tflow(resp=True)
    content_type, body, _ = _batch(n)
    assert flow.response is not None
    flow.response.headers["content-type"] = content_type
    flow.response.content = body
    return flow, body


def _content_ids(content_type: str, body: bytes) -> list[str | None]:
    parser = BatchParser(boundary_of(content_type) or "", Role.RESPONSE)
    events = [*parser.feed(body), *parser.feed_eof()]
    return [e.content_id for e in events if isinstance(e, ResponsePartStart)]


def _streamed(stream: object, data: bytes) -> list[bytes]:
    assert callable(stream)
    pieces = stream(data)
    return [pieces] if isinstance(pieces, bytes) else list(pieces)  # type: ignore[arg-type]


def test_every_scenario_names_an_existing_addon_file() -> None:
    for entry in SCENARIOS.values():
        assert entry.path.is_file(), entry


def test_passthrough_leaves_the_batch_alone() -> None:
    addon = passthrough.Passthrough()
    with taddons.context(addon):
        flow, body = _flow()
        addon.response(flow)
        assert flow.response is not None
        assert flow.response.content == body
        assert addon.flows == 1


def test_headers_recases_reorders_and_adds_via_without_touching_content() -> None:
    addon = headers.Headers()
    with taddons.context(addon) as tctx:
        tctx.configure(addon, mb_header_case="lower")
        flow, body = _flow()
        flow.request.headers["X-A"] = "1"
        flow.request.headers["X-B"] = "2"
        addon.request(flow)
        addon.response(flow)
        names = [n for n, _ in flow.request.headers.fields]
        assert all(n == n.lower() for n in names)
        assert names.index(b"x-b") < names.index(b"x-a")
        assert flow.request.headers["via"] == headers.VIA
        assert "x-forwarded-proto" in flow.request.headers
        assert flow.response is not None
        assert flow.response.content == body
        with pytest.raises(exceptions.OptionsError):
            tctx.configure(addon, mb_header_case="sideways")


def test_rechunk_switches_between_length_and_chunked_framing() -> None:
    addon = rechunk.Rechunk()
    with taddons.context(addon) as tctx:
        flow, body = _flow()
        assert flow.response is not None
        tctx.configure(addon, mb_rechunk="to-chunked")
        addon.response(flow)
        assert flow.response.headers["transfer-encoding"] == "chunked"
        assert "content-length" not in flow.response.headers
        tctx.configure(addon, mb_rechunk="to-length")
        addon.response(flow)
        assert flow.response.headers["content-length"] == str(len(body))
        tctx.configure(addon, mb_rechunk="small-chunks", mb_chunk_size=7)
        addon.responseheaders(flow)
        pieces = _streamed(flow.response.stream, body)
        assert b"".join(pieces) == body
        assert max(len(p) for p in pieces) == 7
        with pytest.raises(exceptions.OptionsError):
            tctx.configure(addon, mb_chunk_size=0)


def test_gzip_codes_batch_responses_only() -> None:
    addon = gzip_coding.GzipCoding()
    with taddons.context(addon):
        flow, body = _flow()
        assert flow.response is not None
        addon.response(flow)
        assert flow.response.headers["content-encoding"] == "gzip"
        assert gzip.decompress(flow.response.raw_content or b"") == body
        plain = tflow.tflow(resp=True)
        assert plain.response is not None
        plain.response.headers["content-type"] = "text/plain"
        addon.response(plain)
        assert "content-encoding" not in plain.response.headers


def test_h2_addon_gives_an_h2_upload_a_content_length() -> None:
    addon = http2_client.Http2Client()
    with taddons.context(addon):
        flow = tflow.tflow()
        flow.request.http_version = "HTTP/2.0"
        flow.request.method = "POST"
        flow.request.headers.pop("content-length", None)
        flow.request.raw_content = b"x" * 11
        addon.request(flow)
        assert flow.request.headers["content-length"] == "11"


def test_buffering_sets_streaming_per_option() -> None:
    addon = buffering.Buffering()
    with taddons.context(addon) as tctx:
        flow, _ = _flow()
        assert flow.response is not None
        tctx.configure(addon, mb_buffering="stream")
        addon.requestheaders(flow)
        addon.responseheaders(flow)
        assert flow.request.stream is True
        assert flow.response.stream is True
        tctx.configure(addon, mb_buffering="whole")
        addon.responseheaders(flow)
        assert flow.response.stream is False
        with pytest.raises(exceptions.OptionsError):
            tctx.configure(addon, mb_buffering="sometimes")


def test_slow_drip_delivers_the_same_octets_in_small_pieces() -> None:
    addon = slow_drip.SlowDrip()
    with taddons.context(addon) as tctx:
        tctx.configure(addon, mb_drip_size=3, mb_drip_delay_ms=0)
        flow, body = _flow()
        assert flow.response is not None
        addon.responseheaders(flow)
        pieces = _streamed(flow.response.stream, body)
        assert b"".join(pieces) == body
        assert max(len(p) for p in pieces) == 3


def test_split_delimiter_cuts_every_delimiter_in_two() -> None:
    addon = split_delimiter.SplitDelimiter()
    with taddons.context(addon) as tctx:
        tctx.configure(addon, mb_split_pause_ms=0)
        flow, body = _flow(3)
        assert flow.response is not None
        boundary = boundary_of(flow.response.headers["content-type"]) or ""
        addon.responseheaders(flow)
        pieces = _streamed(flow.response.stream, body)
        assert b"".join(pieces) == body
        assert addon.splits == 4  # three part delimiters and the close delimiter
        assert not any(("--" + boundary).encode() in piece for piece in pieces)


def _tamper(addon: object, option: dict[str, int], n: int = 3) -> tuple[str, bytes]:
    with taddons.context(addon) as tctx:
        tctx.configure(addon, **option)
        flow, _ = _flow(n)
        assert flow.response is not None
        addon.response(flow)  # type: ignore[attr-defined]
        return flow.response.headers["content-type"], flow.response.raw_content or b""


def test_close_mid_part_leaves_an_incomplete_batch_framed_by_close() -> None:
    content_type, body = _tamper(close_mid_part.CloseMidPart(), {"mb_close_in_part": 1})
    parser = BatchParser(boundary_of(content_type) or "", Role.RESPONSE)
    parser.feed(body)
    with pytest.raises(IncompleteBatch) as caught:
        parser.feed_eof()
    assert caught.value.parts_complete == 1


def test_drop_part_removes_exactly_one_part() -> None:
    content_type, body = _tamper(drop_part.DropPart(), {"mb_drop_part": 1})
    assert _content_ids(content_type, body) == ["/items/0", "/items/2"]


def test_duplicate_part_repeats_exactly_one_part() -> None:
    content_type, body = _tamper(duplicate_part.DuplicatePart(), {"mb_duplicate_part": 0})
    assert _content_ids(content_type, body) == ["/items/0", "/items/0", "/items/1", "/items/2"]


@pytest.mark.parametrize(
    ("factory", "option"),
    [
        (close_mid_part.CloseMidPart, {"mb_close_in_part": -1}),
        (drop_part.DropPart, {"mb_drop_part": -1}),
        (duplicate_part.DuplicatePart, {"mb_duplicate_part": -2}),
        (slow_drip.SlowDrip, {"mb_drip_size": 0}),
        (split_delimiter.SplitDelimiter, {"mb_split_pause_ms": 9999}),
    ],
)
def test_fault_addons_refuse_bad_options(
    factory: Callable[[], object], option: dict[str, int]
) -> None:
    addon = factory()
    with taddons.context(addon) as tctx, pytest.raises(exceptions.OptionsError):
        tctx.configure(addon, **option)


def test_split_parts_finds_every_part_of_a_batch() -> None:
    _, body, boundary = _batch(5)
    head, parts, tail = split_parts(body, boundary)
    assert head == b""
    assert len(parts) == 5
    assert tail.startswith(f"--{boundary}--".encode())
    assert head + b"".join(parts) + tail == body
