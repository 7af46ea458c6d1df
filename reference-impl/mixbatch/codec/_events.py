"""Events the batch parser emits, as frozen dataclasses.

A well-formed batch yields, for each part, one ``*PartStart`` event, zero or more ``PartData``
events and one ``PartEnd`` event, and then a single ``BatchEnd``. Part indexes count from 0.
``PartData.data`` is a read-only ``memoryview`` into the bytes that were fed; it stays valid for
as long as it is referenced, so a consumer may keep it or write it out without copying.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._fields import Fields

__all__ = [
    "BatchEnd",
    "Event",
    "PartData",
    "PartEnd",
    "RequestPartStart",
    "ResponsePartStart",
]

#: Batch-Outcome values (spec §3.3); ``None`` means the sub-request ran normally.
OUTCOMES = frozenset({"skipped", "rolled-back", "aborted"})


@dataclass(frozen=True, slots=True)
class RequestPartStart:
    """The header section of one sub-request: its method, its target and its other fields.

    ``offset`` is where the part's header section starts.
    """

    index: int
    method: str
    target: str
    fields: Fields
    offset: int
    #: Offset of the Content-Id field line, where target faults (MB-SUB-2, MB-SUB-4) are reported.
    target_offset: int = -1

    def __post_init__(self) -> None:
        if self.index < 0 or not self.method:
            raise ValueError(f"invalid RequestPartStart {self!r}")


@dataclass(frozen=True, slots=True)
class ResponsePartStart:
    """The header section of one sub-response.

    ``outcome`` is None for a sub-request that ran normally, one of ``OUTCOMES``, or a token
    this codec does not know, which a client reports as an unknown outcome (MB-RESP-8).
    """

    index: int
    status: int | None
    outcome: str | None
    content_id: str | None
    fields: Fields
    offset: int

    def __post_init__(self) -> None:
        if self.outcome is not None and not self.outcome:
            raise ValueError("an empty Batch-Outcome")
        if self.status is not None and not 100 <= self.status <= 599:
            raise ValueError(f"status out of range: {self.status!r}")

    @property
    def outcome_known(self) -> bool:
        """False for an outcome this codec does not know (MB-RESP-8)."""
        return self.outcome is None or self.outcome in OUTCOMES


@dataclass(frozen=True, slots=True)
class PartData:
    """A chunk of the current part's body."""

    index: int
    data: memoryview


@dataclass(frozen=True, slots=True)
class PartEnd:
    """The current part's body is complete; ``length`` is its size in octets."""

    index: int
    length: int


@dataclass(frozen=True, slots=True)
class BatchEnd:
    """The close delimiter was seen; ``parts`` is the number of parts."""

    parts: int


Event = RequestPartStart | ResponsePartStart | PartData | PartEnd | BatchEnd
