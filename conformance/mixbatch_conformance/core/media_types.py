"""The media types the spec names for batch answers and refusals (spec 3, 5.3 and 6.1)."""

from __future__ import annotations

#: A batch request and its 200 answer (spec 3).
MULTIPART = "multipart/mixed"
#: Every 4xx or 5xx answer to a batch request (MB-STATUS-4, RFC 9457).
PROBLEM_JSON = "application/problem+json"
#: The 207 forms (spec 6.1's table).
XML_FORM = "application/xml"
JSON_FORM = "application/vnd.mixbatch.multistatus+json"
MULTISTATUS_MEDIA_TYPES = frozenset({XML_FORM, JSON_FORM})
