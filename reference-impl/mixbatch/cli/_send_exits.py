"""The exit statuses of ``mixbatch send``, and what each one means.

The table is printed in ``mixbatch send --help`` and in the docs, and the statuses are what
``send`` returns: a shell script can tell "answered", "not every part took effect", "refused
whole", "the protocol was broken" and "no exchange" apart without reading the output.
"""

from __future__ import annotations

__all__ = [
    "EXIT_ANSWERED",
    "EXIT_NETWORK",
    "EXIT_NOT_ALL_ANSWERED",
    "EXIT_PROTOCOL",
    "EXIT_REFUSED",
    "EXIT_STATUSES",
    "EXIT_USAGE",
]

EXIT_ANSWERED = 0
EXIT_NOT_ALL_ANSWERED = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_PROTOCOL = 4
EXIT_NETWORK = 5

#: What each exit status of ``mixbatch send`` means (printed in ``--help`` and the docs).
EXIT_STATUSES = {
    EXIT_ANSWERED: "every sub-request was answered: a complete 200 multipart response with one "
    "part per sub-request, each with its status (4xx and 5xx parts are answers too), or a "
    "complete 207 document",
    EXIT_NOT_ALL_ANSWERED: "the batch response is complete, but not every sub-request took "
    "effect: a part was skipped or rolled back, or the server aborted and the rest have an "
    "unknown outcome; with --fail, also when a part's status is 400 or above",
    EXIT_USAGE: "usage error (bad option, argument or file)",
    EXIT_REFUSED: "the batch was not answered as a batch: a status other than 200 or 207 "
    "(the server refused it whole, no part ran), or a 200 that is not multipart",
    EXIT_PROTOCOL: "the response broke the protocol: it ended before its close delimiter "
    "(MB-WIRE-14), its framing or part count is wrong, or its content coding cannot be removed",
    EXIT_NETWORK: "no exchange: the connection could not be made, timed out, or failed "
    "before the response began",
}
