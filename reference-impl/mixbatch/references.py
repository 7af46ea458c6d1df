"""References between the parts of one batch (spec §7.7, the ``references`` profile).

In a batch whose ``Batch-Mode`` lists ``references``, a part's Content-Id and header field values
may name a result of an earlier part:

    reference   = "$(" part-index [ ":" field-name ] ")"
    part-index  = "0" / ( %x31-39 *DIGIT )
    field-name  = token

``$(N)`` is part N's ``Location``, resolved against part N's target and written in origin form;
``$(N:name)`` is part N's response field ``name`` as its response part carries it (field values
only). ``$$(`` is a literal ``$(``, and every other ``$(`` must begin a reference. ``check`` looks
at the envelope before anything runs (MB-PROC-19: a reference that looks forward or at a missing
part, or a malformed one, is a 400); ``resolve`` substitutes one part's references
from the results before it, or raises ``Unresolved`` (MB-PROC-20) so that the part is skipped.
The module is pure: no I/O, no event loop. It sits below the adapters so that the reference
server and the ASGI middleware substitute references by the same rules, and the client can check
the references it writes.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from mixbatch.codec import Fields, MixbatchError, RemoteProtocolError, resolve_target
from mixbatch.envelope import Part

__all__ = ["MODE", "Earlier", "Unresolved", "check", "malformed_in", "references_in", "resolve"]

#: The Batch-Mode token that turns references on.
MODE = "references"
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
#: At each ``$``, read from left to right: ``$$(`` (an escaped ``$(``), else ``$(`` with the rest
#: of a reference (group 1 its part index), else a bare ``$(``, which begins no reference.
_REFERENCE = re.compile(r"\$\$\(|\$\((?:(0|[1-9][0-9]*)(?::(" + _TOKEN + r"))?\))?")


@dataclass(frozen=True, slots=True)
class Earlier:
    """What a later part may name of an earlier one: how it ended, its target, its fields."""

    status: int | None
    outcome: str | None
    target: str
    fields: Sequence[tuple[str, str]]


class Unresolved(Exception):
    """A reference of the part about to run names nothing (MB-PROC-20)."""

    def __init__(self, reference: str, detail: str) -> None:
        super().__init__(detail)
        self.reference = reference
        self.detail = detail


def malformed_in(text: str) -> str | None:
    """The first ``$(`` of ``text`` that neither begins a reference nor belongs to a ``$$(``
    (spec 7.7), with what follows it on the value, else ``None``."""
    for match in _REFERENCE.finditer(text):
        if match.group(0) == "$(":
            return text[match.start() : match.start() + 16]
    return None


def references_in(text: str) -> list[tuple[str, int, str | None]]:
    """Every reference in ``text`` as ``(as written, part index, field name or None)``."""
    found = []
    for match in _REFERENCE.finditer(text):
        if match.group(1) is not None:
            digits = match.group(1)
            # An index past any batch's parts names none; no need to read every digit of it.
            index = int(digits) if len(digits) <= 18 else 10**18
            found.append((match.group(0), index, match.group(2)))
    return found


def check(parts: Sequence[Part]) -> MixbatchError | None:
    """The 400 for an envelope whose references look forward or at no part, else ``None``."""
    for part in parts:
        sources = [("Content-Id", part.content_id), *part.fields]
        for name, value in sources:
            malformed = malformed_in(value)
            if malformed is not None:
                # MB-PROC-19: "answer 400, before any part runs, a batch ... whose `Content-Id`
                # or field value holds a `$(` that neither begins a `reference` nor belongs to
                # a `$$(`".
                return RemoteProtocolError(
                    f"part {part.index}: {name} holds {malformed!r}, whose $( begins no "
                    "reference $(N) or $(N:field); a literal $( is written $$(",
                    requirement="MB-PROC-19",
                    slug="reference-malformed",
                    title="Malformed reference",
                    part_index=part.index,
                )
            for written, index, field_name in references_in(value):
                fault = None
                if index >= part.index:
                    fault = f"names part {index}, which does not run before part {part.index}"
                elif name == "Content-Id" and field_name is not None:
                    fault = "names a field; a Content-Id may only name a Location, as $(N)"
                if fault is not None:
                    # MB-PROC-19: "answer 400, before any part runs, a batch ... whose reference
                    # names that part itself, a later part or a part that does not exist".
                    return RemoteProtocolError(
                        f"part {part.index}: reference {written} in {name} {fault}",
                        requirement="MB-PROC-19",
                        slug="reference-forward",
                        title="Reference to a part that has not run",
                        part_index=part.index,
                    )
    return None


def _value(written: str, index: int, name: str | None, earlier: Earlier) -> str:
    # MB-PROC-20: unresolvable when "the part it names failed (status 400 or above), was
    # skipped or did not run, its response has no such field or more than one field line".
    if earlier.outcome is not None or earlier.status is None:
        raise Unresolved(written, f"part {index} did not run, so {written} names nothing")
    if earlier.status >= 400:
        raise Unresolved(
            written, f"part {index} failed with {earlier.status}, so {written} names nothing"
        )
    wanted = (name or "Location").lower()
    values = [v for n, v in earlier.fields if n.lower() == wanted]
    if len(values) != 1:
        raise Unresolved(
            written,
            f"part {index}'s response has {len(values)} {name or 'Location'} field lines, "
            f"so {written} names nothing",
        )
    return values[0]


def _location(written: str, index: int, value: str, earlier: Earlier, origin: str) -> str:
    """A Location in origin form, resolved against part ``index``'s target (RFC 9110 §10.2.2)."""
    absolute = urlsplit(urljoin(origin + earlier.target, value.strip()))
    if f"{absolute.scheme}://{absolute.netloc}".lower() != origin.lower():
        raise Unresolved(written, f"part {index}'s Location {value!r} is on another origin")
    return (absolute.path or "/") + (f"?{absolute.query}" if absolute.query else "")


def _substitute(text: str, results: Sequence[Earlier], origin: str, *, in_target: bool) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(1) is None:
            # `$$(`; a bare `$(` never gets here, as check() refused the batch for it.
            return "$("
        written, index, name = match.group(0), int(match.group(1)), match.group(2)
        earlier = results[index]
        value = _value(written, index, name, earlier)
        if name is None or in_target:
            return _location(written, index, value, earlier, origin)
        return value

    return _REFERENCE.sub(one, text)


def resolve(
    part: Part,
    results: Sequence[Earlier],
    *,
    base: str,
    scheme: str,
    authority: str,
    batch_paths: Collection[str],
) -> tuple[str, Fields] | None:
    """The part's target and fields with every reference replaced (MB-PROC-18), ``None`` when it
    holds none; raises ``Unresolved`` when one names nothing (MB-PROC-20)."""
    if "$(" not in part.content_id and not any("$(" in v for _, v in part.fields):
        return None
    origin = f"{scheme}://{authority}"
    content_id = _substitute(part.content_id, results, origin, in_target=True)
    try:
        # The substituted target is resolved and checked as the envelope's targets were.
        target = resolve_target(base, content_id, scheme=scheme, authority=authority)
    except MixbatchError as exc:
        raise Unresolved(part.content_id, f"the target {content_id!r} is not valid: {exc}") from exc
    if target.partition("?")[0] in batch_paths:
        raise Unresolved(part.content_id, f"the target {target!r} is the batch endpoint")
    fields = Fields([(n, _substitute(v, results, origin, in_target=False)) for n, v in part.fields])
    return target, fields
