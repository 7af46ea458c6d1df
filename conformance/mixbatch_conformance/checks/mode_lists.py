"""Batch-Mode as the list it is: the list spellings of one mode (spec 3.4, 7.7, MB-PROC-17).

Theory of operation: `Batch-Mode` is `1#mode-value` (spec 3.4) under the list rules of RFC 9110
§5.6.1, where "a recipient MUST parse and ignore a reasonable number of empty list elements".
So `atomic,`, `, atomic`, `atomic, atomic`, OWS around a comma (`atomic ,atomic`), an empty
element between two (`atomic,,atomic`) and two field lines `atomic` all list one mode, atomic, and MB-PROC-17 has the server "read `Batch-Mode` as a
comma-separated list of modes". Two checks follow from that, over every mode of its class:

- `implemented-mode-list-forms-run-as-plain`: for each mode the target implements, the check
  first learns how the same server answers the plain value (`Batch-Mode: atomic`) to a batch
  of a GET of `ok`, a GET of `not_found` and a GET of `ok` again, which an atomic batch
  answers with rolled-back and skipped parts and any other batch does not; then each list
  spelling of that mode must get the same top-level status and, part by part, the same status
  and `Batch-Outcome`. A server that runs only the exact value answers the list 501;
- `unimplemented-mode-list-forms-refused`: for each mode the target does not implement (a
  defined mode it does not claim, and a mode no server implements), every list spelling is
  still a list naming that mode, so it is answered 501 before any part runs (MB-PROC-12,
  MB-PROC-17). A server that drops the elements it does not understand, or that reads a
  repeated element as something else, runs the batch.

- `mode-lookalike-values-refused`: a defined mode with parameters (`atomic;strict`, as a
  preference would carry them), with a second word, quoted (with or without a space inside
  the quotes), in another case, or with one character more or less (`atomic.`, `atomics`,
  `atomi`) is no `mode-value` the server implements, so it is answered 501 (MB-PROC-12). A server that cuts
  the value at `;`, compares it without case, by prefix or with trailing punctuation or
  whitespace removed runs the batch in that mode. The second word
  is also the mode itself or the other defined mode, after a space, a tab, two spaces or
  both, alone or beside a valid element (`atomic atomic`, `atomic\tatomic`,
  `atomic, atomic atomic`): whitespace inside an element does not separate list elements
  (RFC 9110 §5.6.1 separates them by commas, OWS only around the comma), so such an element
  is one value that is no token, and names no mode. A server that splits the list at
  whitespace as well as at commas reads `atomic atomic` as atomic twice and runs it.

  The same check sends `Batch-Mode` fields whose value holds no element: empty, only commas,
  only commas and whitespace, on one field line and on two. `1#mode-value` asks for one
  element, so such a field names no mode and is answered 501 (MB-PROC-12), never run as if the
  field were absent. A server that drops empty elements and then reads an empty list as no
  `Batch-Mode` runs the batch.

Every batch only reads, so the checks run against any target.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import entries_from_multipart
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: The modes spec 7.7 defines, each with the profile that implements it.
DEFINED_MODES = {"atomic": "atomic", "references": "references"}
#: A mode no server implements.
UNKNOWN_MODE = "mb-suite-no-such-mode"
#: The list spellings of one mode `{m}`, each a tuple of field lines (RFC 9110 §5.6.1): empty
#: elements before, after and between (`{m},,{m}`, and commas with whitespace between), the
#: mode twice, OWS around the commas (before one alone, on both sides), two lines.
LIST_FORMS: tuple[tuple[str, ...], ...] = (
    ("{m},",),
    (", {m}",),
    ("{m}, {m}",),
    ("{m} ,\t{m}",),
    (",{m},,",),
    ("{m}", "{m}"),
    ("{m}", ","),
    ("{m} ,{m}",),
    ("{m},,{m}",),
    ("{m}, ,\t,{m}",),
    ("{m}", "{m} , {m}"),
)

#: How a batch was answered: the top-level status, then (status, Batch-Outcome) per part, or
#: None where the answer is not a readable multipart/mixed batch response.
Shape = tuple[int, tuple[tuple[int | None, str | None], ...] | None]


def _lines(form: tuple[str, ...], mode: str) -> tuple[tuple[str, str], ...]:
    return tuple(("Batch-Mode", line.format(m=mode)) for line in form)


def _shape(resp: Response) -> Shape:
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        return resp.status, None
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        return resp.status, None
    env = read_multipart(resp.body, params.get("boundary", ""))
    if env.fatal:
        return resp.status, None
    return resp.status, tuple((e.status, e.outcome) for e in entries_from_multipart(env))


@checker(
    "implemented-mode-list-forms-run-as-plain",
    ("MB-PROC-17",),
    "Each list spelling of a mode the target implements (empty elements before, after and between, the mode twice, OWS around commas, two field lines) is answered as the plain value is: the same status, and per part the same status and Batch-Outcome.",
    state=State.READ_ONLY,
)
def implemented_mode_list_forms_run_as_plain(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    implemented = [m for m, profile in DEFINED_MODES.items() if ctx.target.claims(profile)]
    if not implemented:
        judge.not_applicable("the target implements no Batch-Mode (no atomic, no references)")
    # A failing part between two that succeed: an atomic batch rolls back and skips around it.
    parts = [ok, nf, ok]
    for mode in implemented:
        plain = _shape(ctx.batch(judge, parts, headers=(("Batch-Mode", mode),)))
        if plain[1] is None:
            judge.setup_error(
                f"Batch-Mode: {mode}, which the target claims, answered {plain[0]}, not a "
                "readable multipart/mixed batch response to compare the list spellings with"
            )
        judge.note(f"Batch-Mode: {mode} answered {plain!r}")
        for form in LIST_FORMS:
            lines = _lines(form, mode)
            got = _shape(ctx.batch(judge, parts, headers=lines))
            # MB-PROC-17: "read `Batch-Mode` as a comma-separated list of modes"; RFC 9110
            # §5.6.1.2: "a recipient MUST parse and ignore a reasonable number of empty list
            # elements". The list names {mode} alone, so the batch runs as under the plain value.
            judge.expect(
                f"Batch-Mode lines {[v for _, v in lines]!r}: status, then (status, outcome) "
                "per part",
                got,
                {plain},
                "MB-PROC-17",
                allowed_text=f"as Batch-Mode: {mode} is answered: {plain!r}",
            )


@checker(
    "unimplemented-mode-list-forms-refused",
    ("MB-PROC-17", "MB-PROC-12"),
    "Each list spelling of a mode the target does not implement (empty elements, the mode twice, OWS around commas, two field lines) is answered 501, as the plain value is.",
    state=State.READ_ONLY,
)
def unimplemented_mode_list_forms_refused(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    modes = [m for m, profile in DEFINED_MODES.items() if not ctx.target.claims(profile)]
    for mode in [*modes, UNKNOWN_MODE]:
        for form in LIST_FORMS:
            lines = _lines(form, mode)
            resp = ctx.batch(judge, [ok], headers=lines)
            judge.note(f"Batch-Mode lines {[v for _, v in lines]!r}: {resp.status}")
            # MB-PROC-17: "MUST answer 501 (Not Implemented), before any part runs, a batch
            # request that lists a mode it does not implement"; MB-PROC-12: "whose
            # `Batch-Mode` value it does not implement". Empty elements and a repeated
            # element leave the list naming that mode.
            expect_rejected(judge, resp, {501}, "MB-PROC-17")


#: Values that look like a mode `{m}` but are none: parameters after `;` (as a preference
#: carries them, RFC 7240 §2), a second word, a quoted string, and the mode in other case
#: (mode-value is a case-sensitive token, spec 3.4). The second word is also the mode itself
#: or the other defined mode `{o}`, after a space, a tab, two spaces or a space and a tab, in
#: an element alone or beside a valid one: whitespace inside an element separates nothing
#: (RFC 9110 §5.6.1 allows OWS only around the commas), so `atomic atomic` is one element that
#: is no token, not atomic twice. A quoted element beside a valid one is no mode either.
NEAR_MODES = (
    "{m};strict",
    "{m}; x=1",
    "{m};",
    "{m} strict",
    '"{m}"',
    "{M}",
    "{C}",
    "{m} {m}",
    "{m}\t{m}",
    "{m}  {m}",
    "{m} \t{m}",
    "{m} {o}",
    "{m}, {m} {m}",
    "{m}\t{m}, {m}",
    '{m}, "{m}"',
    # Tokens next to the mode: a character more (one tchar allows) or less, and the mode
    # quoted with a space inside the quotes. Each is another mode-value, not the mode.
    "{m}.",
    "{m}s",
    "{m}-",
    "{p}",
    '"{m} "',
)
#: Batch-Mode fields whose value holds no element, each a tuple of field lines: empty, one
#: comma, commas with whitespace between, and the same on two field lines (RFC 9110 §5.6.1:
#: the lines of a list field are one list, so two empty lines still list nothing).
NO_ELEMENT_LINES: tuple[tuple[str, ...], ...] = (
    ("",),
    (",",),
    (", ,",),
    (" ,\t, ,",),
    ("", ""),
    (",", ","),
)


@checker(
    "mode-lookalike-values-refused",
    ("MB-PROC-12", "MB-PROC-17"),
    "A Batch-Mode value that is a mode with parameters, a second word (another, or the mode again after a space or a tab, alone or beside a valid element), quotes, another case or a character more or less, or a Batch-Mode field holding no element (empty, only commas, on one line or two), is no mode the server implements and is answered 501 before any part runs.",
    state=State.READ_ONLY,
)
def mode_lookalike_values_refused(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    for mode in DEFINED_MODES:
        for form in NEAR_MODES:
            other = next(m for m in DEFINED_MODES if m != mode)
            value = form.format(m=mode, o=other, M=mode.upper(), C=mode.capitalize(), p=mode[:-1])
            resp = ctx.batch(judge, [ok], headers=(("Batch-Mode", value),))
            judge.note(f"Batch-Mode: {value} -> {resp.status}")
            # Spec 3.4: `mode-value = "atomic" / "references" / token`, case-sensitive; a value
            # that is no such token names no mode the server implements, and MB-PROC-12: "A
            # server MUST answer a batch request whose `Batch-Mode` value it does not implement
            # with 501 before any part runs". Spec 7.5: "A value that is no `mode-value` token
            # names no mode either: `atomic;strict` ..., `atomic strict`, `"atomic"` and
            # `Atomic` ... are each answered 501, never run as the atomic mode"; an element
            # holding whitespace between two words is no token, whatever the words are.
            expect_rejected(judge, resp, {501}, "MB-PROC-12")
    for empty in NO_ELEMENT_LINES:
        lines = tuple(("Batch-Mode", line) for line in empty)
        resp = ctx.batch(judge, [ok], headers=lines)
        judge.note(f"Batch-Mode lines {list(empty)!r} -> {resp.status}")
        # MB-PROC-12: "Nor does a `Batch-Mode` field whose value holds no element (empty, or
        # only commas and whitespace, as in `Batch-Mode: ,`): `1#mode-value` asks for one, so it
        # is answered 501, not run as if the field were absent."
        expect_rejected(judge, resp, {501}, "MB-PROC-12")
