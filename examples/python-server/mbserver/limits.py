"""Named limits and budgets of the server (MB-LIMIT-1, MB-LIMIT-5, MB-LIMIT-6, MB-SEC-1).

Every number the server enforces lives here so that the capabilities document, the
problem documents and the README all quote the same values.
"""

SPEC_VERSION = "draft-02"

# Per-batch limits, published in the capabilities document (spec 9.1).
MAX_PARTS = 10_000
MAX_BATCH_BYTES = 64 * 1024 * 1024          # decoded content octets
MAX_PART_BYTES = 16 * 1024 * 1024           # octets of one part body
MAX_PART_HEADER_BYTES = 8 * 1024            # field lines with their CRLF, not the blank line
MAX_PART_FIELDS = 100                       # field lines in one part header section
MAX_BATCHES_IN_FLIGHT = 8                   # MB-LIMIT-6 budget, by count

# Whole-batch wall-clock budget (MB-SEC-1, MB-TEST-7); --batch-timeout-ms overrides it.
DEFAULT_BATCH_TIMEOUT_MS = 5_000

# Top-level HTTP/1.1 message limits (not mixbatch limits; RFC 9112 leaves them to us).
MAX_REQUEST_LINE = 8 * 1024
MAX_HEADER_BYTES = 64 * 1024                # whole top-level header section
MAX_HEADER_FIELDS = 200
MAX_NON_BATCH_BODY = 1 * 1024 * 1024        # content of a request to a non-batch resource
MAX_CONTENT_LENGTH_DIGITS = 18              # spec 9.1: read up to 18 decimal digits
MAX_CHUNK_SIZE_HEX_DIGITS = 15              # spec 9.1: read up to 15 hex digits
MAX_CHUNK_EXT_BYTES = 4 * 1024
MAX_TRAILER_BYTES = 16 * 1024

# After refusing a request from its header section, the server reads and throws away up
# to this much content to reach the next pipelined request (spec 11 asks for >= 64 KiB).
MAX_DISCARD_BYTES = 4 * 1024 * 1024

# Idle time allowed between requests on a keep-alive connection, and to receive a request.
IDLE_TIMEOUT_S = 30.0
RECEIVE_TIMEOUT_S = 60.0

# Test resources (spec 14.4).
RANDOM_MAX_N = 1_048_576                    # MB-TEST-5
DELAY_MAX_MS = 10_000                       # MB-TEST-7
SANDBOX_MAX_MEMBER_BYTES = 64 * 1024
SANDBOX_MAX_MEMBERS = 10_000


def published():
    """The limits object of the capabilities document."""
    return {
        "max_parts": MAX_PARTS,
        "max_batch_bytes": MAX_BATCH_BYTES,
        "max_part_bytes": MAX_PART_BYTES,
        "max_part_header_bytes": MAX_PART_HEADER_BYTES,
        "max_part_fields": MAX_PART_FIELDS,
        "max_batches_in_flight": MAX_BATCHES_IN_FLIGHT,
    }


class Limits:
    """A set of per-batch limits; the server uses the defaults, vectorcheck the vector's."""

    def __init__(self, **over):
        self.max_parts = over.get("max_parts", MAX_PARTS)
        self.max_batch_bytes = over.get("max_batch_bytes", MAX_BATCH_BYTES)
        self.max_part_bytes = over.get("max_part_bytes", MAX_PART_BYTES)
        self.max_part_header_bytes = over.get("max_part_header_bytes", MAX_PART_HEADER_BYTES)
        self.max_part_fields = over.get("max_part_fields", MAX_PART_FIELDS)
