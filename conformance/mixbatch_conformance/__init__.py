"""mixbatch_conformance: the mixbatch conformance suite.

Point it at any server (`mixbatch conformance --target URL`), or at nothing to test the
embedded reference server. Checks are data plus predicates with stable ids tied to the
requirement IDs of spec/requirements.json; see _registry for the model and the checks_*
modules for the checks themselves. This package never imports the reference codec: it
judges responses with its own reader (_validator) and talks HTTP over raw sockets (_http).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
