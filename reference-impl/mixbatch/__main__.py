"""``python -m mixbatch``: the same command line as the ``mixbatch`` console script."""

from __future__ import annotations

from mixbatch.cli import main

raise SystemExit(main())
