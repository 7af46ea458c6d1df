"""The codec's optional C fast path (``_accel.c``), loaded and bound to the codec's classes.

``SCAN`` is ``_accel.scan`` when the extension was built and ``MIXBATCH_PURE_PYTHON`` is not
set to ``1``; otherwise it is None and ``BatchParser`` runs the pure-Python code alone. The
pure-Python parser is the reference: the fast path only takes whole, plainly valid parts and
leaves everything else, every error included, to it. ``RESPONSE_PART`` is, likewise,
``_accel.response_part`` or None: the writer's fast path for a response part that ran, which
returns None for anything but the plain case, so that ``BatchWriter`` writes or refuses it.

Binding happens once per import of the extension (each interpreter has its own): the event
classes with their slot names, which the C code fills in that order, and the forbidden field
and method names from ``_parts``, so that no list is spelled twice. The limits are not bound:
``scan`` reads them from each parser's own ``Limits``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ._events import PartData, PartEnd, RequestPartStart, ResponsePartStart
from ._fields import Fields
from ._parts import FORBIDDEN_METHODS, FORBIDDEN_REQUEST_FIELDS, FORBIDDEN_RESPONSE_FIELDS

__all__ = ["RESPONSE_PART", "SCAN", "UNAVAILABLE_REASON"]

#: The slot order the C code fills, which is each class's field order.
_Shape = tuple[type, tuple[str, ...]]
_SHAPES: tuple[_Shape, _Shape, _Shape, _Shape, _Shape] = (
    (RequestPartStart, ("index", "method", "target", "fields", "offset", "target_offset")),
    (ResponsePartStart, ("index", "status", "outcome", "content_id", "fields", "offset")),
    (PartData, ("index", "data")),
    (PartEnd, ("index", "length")),
    (Fields, ("_pairs",)),
)


def _load() -> tuple[Callable[..., tuple[int, int, int]] | None, str | None]:
    if os.environ.get("MIXBATCH_PURE_PYTHON") == "1":
        return None, "MIXBATCH_PURE_PYTHON=1"
    try:
        from . import _accel
    except ImportError as exc:
        return None, f"the C extension is not built ({exc})"
    for cls, slots in _SHAPES:
        # The C code fills exactly these slots, by name, through their member descriptors:
        # a slot added to an event class and not named here would be missing on the event.
        if set(_all_slots(cls)) != set(slots):
            return None, f"{cls.__name__} slots changed: the C fast path is out of date"
    _accel.configure(
        *_SHAPES,
        _lower_names(FORBIDDEN_REQUEST_FIELDS),
        _lower_names(FORBIDDEN_RESPONSE_FIELDS),
        _lower_names(FORBIDDEN_METHODS),
    )
    scan: Callable[..., tuple[int, int, int]] = _accel.scan
    return scan, None


def _lower_names(names: frozenset[str]) -> tuple[bytes, ...]:
    """The names as the C code compares them: ASCII bytes, lower case, in a stable order."""
    return tuple(sorted(name.lower().encode("ascii") for name in names))


def _all_slots(cls: type[Any]) -> list[str]:
    return [s for klass in cls.__mro__ for s in getattr(klass, "__slots__", ())]


SCAN, UNAVAILABLE_REASON = _load()


def _response_part() -> Callable[..., bytes | None] | None:
    if SCAN is None:  # the same switch and the same build as the parser's fast path
        return None
    from . import _accel

    write: Callable[..., bytes | None] = _accel.response_part
    return write


RESPONSE_PART = _response_part()
