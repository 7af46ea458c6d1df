"""Refuse some parts: a part the hook rejects is answered 403 and never reaches the app."""

from starlette.applications import Starlette

from mixbatch.asgi import BatchMiddleware, PartRequest


def read_only(part: PartRequest) -> bool:
    """Let batches read, never write: writes must be sent one by one."""
    return part.method in ("GET", "HEAD")


def wrap(app: Starlette) -> BatchMiddleware:
    return BatchMiddleware(app, path="/batch", authorize_part=read_only)
