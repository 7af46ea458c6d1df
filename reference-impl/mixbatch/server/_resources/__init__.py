"""The demo resources the reference server embeds: one module per resource.

Each module exposes ``routes(...) -> list[Route]``; ``mixbatch.server._app`` joins them into one
router. The books live in the server's SQLite store (``.._store``): in a temporary directory that
dies with the process, or under ``serve --data DIR``, where they survive restarts.
"""
