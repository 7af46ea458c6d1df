"""Atomic batches (spec §7.5) and references (§7.7) on the reference server's SQLite store."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from mixbatch.server import ServerConfig

from ._client import HttpClient, RunningServer, parse_batch, post_batch

JSON_FIELDS = [("Content-Type", "application/json")]
ATOMIC = [("Batch-Mode", "atomic")]


def book(title: str) -> bytes:
    return json.dumps({"title": title, "author": "A. Tester"}).encode()


def titles(client: HttpClient) -> list[str]:
    reply = client.request("GET", "/books", [("Accept", "application/json")])
    return [b["title"] for b in json.loads(reply.body)]


def test_a_committed_atomic_batch_applies_every_part(client: HttpClient) -> None:
    reply = post_batch(
        client,
        [("POST", "books", JSON_FIELDS, book("a1")), ("POST", "books", JSON_FIELDS, book("a2"))],
        ATOMIC,
    )
    parts = parse_batch(reply)
    assert [(p.status, p.outcome) for p in parts] == [(201, None), (201, None)]
    assert {"a1", "a2"} <= set(titles(client))


def test_a_failing_part_rolls_back_every_part_that_ran(client: HttpClient) -> None:
    before = titles(client)
    reply = post_batch(
        client,
        [
            ("POST", "books", JSON_FIELDS, book("r1")),
            ("DELETE", "books/1"),
            ("GET", "books/999999"),
            ("POST", "books", JSON_FIELDS, book("r2")),
        ],
        ATOMIC,
    )
    parts = parse_batch(reply)
    assert [(p.status, p.outcome) for p in parts] == [
        (201, "rolled-back"),
        (204, "rolled-back"),
        (404, None),
        (None, "skipped"),
    ]
    assert titles(client) == before
    assert client.request("GET", "/books/1").status == 200
    # The store still takes writes after a rollback.
    assert client.request("POST", "/books", JSON_FIELDS, book("after")).status == 201


def test_a_non_atomic_batch_keeps_what_ran(client: HttpClient) -> None:
    reply = post_batch(
        client,
        [("POST", "books", JSON_FIELDS, book("n1")), ("GET", "books/999999")],
        [("Prefer", "batch-on-error=stop")],
    )
    assert [p.status for p in parse_batch(reply)] == [201, 404]
    assert "n1" in titles(client)


def test_a_concurrent_reader_never_sees_part_of_an_atomic_batch(
    server: RunningServer, client: HttpClient
) -> None:
    first = client.request("POST", "/books", JSON_FIELDS, book("x-old")).header("Location")
    second = client.request("POST", "/books", JSON_FIELDS, book("x-old")).header("Location")
    assert first
    assert second
    seen: list[tuple[str, str]] = []
    done = threading.Event()

    def read() -> None:
        with server.client() as reader:
            while not done.is_set():
                a = json.loads(reader.request("GET", first).body)["title"]
                b = json.loads(reader.request("GET", second).body)["title"]
                seen.append((a, b))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        reply = post_batch(
            client,
            [
                ("PUT", first.lstrip("/"), JSON_FIELDS, book("x-new")),
                ("GET", "delay/150"),
                ("PUT", second.lstrip("/"), JSON_FIELDS, book("x-new")),
            ],
            ATOMIC,
        )
    finally:
        time.sleep(0.05)
        done.set()
        thread.join(5)
    assert [p.status for p in parse_batch(reply)] == [200, 200, 200]
    # Read in order first, then second: "new, old" would mean the first write was visible
    # before the batch committed.
    assert ("x-new", "x-old") not in seen
    assert ("x-old", "x-old") in seen
    assert seen[-1] == ("x-new", "x-new")


def test_references_name_the_created_book_and_its_etag(client: HttpClient) -> None:
    patch = [("Content-Type", "application/merge-patch+json"), ("If-Match", "$(0:ETag)")]
    reply = post_batch(
        client,
        [
            ("POST", "books", JSON_FIELDS, book("ref")),
            ("PATCH", "$(0)", patch, b'{"year":2001}'),
            ("GET", "$(0)"),
        ],
        [("Batch-Mode", "atomic, references")],
    )
    parts = parse_batch(reply)
    assert [(p.status, p.outcome) for p in parts] == [(201, None), (200, None), (200, None)]
    assert [p.content_id for p in parts] == ["books", "$(0)", "$(0)"]
    created = json.loads(parts[0].body)["id"]
    assert json.loads(parts[2].body) == {**json.loads(parts[0].body), "year": 2001}
    assert json.loads(client.request("GET", f"/books/{created}").body)["year"] == 2001


def test_a_reference_to_a_failed_part_skips_its_dependants_only(client: HttpClient) -> None:
    reply = post_batch(
        client,
        [
            ("POST", "books", JSON_FIELDS, b'{"title": 5}'),
            ("DELETE", "$(0)"),
            ("GET", "$(1)"),
            ("GET", "books/1"),
        ],
        [("Batch-Mode", "references")],
    )
    parts = parse_batch(reply)
    assert [(p.status, p.outcome) for p in parts] == [
        (422, None),
        (None, "skipped"),
        (None, "skipped"),
        (200, None),
    ]
    problem = json.loads(parts[1].body)
    assert problem["requirement"] == "MB-PROC-20"
    assert problem["reference"] == "$(0)"


def test_an_unresolved_reference_rolls_an_atomic_batch_back(client: HttpClient) -> None:
    before = titles(client)
    reply = post_batch(
        client,
        [("POST", "books", JSON_FIELDS, book("u1")), ("GET", "books/1"), ("DELETE", "$(1)")],
        [("Batch-Mode", "references,atomic")],
    )
    parts = parse_batch(reply)
    assert [(p.status, p.outcome) for p in parts] == [
        (201, "rolled-back"),
        (200, "rolled-back"),
        (None, "skipped"),
    ]
    assert titles(client) == before


def test_a_forward_reference_is_400_before_anything_runs(client: HttpClient) -> None:
    before = titles(client)
    reply = post_batch(
        client,
        [("POST", "books", JSON_FIELDS, book("f1")), ("GET", "$(1)")],
        [("Batch-Mode", "references")],
    )
    assert reply.status == 400
    assert json.loads(reply.body)["requirement"] == "MB-PROC-19"
    assert titles(client) == before


def test_without_the_references_mode_a_reference_is_text(client: HttpClient) -> None:
    reply = post_batch(client, [("POST", "books", JSON_FIELDS, book("t")), ("GET", "echo?q=$(0)")])
    parts = parse_batch(reply)
    assert json.loads(parts[1].body)["target"] == "/echo?q=$(0)"


def test_the_books_survive_a_restart_on_the_same_data_dir(
    make_server: Callable[..., RunningServer], tmp_path: Path
) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, data_dir=str(tmp_path))
    first = make_server(config)
    with first.client() as client:
        location = client.request("POST", "/books", JSON_FIELDS, book("kept")).header("Location")
    first.stop()
    with make_server(config).client() as client:
        assert location is not None
        assert json.loads(client.request("GET", location).body)["title"] == "kept"
        assert titles(client).count("The Mythical Man-Month") == 1


def test_the_json_form_reports_an_atomic_rollback_too(client: HttpClient) -> None:
    reply = post_batch(
        client,
        [("POST", "books", JSON_FIELDS, book("j1")), ("GET", "books/999999")],
        [*ATOMIC, ("Accept", "application/vnd.mixbatch.multistatus+json")],
    )
    assert reply.status == 207
    entries = json.loads(reply.body)["responses"]
    assert [(e.get("status"), e.get("outcome")) for e in entries] == [
        (201, "rolled-back"),
        (404, None),
    ]
    assert "j1" not in titles(client)


def test_an_atomic_batch_that_times_out_waiting_for_the_lock_does_not_keep_it(
    make_server: Callable[..., RunningServer], tmp_path: Path
) -> None:
    server = make_server(
        ServerConfig(host="127.0.0.1", port=0, data_dir=str(tmp_path), batch_timeout=0.5)
    )
    holder = sqlite3.connect(tmp_path / "mixbatch.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with server.client() as client:
            reply = post_batch(client, [("POST", "books", JSON_FIELDS, book("w"))], ATOMIC)
        parts = parse_batch(reply)
        assert [p.outcome for p in parts] == ["aborted"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    time.sleep(0.2)
    # The batch's transaction got the lock once it was free, after the batch had given up:
    # it must have let it go again.
    with server.client() as client:
        assert client.request("POST", "/books", JSON_FIELDS, book("after")).status == 201


def test_a_rolled_back_location_never_names_a_later_book(client: HttpClient) -> None:
    reply = post_batch(
        client, [("POST", "books", JSON_FIELDS, book("gone")), ("GET", "books/999999")], ATOMIC
    )
    rolled_back = parse_batch(reply)[0].header("Location")
    assert rolled_back is not None
    later = client.request("POST", "/books", JSON_FIELDS, book("later")).header("Location")
    assert later != rolled_back
    assert client.request("GET", rolled_back).status == 404
