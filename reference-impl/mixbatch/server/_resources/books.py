"""``/books`` and ``/books/{id}``: a small collection with validators and conditional requests.

Each book is a JSON object ``{"id", "title", "author", "year"}``. Its strong ETag is a hash of
its exact representation (a strong validator must change whenever the octets do: RFC 9110
§8.8.3), and its Last-Modified is the whole second of its last change, from an injectable clock
so that tests can fix time. Every read and write goes through ``evaluate`` (RFC 9110 §13.2.2)
after the existence check, so 304 and 412 come out exactly as the RFC orders them.

The books live in the server's SQLite store (``_store``): each handler does its reads, the
precondition and the write as one function of a connection, run as one transaction off the event
loop, so a conditional write cannot race another writer, and inside an atomic batch the same
function joins the batch's transaction. Ids come from AUTOINCREMENT, and the store puts back
the counter a rolled-back atomic batch advanced, so no id is handed out twice: not after a
restart, not by another process on the data file, and not after a rollback whose answer named
the id in a ``rolled-back`` part's Location.

``GET /books`` answers ``application/json`` (a list) or, when Accept prefers it,
``multipart/mixed`` with one part per book (``_collection``); both carry ``Vary: Accept``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mixbatch._http.conditional import Validators, evaluate, format_http_date
from mixbatch._http.messages import Request, Response
from mixbatch._http.negotiation import accept_of, choose
from mixbatch._http.problems import problem

from .. import _collection
from .._router import Route
from .._store import Store, StoreBusy

__all__ = ["MAX_BOOK_BYTES", "SEED_BOOKS", "Book", "BookStore", "routes"]

#: A book is a few short strings; 64 KiB leaves room and refuses anything that is not a book.
MAX_BOOK_BYTES = 64 * 1024
JSON_TYPE = "application/json"
MERGE_PATCH_TYPE = "application/merge-patch+json"
#: The store starts with these, so that /books/1 exists on a fresh server.
SEED_BOOKS: tuple[dict[str, Any], ...] = (
    {"title": "The Mythical Man-Month", "author": "Frederick P. Brooks Jr.", "year": 1975},
    {"title": "The Art of Computer Programming, Vol. 1", "author": "Donald E. Knuth", "year": 1968},
    {"title": "Weaving the Web", "author": "Tim Berners-Lee", "year": 1999},
)
#: Seconds between the seed books' Last-Modified dates, the first one seeded being the newest.
SEED_SPACING_S = 60
_FIELDS = {"title": str, "author": str, "year": int}
#: The precondition fields (RFC 9110 §13.1) a POST to the collection is evaluated for.
_CONDITIONAL = ("If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since")


@dataclass(frozen=True, slots=True)
class Book:
    """One stored book with its representation and validators."""

    id: int
    data: Mapping[str, Any]
    body: bytes
    validators: Validators

    @property
    def path(self) -> str:
        return f"/books/{self.id}"


def _etag(data: bytes) -> str:
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


_SCHEMA = """
CREATE TABLE IF NOT EXISTS books (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    body BLOB NOT NULL,
    etag TEXT NOT NULL,
    modified REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seeded (done INTEGER NOT NULL)
"""


class BookStore:
    """Books in the SQLite store, keyed by id; an id is never handed out twice.

    The methods taking ``conn`` run inside a transaction ``Store`` opened; the others are
    blocking conveniences for set-up and tests.
    """

    def __init__(
        self, clock: Callable[[], float], seed: bool = True, data_dir: str | None = None
    ) -> None:
        self._clock = clock
        self._seed = seed
        self.db = Store(data_dir, self._create_schema)

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        for statement in _SCHEMA.split(";"):
            conn.execute(statement)
        # The seed books go in once per data file, whichever process opens it first.
        if conn.execute("SELECT count(*) FROM seeded").fetchone()[0] == 0:
            conn.execute("INSERT INTO seeded VALUES (1)")
            if self._seed:
                # Each seed book SEED_SPACING_S older than the one before it, /books/1 dated
                # now: the members of the collection differ in date as well as in tag, and the
                # aggregate Last-Modified (MB-METHOD-5) is the latest of several.
                now = int(self._clock())
                for age, data in enumerate(SEED_BOOKS):
                    self.create_in(conn, dict(data), modified=float(now - age * SEED_SPACING_S))

    def _make(self, book_id: int, data: Mapping[str, Any], modified: float | None = None) -> Book:
        record = {"id": book_id, **{k: data.get(k) for k in _FIELDS}}
        body = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        when = float(int(self._clock())) if modified is None else modified
        return Book(book_id, record, body, Validators(_etag(body), when))

    @staticmethod
    def _row(row: tuple[int, bytes, str, float]) -> Book:
        body = bytes(row[1])
        return Book(row[0], json.loads(body), body, Validators(row[2], row[3]))

    def get_in(self, conn: sqlite3.Connection, book_id: int) -> Book | None:
        row = conn.execute(
            "SELECT id, body, etag, modified FROM books WHERE id = ?", (book_id,)
        ).fetchone()
        return None if row is None else self._row(row)

    def all_in(self, conn: sqlite3.Connection) -> list[Book]:
        rows = conn.execute("SELECT id, body, etag, modified FROM books ORDER BY id").fetchall()
        return [self._row(row) for row in rows]

    def _store(self, conn: sqlite3.Connection, book: Book) -> Book:
        conn.execute(
            "INSERT OR REPLACE INTO books (id, body, etag, modified) VALUES (?, ?, ?, ?)",
            (book.id, book.body, book.validators.etag, book.validators.last_modified),
        )
        return book

    def create_in(
        self, conn: sqlite3.Connection, data: Mapping[str, Any], modified: float | None = None
    ) -> Book:
        # The row first, for its id; then the representation, which holds the id.
        cursor = conn.execute("INSERT INTO books (body, etag, modified) VALUES (x'', '', 0)")
        book_id = cursor.lastrowid
        assert book_id is not None
        return self._store(conn, self._make(book_id, data, modified))

    def replace_in(self, conn: sqlite3.Connection, book_id: int, data: Mapping[str, Any]) -> Book:
        return self._store(conn, self._make(book_id, data))

    def delete_in(self, conn: sqlite3.Connection, book_id: int) -> None:
        conn.execute("DELETE FROM books WHERE id = ?", (book_id,))

    def get(self, book_id: int) -> Book | None:
        return self.db.write_now(lambda conn: self.get_in(conn, book_id))

    def all(self) -> list[Book]:
        return self.db.write_now(self.all_in)

    def create(self, data: Mapping[str, Any]) -> Book:
        return self.db.write_now(lambda conn: self.create_in(conn, data))

    def replace(self, book_id: int, data: Mapping[str, Any]) -> Book:
        return self.db.write_now(lambda conn: self.replace_in(conn, book_id, data))

    def delete(self, book_id: int) -> None:
        self.db.write_now(lambda conn: self.delete_in(conn, book_id))


def _validate(document: Any, *, partial: bool) -> str | None:
    """Why ``document`` is not a (partial) book, or ``None`` if it is one."""
    if not isinstance(document, dict):
        return "a book is a JSON object"
    unknown = sorted(set(document) - set(_FIELDS) - {"id"})
    if unknown:
        return f"unknown members {unknown}"
    for name, kind in _FIELDS.items():
        if name not in document:
            if not partial and name != "year":
                return f"missing member {name!r}"
            continue
        value = document[name]
        if name == "year" and value is None:
            continue
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"member {name!r} must be a {kind.__name__}, got {value!r}"
    return None


def _members(books: Sequence[Book]) -> list[_collection.Member]:
    """The books as the members of a collection retrieval."""
    return [
        _collection.Member(book.path, book.validators, _book_headers(book), book.body)
        for book in books
    ]


def _listing(books: Sequence[Book]) -> bytes:
    """The JSON representation of the collection: the books in a list."""
    return b"[" + b",".join(book.body for book in books) + b"]"


def _collection_validators(books: Sequence[Book], chosen: str | None, now: float) -> Validators:
    """The validators of the representation of ``/books`` that ``chosen`` names: the
    collection retrieval's aggregate ETag for ``multipart/mixed``, the JSON list's otherwise;
    its Last-Modified is the latest book's (now, for a collection without books)."""
    modified = max((b.validators.last_modified for b in books), default=float(int(now)))
    if chosen == _collection.MEDIA_TYPE:
        return Validators(_collection.aggregate_etag(_members(books)), modified)
    return Validators(_etag(_listing(books)), modified)


def _book_headers(book: Book) -> list[tuple[str, str]]:
    return [
        ("Content-Type", JSON_TYPE),
        ("ETag", book.validators.etag),
        ("Last-Modified", format_http_date(book.validators.last_modified)),
    ]


def _not_modified(etag: str, extra: list[tuple[str, str]] | None = None) -> Response:
    # RFC 9110 §15.4.5: a 304 carries the ETag (and Vary) a 200 would have carried.
    return Response(304, [("ETag", etag), *(extra or [])])


def _precondition_failed(request: Request) -> Response:
    return problem(
        412, "precondition-failed", f"a precondition of {request.method} {request.path} is false"
    )


async def _has_content(request: Request) -> bool:
    if request.body.length is not None:
        return request.body.length > 0
    data = await request.body.read(MAX_BOOK_BYTES)
    return bool(data)


async def _read_document(request: Request, media_types: tuple[str, ...]) -> Any | Response:
    content_type = (request.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if content_type not in media_types:
        return problem(
            415,
            "unsupported-media-type",
            f"expected {' or '.join(media_types)}, got {content_type or 'no Content-Type'}",
            headers=[("Accept-Patch", MERGE_PATCH_TYPE)] if MERGE_PATCH_TYPE in media_types else [],
        )
    raw = await request.body.read(MAX_BOOK_BYTES)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return problem(400, "invalid-json", f"the content is not JSON: {exc}")


def _busy(exc: StoreBusy) -> Response:
    # Another transaction (an atomic batch, another process) held the write lock too long.
    return problem(
        503,
        "store-busy",
        f"the store stayed locked by another writer: {exc}",
        headers=[("Retry-After", "1")],
    )


def _book_id(params: Mapping[str, str]) -> int | None:
    raw = params["id"]
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


def routes(store: BookStore, clock: Callable[[], float]) -> list[Route]:
    """The routes of the books collection and its members, bound to ``store``."""

    def missing(request: Request) -> Response:
        return problem(404, "not-found", f"no book at {request.path!r}")

    async def list_books(request: Request, params: Mapping[str, str]) -> Response:
        if await _has_content(request):
            # MB-METHOD-3: "A server rejects a GET batch or collection retrieval that has
            # content with 400."
            return problem(
                400,
                "get-with-content",
                "a collection retrieval carries no content",
                requirement="MB-METHOD-3",
            )
        books = await store.db.read(store.all_in)
        chosen = choose(accept_of(request.headers), (JSON_TYPE, _collection.MEDIA_TYPE))
        if chosen == _collection.MEDIA_TYPE:
            return _collection.retrieve(request, _members(books), now=clock())
        if chosen is None:
            return problem(
                406, "not-acceptable", f"/books is available as {JSON_TYPE} or multipart/mixed"
            )
        body = _listing(books)
        current = _collection_validators(books, chosen, clock())
        vary = [("Vary", "Accept")]
        status = evaluate(request.method, request.headers, current, clock())
        if status == 304:
            return _not_modified(current.etag, vary)
        if status == 412:
            return _precondition_failed(request)
        return Response(
            200,
            [
                ("Content-Type", JSON_TYPE),
                ("ETag", current.etag),
                ("Last-Modified", format_http_date(current.last_modified)),
                *vary,
            ],
            body,
        )

    async def create_book(request: Request, params: Mapping[str, str]) -> Response:
        # The content is read first (a handler may not wait inside a transaction), and judged
        # after the preconditions, as a standalone request meets them: 412, then 415/400/422.
        document = await _read_document(request, (JSON_TYPE,))
        conditional = any(request.headers.get(name) is not None for name in _CONDITIONAL)
        chosen = choose(accept_of(request.headers), (JSON_TYPE, _collection.MEDIA_TYPE))

        def create(conn: sqlite3.Connection) -> Response:
            if conditional:
                # RFC 9110 §9.3.3: the target of a POST is the collection, which exists, so its
                # preconditions are evaluated against the collection's current representation
                # (the one a GET with the same Accept selects): If-None-Match: * is false
                # (§13.1.2) and an If-Match naming none of its tags is false (§13.1.1), 412.
                current = _collection_validators(store.all_in(conn), chosen, clock())
                if evaluate(request.method, request.headers, current, clock()) is not None:
                    return _precondition_failed(request)
            if isinstance(document, Response):
                return document
            fault = _validate(document, partial=False)
            if fault is not None:
                return problem(422, "invalid-book", fault)
            book = store.create_in(conn, document)
            # MB-RESP-7: "A created resource's URI is given in the part's Location field".
            return Response(201, [("Location", book.path), *_book_headers(book)], book.body)

        try:
            return await store.db.write(create)
        except StoreBusy as exc:
            return _busy(exc)

    async def get_book(request: Request, params: Mapping[str, str]) -> Response:
        book_id = _book_id(params)
        book = None if book_id is None else await store.db.read(lambda c: store.get_in(c, book_id))
        if book is None:
            return missing(request)
        status = evaluate(request.method, request.headers, book.validators, clock())
        if status == 304:
            return _not_modified(book.validators.etag)
        if status == 412:
            return _precondition_failed(request)
        return Response(200, _book_headers(book), book.body)

    async def change_book(request: Request, params: Mapping[str, str]) -> Response:
        book_id = _book_id(params)
        patch = request.method == "PATCH"
        # The content is read first (a handler may not wait inside a transaction), and judged
        # after the existence check and the preconditions, in the order a standalone request
        # meets them: 404, then 412, then 415/400/422.
        document: Any = None
        if request.method != "DELETE" and book_id is not None:
            document = await _read_document(
                request, (MERGE_PATCH_TYPE, JSON_TYPE) if patch else (JSON_TYPE,)
            )

        def change(conn: sqlite3.Connection) -> Response:
            book = None if book_id is None else store.get_in(conn, book_id)
            if book is None:
                return missing(request)
            if evaluate(request.method, request.headers, book.validators, clock()) is not None:
                return _precondition_failed(request)
            if request.method == "DELETE":
                store.delete_in(conn, book.id)
                return Response(204)
            if isinstance(document, Response):
                return document
            fault = _validate(document, partial=patch)
            if fault is None and document.get("id", book.id) != book.id:
                fault = f"member 'id' must be {book.id} or absent"
            if fault is not None:
                return problem(422, "invalid-book", fault)
            merged = document
            if patch:
                # RFC 7396 merge patch: members replace, null removes (only "year" may be absent).
                merged = {**book.data, **document}
                fault = _validate({k: v for k, v in merged.items() if v is not None}, partial=False)
                if fault is not None:
                    return problem(422, "invalid-book", fault)
            updated = store.replace_in(conn, book.id, merged)
            return Response(200, _book_headers(updated), updated.body)

        try:
            return await store.db.write(change)
        except StoreBusy as exc:
            return _busy(exc)

    return [
        Route("/books", {"GET": list_books, "POST": create_book}),
        Route(
            "/books/{id}",
            {"GET": get_book, "PUT": change_book, "PATCH": change_book, "DELETE": change_book},
        ),
    ]
