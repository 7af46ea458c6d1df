"""The command line of ``mixbatch send``: its options, and the per-part options lifted out.

The command line is a sequence: the batch endpoint's URL, then sub-requests written
``METHOD TARGET``, each followed by the options that belong to it (``-H`` for a header field,
``--data``/``--data-binary``/``--data-raw`` for its content). Every other option is global and
may stand anywhere. argparse cannot tie an option to the positional before it, so
``split_argv`` first lifts the per-part options out of the argument list, noting how many
positionals preceded each, and argparse then reads the rest in any order
(``parse_intermixed_args``). The per-part options are still declared on the parser, so that
``--help`` lists them.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_TIMEOUT",
    "PART_OPTIONS",
    "PartOption",
    "UsageError",
    "declare_options",
    "split_argv",
]

#: Seconds to wait on the network before giving up.
DEFAULT_TIMEOUT = 30.0
#: Characters of a text body shown before it is cut.
DEFAULT_MAX_BODY = 2000

#: Per-part options: (option strings, kind). They belong to the METHOD TARGET before them.
PART_OPTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("-H", "--header"), "header"),
    (("-d", "--data", "--data-binary"), "data"),
    (("--data-raw",), "data-raw"),
)
_PART_KIND = {flag: kind for flags, kind in PART_OPTIONS for flag in flags}


class UsageError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class PartOption:
    """A per-part option lifted out of the command line; ``after`` counts the positionals
    (URL, methods and targets) that came before it."""

    after: int
    flag: str
    kind: str
    value: str


def declare_options(parser: argparse.ArgumentParser) -> frozenset[str]:
    """Declare send's options on ``parser``; returns the global options that take a value."""
    parser.add_argument("url", help="the batch endpoint, e.g. http://127.0.0.1:8080/batch")
    parser.add_argument(
        "requests",
        nargs="*",
        metavar="METHOD TARGET",
        help="a sub-request; its -H/--data options follow it",
    )
    part = parser.add_argument_group(
        "per sub-request (each applies to the METHOD TARGET just before it)"
    )
    part.add_argument(
        "-H",
        "--header",
        dest="part_header",
        action="append",
        metavar="'NAME: VALUE'",
        help="a header field of the sub-request (repeatable)",
    )
    part.add_argument(
        "-d",
        "--data",
        "--data-binary",
        dest="part_data",
        metavar="TEXT|@FILE",
        help="the sub-request's content: TEXT as UTF-8, @FILE the file's octets, @- stdin; "
        "sent unchanged (newlines kept, unlike curl -d)",
    )
    part.add_argument(
        "--data-raw",
        dest="part_data_raw",
        metavar="TEXT",
        help="the sub-request's content, TEXT as UTF-8 with no @FILE meaning",
    )
    valued: list[argparse.Action] = [
        parser.add_argument("--file", type=Path, help="send this batch content, byte for byte"),
        parser.add_argument(
            "--boundary",
            help="the boundary of --file's content (default: inferred from its first "
            "delimiter line, or from the Content-Type of a whole captured message)",
        ),
        parser.add_argument(
            "--batch-header",
            action="append",
            default=[],
            metavar="'NAME: VALUE'",
            help="a header field of the batch request itself (repeatable), e.g. Authorization",
        ),
        parser.add_argument("--accept", help="Accept value (e.g. application/xml for 207 XML)"),
        parser.add_argument(
            "--on-error", choices=["continue", "stop"], help="send Prefer: batch-on-error=..."
        ),
        parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds"),
        parser.add_argument(
            "--max-body",
            type=int,
            default=DEFAULT_MAX_BODY,
            help="characters of text bodies shown (not with --json)",
        ),
    ]
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per line: the response head, each part (index, status, "
        "outcome, content_id, headers, and body as text or body_base64), then the end",
    )
    output.add_argument(
        "--raw",
        action="store_true",
        help="write the raw response octets, undecoded (exit 0 for a complete 200 or 207 "
        "response, 3 for another status: the parts are not examined)",
    )
    parser.add_argument(
        "--fail", action="store_true", help="exit 1 when a part's status is 400 or above"
    )
    parser.add_argument(
        "--atomic",
        action="store_true",
        help="send Batch-Mode: atomic: all parts or none (a server without it answers 501)",
    )
    parser.add_argument(
        "--references",
        action="store_true",
        help="send Batch-Mode: references, so $(N) and $(N:Field) name earlier parts' results "
        "(quote them for the shell)",
    )
    return frozenset(flag for action in valued for flag in action.option_strings)


_ATTACHED = re.compile(r"^(--[a-z-]+)=(.*)$", re.DOTALL)


def _part_flag(token: str) -> tuple[str, str | None] | None:
    """(flag, attached value or None) when ``token`` is a per-part option."""
    if token in _PART_KIND:
        return token, None
    if match := _ATTACHED.match(token):
        if match.group(1) in _PART_KIND:
            return match.group(1), match.group(2)
        return None
    if len(token) > 2 and token[:2] in ("-H", "-d"):
        return token[:2], token[2:]
    return None


def split_argv(argv: Sequence[str], valued: frozenset[str]) -> tuple[list[str], list[PartOption]]:
    """Lift the per-part options out of ``argv``: (the rest, in order; the per-part options).

    ``valued`` names the global options that take a value, so that their value is not counted as
    a positional. After ``--`` every token is positional.
    """
    rest: list[str] = []
    options: list[PartOption] = []
    positionals = 0
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == "--":
            rest += tokens[i - 1 :]
            positionals += len(tokens) - i
            break
        found = _part_flag(token)
        if found is not None:
            flag, value = found
            if value is None:
                if i >= len(tokens):
                    raise UsageError(f"{flag} needs a value")
                value = tokens[i]
                i += 1
            options.append(PartOption(positionals, flag, _PART_KIND[flag], value))
            continue
        rest.append(token)
        if token.startswith("-") and token != "-":
            if token in valued and i < len(tokens):
                rest.append(tokens[i])
                i += 1
        else:
            positionals += 1
    return rest, options
