"""mixbatch_conformance: the conformance suite."""
