"""mixbatch: batching HTTP requests in one multipart/mixed message."""
