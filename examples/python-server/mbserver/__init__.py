"""mbserver: an independent mixbatch batch server (spec/mixbatch.md, draft-02)."""
