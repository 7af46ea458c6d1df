"""Atomic batches and references through BatchMiddleware, over the sqlite3 app of sqlite_app.py.

What the parts say is checked against what a standalone GET sees afterwards, so an answer that
looks atomic but left writes behind is caught.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mixbatch.asgi import BatchMiddleware
from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    PartData,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)

from .sqlite_app import Notes, make_app, make_batched_app

Part = tuple[int | None, str | None, dict[str, str], bytes]
NOTE = [("Content-Type", "application/json")]


def envelope(*parts: tuple[str, str, list[tuple[str, str]], bytes]) -> tuple[dict[str, str], bytes]:
    writer = BatchWriter()
    content = b"".join(writer.request_part(m, t, f, b) for m, t, f, b in parts) + writer.close()
    return {"Content-Type": writer.content_type}, content


def note(text: str) -> bytes:
    return json.dumps({"text": text}).encode()


def parts_of(response: httpx.Response) -> list[Part]:
    assert response.status_code == 200, response.text
    parser = BatchParser(parse_batch_content_type(response.headers["content-type"]), Role.RESPONSE)
    out: list[Part] = []
    for event in parser.feed(response.content) + parser.feed_eof():
        if isinstance(event, ResponsePartStart):
            fields = {k.lower(): v for k, v in event.fields}
            if event.content_id is not None:
                fields["content-id"] = event.content_id
            out.append((event.status, event.outcome, fields, b""))
        elif isinstance(event, PartData):
            status, outcome, fields, body = out[-1]
            out[-1] = (status, outcome, fields, body + bytes(event.data))
    return out


@contextlib.asynccontextmanager
async def client(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


def run(app: Any, scenario: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
    async def main() -> None:
        async with client(app) as c:
            await scenario(c)

    asyncio.run(main())


async def post_batch(
    c: httpx.AsyncClient, *parts: tuple[str, str, list[tuple[str, str]], bytes], mode: str
) -> httpx.Response:
    headers, body = envelope(*parts)
    return await c.post("/batch", headers=headers | {"Batch-Mode": mode}, content=body)


@pytest.fixture
def batched(tmp_path: Path) -> tuple[BatchMiddleware, Notes]:
    return make_batched_app(tmp_path / "notes.db")


def test_the_capabilities_list_atomic_only_with_a_transaction_hook(tmp_path: Path) -> None:
    notes = Notes(tmp_path / "notes.db")

    async def profiles(app: Any) -> list[str]:
        async with client(app) as c:
            return list((await c.options("/batch")).json()["profiles"])

    with_hook = asyncio.run(
        profiles(BatchMiddleware(make_app(notes), transaction=notes.transaction))
    )
    without = asyncio.run(profiles(BatchMiddleware(make_app(notes))))
    assert {"atomic", "references"} <= set(with_hook)
    assert "atomic" not in without
    assert "references" in without


def test_an_atomic_batch_that_succeeds_commits_every_part(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("POST", "/notes", NOTE, note("a")),
            ("POST", "/notes", NOTE, note("b")),
            mode="atomic",
        )
        parts = parts_of(response)
        # MB-PROC-16: a committed atomic batch has no part carrying Batch-Outcome.
        assert [(p[0], p[1]) for p in parts] == [(201, None), (201, None)]
        for part in parts:
            assert (await c.get(part[2]["location"])).status_code == 200

    run(batched[0], scenario)


def test_a_failing_part_rolls_back_every_part_of_an_atomic_batch(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        before = (await c.get("/notes")).json()
        response = await post_batch(
            c,
            ("POST", "/notes", NOTE, note("kept?")),
            ("PUT", "/notes/7", NOTE, note("kept?")),
            ("GET", "/notes/999", [], b""),
            ("POST", "/notes", NOTE, note("never")),
            mode="atomic",
        )
        parts = parts_of(response)
        # MB-PROC-8: rolled-back with real statuses, the failing part unmarked, later skipped.
        assert [(p[0], p[1]) for p in parts] == [
            (201, "rolled-back"),
            (200, "rolled-back"),
            (404, None),
            (None, "skipped"),
        ]
        assert (await c.get(parts[0][2]["location"])).status_code == 404
        assert (await c.get("/notes/7")).status_code == 404
        assert (await c.get("/notes")).json() == before

    run(batched[0], scenario)


def test_a_reader_during_an_atomic_batch_sees_the_state_before_it(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        batch = asyncio.create_task(
            post_batch(
                c,
                ("PUT", "/notes/1", NOTE, note("first")),
                ("GET", "/sleep/300", [], b""),
                ("PUT", "/notes/2", NOTE, note("second")),
                mode="atomic",
            )
        )
        await asyncio.sleep(0.1)
        # MB-PROC-15: no other request observes some parts of an atomic batch without all.
        during = await c.get("/notes/1")
        assert during.status_code == 404
        assert not batch.done()
        assert [p[1] for p in parts_of(await batch)] == [None, None, None]
        assert (await c.get("/notes/1")).json()["text"] == "first"
        assert (await c.get("/notes/2")).json()["text"] == "second"

    run(batched[0], scenario)


def test_a_standalone_write_waits_for_the_atomic_batch_and_is_kept(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        batch = asyncio.create_task(
            post_batch(
                c,
                ("PUT", "/notes/1", NOTE, note("batch")),
                ("GET", "/sleep/200", [], b""),
                mode="atomic",
            )
        )
        await asyncio.sleep(0.05)
        alone = await c.put("/notes/2", content=note("alone"))
        assert alone.status_code == 200
        await batch
        assert (await c.get("/notes/2")).json()["text"] == "alone"
        assert (await c.get("/notes/1")).json()["text"] == "batch"

    run(batched[0], scenario)


def test_an_atomic_batch_past_its_time_limit_rolls_back_and_ends_with_the_abort_part(
    tmp_path: Path,
) -> None:
    app, _ = make_batched_app(tmp_path / "notes.db", batch_timeout=0.2)

    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("POST", "/notes", NOTE, note("undone")),
            ("GET", "/sleep/2000", [], b""),
            ("POST", "/notes", NOTE, note("never")),
            mode="atomic",
        )
        parts = parts_of(response)
        # MB-PROC-14: parts that ran rolled-back, then the abort part naming the first that
        # did not run.
        assert [(p[0], p[1]) for p in parts] == [(201, "rolled-back"), (None, "aborted")]
        problem = json.loads(parts[1][3])
        assert (problem["status"], problem["part_index"]) == (503, 1)
        assert (await c.get(parts[0][2]["location"])).status_code == 404

    run(app, scenario)


def test_a_transaction_that_fails_to_commit_ends_the_batch_with_a_500_abort(tmp_path: Path) -> None:
    notes = Notes(tmp_path / "notes.db")

    @contextlib.asynccontextmanager
    async def failing_commit() -> AsyncIterator[None]:
        async with notes.transaction():
            yield
            raise RuntimeError("the commit failed")

    app = BatchMiddleware(make_app(notes), transaction=failing_commit)

    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("PUT", "/notes/1", NOTE, note("a")),
            ("PUT", "/notes/2", NOTE, note("b")),
            mode="atomic",
        )
        parts = parts_of(response)
        assert [(p[0], p[1]) for p in parts] == [(200, "rolled-back"), (None, "aborted")]
        assert json.loads(parts[1][3])["status"] == 500
        assert (await c.get("/notes")).json() == []

    run(app, scenario)


def test_references_name_what_an_earlier_part_created(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("POST", "/notes", NOTE, note("draft")),
            ("PUT", "$(0)", NOTE, note("final")),
            ("GET", "$(0)", [("X-Seen-Etag", "$(1:ETag)")], b""),
            mode="atomic, references",
        )
        parts = parts_of(response)
        assert [(p[0], p[1]) for p in parts] == [(201, None), (200, None), (200, None)]
        location = parts[0][2]["location"]
        assert json.loads(parts[2][3])["text"] == "final"
        # MB-RESP-3: the Content-Id is echoed as written, reference and all.
        assert parts[1][2]["content-id"] == "$(0)"
        assert (await c.get(location)).json()["text"] == "final"

    run(batched[0], scenario)


def test_an_unresolved_reference_skips_its_part_with_a_problem_and_the_batch_goes_on(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("POST", "/notes", [], b"not json"),
            ("DELETE", "$(0)", [], b""),
            ("POST", "/notes", NOTE, note("independent")),
            mode="references",
        )
        parts = parts_of(response)
        assert [(p[0], p[1]) for p in parts] == [(422, None), (None, "skipped"), (201, None)]
        problem = json.loads(parts[1][3])
        assert parts[1][2]["content-type"] == "application/problem+json"
        assert (problem["requirement"], problem["reference"]) == ("MB-PROC-20", "$(0)")

    run(batched[0], scenario)


def test_an_unresolved_reference_leaves_an_atomic_batch_uncommitted(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("POST", "/notes", NOTE, note("undone")),
            ("GET", "/notes", [], b""),
            ("DELETE", "$(1)", [], b""),
            ("GET", "/notes", [], b""),
            mode="atomic, references",
        )
        parts = parts_of(response)
        # MB-PROC-21: the GET of the collection has no Location, so $(1) names nothing.
        assert [(p[0], p[1]) for p in parts] == [
            (201, "rolled-back"),
            (200, "rolled-back"),
            (None, "skipped"),
            (None, "skipped"),
        ]
        assert json.loads(parts[2][3])["requirement"] == "MB-PROC-20"
        assert (await c.get("/notes")).json() == []

    run(batched[0], scenario)


@pytest.mark.parametrize(
    ("target", "fields"),
    [("$(1)", []), ("$(5)", []), ("/notes", [("If-Match", "$(2:ETag)")]), ("/notes/$(0:ETag)", [])],
)
def test_a_reference_that_does_not_look_back_is_a_400_before_anything_runs(
    batched: tuple[BatchMiddleware, Notes], target: str, fields: list[tuple[str, str]]
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(
            c,
            ("POST", "/notes", NOTE, note("never")),
            ("PUT", target, NOTE + fields, note("never")),
            mode="references",
        )
        assert response.status_code == 400
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["requirement"] == "MB-PROC-19"
        assert (await c.get("/notes")).json() == []

    run(batched[0], scenario)


def test_without_the_references_mode_a_reference_is_text(
    batched: tuple[BatchMiddleware, Notes],
) -> None:
    async def scenario(c: httpx.AsyncClient) -> None:
        headers, body = envelope(
            ("POST", "/notes", NOTE, note("x")), ("GET", "/notes/$(0)", [], b"")
        )
        parts = parts_of(await c.post("/batch", headers=headers, content=body))
        # MB-PROC-18: "in a batch whose Batch-Mode does not list references, $( has no special
        # meaning": the app sees the literal path and answers 404.
        assert [p[0] for p in parts] == [201, 404]

    run(batched[0], scenario)


def test_without_a_transaction_hook_atomic_is_a_501_problem(tmp_path: Path) -> None:
    app = BatchMiddleware(make_app(Notes(tmp_path / "notes.db")))

    async def scenario(c: httpx.AsyncClient) -> None:
        response = await post_batch(c, ("POST", "/notes", NOTE, note("never")), mode="atomic")
        assert response.status_code == 501
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["requirement"] == "MB-PROC-7"
        assert (await c.get("/notes")).json() == []

    run(app, scenario)


def test_the_transaction_argument_is_checked() -> None:
    with pytest.raises(ValueError, match="transaction"):
        BatchMiddleware(make_app(Notes.__new__(Notes)), transaction="begin")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="atomic"):
        BatchMiddleware(make_app(Notes.__new__(Notes)), profiles=["atomic"])
