"""A typed way for the scenario addons to refuse a bad option value in ``configure``.

mitmproxy's ``OptionsError`` has no annotated constructor; wrapping it once here keeps every
addon clean under ``mypy --strict`` without an ignore comment in each file.
"""

from __future__ import annotations

from mitmproxy import exceptions

__all__ = ["option_error"]


def option_error(message: str) -> Exception:
    """The error mitmproxy shows (and refuses the option value for) when raised in configure."""
    return exceptions.OptionsError(message)  # type: ignore[no-untyped-call]
