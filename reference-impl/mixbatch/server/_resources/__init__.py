"""The demo resources the reference server embeds: one module per resource.

Each module exposes ``routes(...) -> list[Route]``; ``mixbatch.server._app`` joins them into one
router. State lives in memory and dies with the process.
"""
