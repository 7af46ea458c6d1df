"""Part results and the interface every batch representation implements.

A batch result is a sequence of ``PartResult`` (one per request part, in order) plus a
``Summary``. MB-MULTI-5: "Every representation of one batch result carries the same statuses,
outcomes, header fields and bodies", so each representation is a ``Renderer`` over the same
results: ``start()``, then ``part()`` for each result as soon as it is ready, then ``end()``.
Every call returns octets that can go to the wire at once, so no representation ever buffers a
whole batch. ``MultipartRenderer`` is the default (200); ``_multistatus`` holds the 207 forms.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

from mixbatch.codec import BatchWriter

__all__ = ["MultipartRenderer", "PartResult", "Renderer", "Summary"]


@dataclass(slots=True)
class PartResult:
    """The outcome of one request part, in the terms every representation shares.

    ``content_id`` is the request part's Content-Id between the angle brackets, exactly as
    written; ``href`` is the resolved target. Both are ``None`` only for the aborted entry.

    Not frozen, though nothing changes one after it is built: a batch builds one per part, and
    a frozen dataclass's ``__init__`` (``object.__setattr__`` per field) costs five times as much.
    """

    index: int
    href: str | None
    content_id: str | None
    status: int | None
    outcome: str | None
    fields: Sequence[tuple[str, str]] = ()
    body: bytes = b""


@dataclass(slots=True)
class Summary:
    """Counts of results by kind, as in the Batch-Summary trailer (MB-STATUS-8)."""

    ok: int = 0
    failed: int = 0
    skipped: int = 0
    rolled_back: int = 0
    aborted: bool = False

    def add(self, result: PartResult) -> None:
        if result.outcome == "skipped":
            self.skipped += 1
        elif result.outcome == "rolled-back":
            self.rolled_back += 1
        elif result.outcome == "aborted":
            self.aborted = True
        elif result.status is not None and result.status >= 400:
            self.failed += 1
        else:
            self.ok += 1

    def as_field(self) -> str:
        text = f"ok={self.ok}, failed={self.failed}, skipped={self.skipped}"
        if self.rolled_back:
            text += f", rolled-back={self.rolled_back}"
        if self.aborted:
            text += ", aborted=1"
        return text

    def as_document(self) -> dict[str, int]:
        return {
            "ok": self.ok,
            "failed": self.failed,
            "skipped": self.skipped,
            "rolled_back": self.rolled_back,
        }


class Renderer(abc.ABC):
    """One representation of a batch result, written incrementally."""

    media_type: str
    status: int

    @property
    def content_type(self) -> str:
        return self.media_type

    def start(self) -> bytes:
        return b""

    @abc.abstractmethod
    def part(self, result: PartResult) -> bytes:
        """The octets of one result."""

    @abc.abstractmethod
    def end(self, summary: Summary) -> bytes:
        """The octets that close the document."""


class MultipartRenderer(Renderer):
    """``multipart/mixed`` with one part per result (status 200), via the codec's writer."""

    media_type = "multipart/mixed"
    status = 200

    def __init__(self, writer: BatchWriter | None = None) -> None:
        self._writer = writer or BatchWriter()

    @property
    def content_type(self) -> str:
        return self._writer.content_type

    def part(self, result: PartResult) -> bytes:
        return self._writer.response_part(
            result.status, result.content_id, result.fields, result.body, result.outcome
        )

    def end(self, summary: Summary) -> bytes:
        return self._writer.close()
