"""The same for FastAPI: a FastAPI app is an ASGI app, so it is wrapped the same way."""

from fastapi import FastAPI, HTTPException

from mixbatch.asgi import BatchMiddleware

api = FastAPI()
BOOKS = {1: {"id": 1, "title": "Weaving the Web"}}


@api.get("/books/{book_id}")
async def book(book_id: int) -> dict[str, object]:
    if book_id not in BOOKS:
        raise HTTPException(404, "no such book")
    return BOOKS[book_id]


app = BatchMiddleware(api, path="/batch")
