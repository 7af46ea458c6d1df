"""Property checks (standard tier): placeholder until the strategies land."""
