"""Add batching to a Starlette app: the five lines are the import and the last statement."""

from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from mixbatch.asgi import BatchMiddleware

BOOKS = {1: {"id": 1, "title": "Weaving the Web"}, 2: {"id": 2, "title": "The Mythical Man-Month"}}


async def book(request):
    found = BOOKS.get(request.path_params["id"])
    return JSONResponse(found) if found else JSONResponse({"detail": "no such book"}, 404)


app = Starlette(routes=[Route("/books/{id:int}", book)])

# Wrap the finished app last, so every part passes its middleware, auth and routing.
app = BatchMiddleware(app, path="/batch")
