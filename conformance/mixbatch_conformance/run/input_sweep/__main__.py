"""`python -m mixbatch_conformance.run.input_sweep [out.json]`: sweep the reference server."""

from __future__ import annotations

from mixbatch_conformance.run.input_sweep import main

raise SystemExit(main())
