"""Atomic batches and references from the client: against the reference server on loopback, and
against endpoints that do not offer them (the ASGI middleware without a transaction hook, an app
without a batch endpoint), where the client refuses to fall back to standalone requests."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mixbatch.asgi import BatchMiddleware
from mixbatch.client import AsyncBatchClient, Batch, BatchClient, BatchRejected, SubRequest
from mixbatch.client._engine import BatchOptions

from ..asgi.app import make_app
from .servers import reference_server, uvicorn_server

BOOK = {"title": "Dune", "author": "Frank Herbert"}


@pytest.fixture(scope="module")
def reference_url() -> Iterator[str]:
    with reference_server() as url:
        yield url


def exists(client: BatchClient, target: str) -> int | None:
    return client.send(Batch().get(target))[0].status


def test_an_atomic_batch_that_commits_says_so(reference_url: str) -> None:
    with BatchClient(reference_url + "/batch") as client:
        result = client.send(
            Batch().post("/books", json=BOOK).post("/books", json=BOOK), atomic=True
        )
        assert result.outcome == "committed"
        assert [(r.status, r.rolled_back, r.skipped) for r in result] == [(201, False, False)] * 2
        for response in result:
            assert exists(client, response.headers.get("Location") or "") == 200


def test_an_atomic_batch_that_fails_reports_each_part_rolled_back_or_skipped(
    reference_url: str,
) -> None:
    with BatchClient(reference_url + "/batch") as client:
        batch = Batch().post("/books", json=BOOK).get("/books/999999").post("/books", json=BOOK)
        result = client.send(batch, atomic=True)
        assert result.outcome == "rolled-back"
        created, failed, later = result
        assert (created.status, created.rolled_back) == (201, True)
        assert (failed.status, failed.outcome) == (404, None)
        assert (later.status, later.skipped) == (None, True)
        assert result.summary.rolled_back == 1
        assert exists(client, created.headers.get("Location") or "") == 404


def test_a_batch_that_is_not_atomic_has_no_outcome(reference_url: str) -> None:
    with BatchClient(reference_url + "/batch") as client:
        assert client.send(Batch().get("/books/1")).outcome is None


def test_references_name_the_location_and_fields_of_an_earlier_part(reference_url: str) -> None:
    batch = Batch().post("/books", json=BOOK)
    patch = {"Content-Type": "application/merge-patch+json", "If-Match": batch.ref(0, "ETag")}
    batch.patch(batch.ref(0), headers=patch, body=b'{"year":1965}').get(batch.ref(0))
    assert batch.references
    with BatchClient(reference_url + "/batch") as client:
        result = client.send(batch, atomic=True)
        assert result.outcome == "committed"
        assert [r.status for r in result] == [201, 200, 200]
        assert result[2].json()["year"] == 1965
        assert result[2].content_id == "$(0)"


def test_a_reference_that_names_nothing_skips_its_part_with_the_reason(reference_url: str) -> None:
    batch = Batch().post("/books", json={"title": 5})
    batch.delete(batch.ref(0)).get("/books/1")
    with BatchClient(reference_url + "/batch") as client:
        result = client.send(batch)
    assert [r.status for r in result] == [422, None, 200]
    assert result[1].skipped
    assert result[1].json()["requirement"] == "MB-PROC-20"


def test_the_async_client_sends_atomic_batches_with_references(reference_url: str) -> None:
    async def main() -> None:
        async with AsyncBatchClient(reference_url + "/batch") as client:
            batch = Batch().post("/books", json=BOOK)
            batch.get(batch.ref(0)).get("/books/999999")
            result = await client.send(batch, atomic=True)
            assert result.outcome == "rolled-back"
            assert [(r.status, r.outcome) for r in result] == [
                (201, "rolled-back"),
                (200, "rolled-back"),
                (404, None),
            ]

    asyncio.run(main())


def test_the_batch_mode_lists_every_mode_asked_for() -> None:
    assert BatchOptions(atomic=True, references=True).modes == "atomic, references"
    assert BatchOptions(references=True).modes == "references"
    assert BatchOptions().modes is None


def test_a_reference_must_look_back() -> None:
    with pytest.raises(ValueError, match="earlier sub-request"):
        Batch().ref(0)
    batch = Batch().get("/books/1")
    with pytest.raises(ValueError, match="earlier sub-request"):
        batch.ref(1)
    with pytest.raises(ValueError, match="field name"):
        batch.ref(0, "Bad Name")
    batch.ref(0)
    # MB-PROC-19: a reference naming the part itself or a later one, or a field in a target.
    with pytest.raises(ValueError, match="does not come before it"):
        batch.get("/books", headers={"If-Match": "$(1:ETag)"})
    with pytest.raises(ValueError, match="only name a Location"):
        batch.get("/books/$(0:ETag)")
    with pytest.raises(ValueError, match="does not come before it"):
        Batch([SubRequest("GET", "$(0)")], references=True)
    # Without references, $( is text.
    assert not Batch([SubRequest("GET", "/x/$(0)")]).references


def test_an_endpoint_without_the_atomic_profile_refuses_and_nothing_runs_alone() -> None:
    app = BatchMiddleware(make_app())
    with uvicorn_server(app) as url, BatchClient(url + "/batch") as client:
        with pytest.raises(BatchRejected) as refused:
            client.send(Batch().post("/books", json=BOOK), atomic=True)
        assert refused.value.status == 501
        assert client.send(Batch().get("/books/3"))[0].status == 404


def test_an_atomic_batch_never_falls_back_to_standalone_requests() -> None:
    with uvicorn_server(make_app()) as url, BatchClient(url + "/batch") as client:
        batch = Batch().post("/books", json=BOOK)
        batch.get(batch.ref(0))
        for atomic in (True, False):
            with pytest.raises(BatchRejected) as refused:
                client.send(batch, atomic=atomic)
            assert refused.value.status == 404
        # The books app never saw the POST: the third book does not exist.
        assert client.send(Batch().get("/books/3"))[0].status == 404
