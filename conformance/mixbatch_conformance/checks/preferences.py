"""batch-on-error among other preferences (spec 7.4, RFC 7240 §2).

Theory of operation: a Prefer field is a list: several preferences in one field line, or in
several field lines, which RFC 9110 §5.3 lets a recipient combine. MB-PROC-6's stop policy
must be honoured wherever in that list batch-on-error stands, so a server that reads only the
first preference, or only the first field line, is caught, as is one that reads only one
spelling: name and value in any case, quoted or not, with BWS around "=" (MB-PROC-13), after
or with a quoted-string holding commas and semicolons (RFC 7240 §2: they separate nothing) or
quoted-pairs (an escaped quote does not end the string, an escaped backslash before a quote
does: RFC 9110 §5.6.4) or obs-text octets (valid qdtext and quoted-pair content), and
writes Preference-Applied other than lower case and unquoted, or gives up on a field holding
an empty list element (RFC 9110 §5.6.1: a recipient "MUST parse and ignore" it). Each case
sends [not_found, ok]: with stop honoured, part 1 is skipped and Preference-Applied names
batch-on-error=stop, in every form the target declares.

batch-on-error named more than once, on one field line or several, counts by its first
instance alone (MB-PROC-13, RFC 7240 §2): stop then continue runs under stop, continue then
stop under continue, and an unrecognised first value leaves the preference absent, the later
stop unread (MB-PROC-11), so a server that lets the last instance win, or reads on past an
unrecognised first one, is caught. A first instance without a value, with an empty one or
with an empty quoted-string is such an unrecognised value (MB-PROC-13, RFC 7240 §2: an empty
value is no value), so a server that skips it as no batch-on-error at all is caught too.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Prefer field lines, each list one request's, with batch-on-error=stop somewhere in it.
CASES: tuple[tuple[str, ...], ...] = (
    ("respond-async, batch-on-error=stop, wait=10",),
    ("handling=lenient; mb-suite=1, batch-on-error=stop",),
    ("return=minimal", "batch-on-error=stop"),
    ("batch-on-error=stop; mb-suite-param=1, return=representation",),
    # MB-PROC-13: "whatever the case of its name and value, and whether the value is a token or
    # a quoted-string"; RFC 7240 §2 puts BWS around "=", which a recipient must read.
    ("BATCH-ON-ERROR=STOP",),
    ('wait=5, batch-on-error="stop"',),
    ("batch-on-error = stop",),
    ('Batch-On-Error="Stop"; mb-suite-param', "respond-async"),
    # RFC 7240 §2: a quoted-string `word` may hold commas and semicolons, which separate no
    # preference: batch-on-error after one, and with one as its own parameter, is read.
    ('mb-suite="a, b; c", batch-on-error=stop',),
    ('batch-on-error=stop; mb-suite="x, batch-on-error=continue"',),
    # RFC 9110 §5.6.4: in a quoted-string a backslash starts a quoted-pair, so `\"` does not
    # end the string and `\\` is one backslash, after which `"` does end it: batch-on-error
    # follows a string that holds an escaped quote, or ends in an escaped backslash.
    ('mb-suite="a\\"b", batch-on-error=stop',),
    ('mb-suite="a\\\\", batch-on-error=stop',),
    ('batch-on-error=stop; mb-suite="a\\", batch-on-error=continue"',),
    # MB-PROC-13 lets the value be a quoted-string, and RFC 9110 §5.6.4 reads a quoted-pair as
    # the octet after its backslash: "st\op", "\s\t\o\p", "\stop" and "sto\p" are all
    # stop, whatever the case (MB-PROC-13: "whatever the case of its name and value").
    ('batch-on-error="st\\op"',),
    ('wait=5, Batch-On-Error="\\S\\t\\o\\P"',),
    ('batch-on-error="\\stop"',),
    ('batch-on-error="sto\\p";mb-suite=1',),
    # RFC 7240 §2: `*( OWS ";" [ OWS parameter ] )`, so parameters, even an empty one, may
    # follow the value with or without whitespace; spec 7.4: "`batch-on-error=stop` is a
    # preference ... in `Prefer: batch-on-error=stop; x=1`".
    ("batch-on-error=stop;x=1",),
    ('batch-on-error="stop";x=1',),
    ("batch-on-error=stop;",),
    ("batch-on-error=sTOP ;x",),
    # RFC 9110 §5.6.4: `qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text` and
    # `quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )`: a quoted value holding octets above
    # 0x7F (one character per octet here), before stop or as its parameter, is valid.
    ('mb-suite="caf\xe9", batch-on-error=stop',),
    ('batch-on-error=stop; mb-suite="\x80 \\\xff"',),
    ('mb-suite="caf\xc3\xa9"', "batch-on-error=stop"),
    # RFC 7240 §2 writes Prefer as a list (`1#preference`), and RFC 9110 §5.6.1 makes "a
    # recipient MUST parse and ignore a reasonable number of empty list elements": one before
    # batch-on-error, one after it, and two in a row before it leave it a preference.
    (", batch-on-error=stop",),
    ("batch-on-error=stop,",),
    ("wait=5,, batch-on-error=stop",),
)


@checker(
    "prefer-several-preferences",
    ("MB-PROC-6", "MB-PROC-13"),
    "Prefer batch-on-error=stop is honoured when other preferences or empty list elements come before or after it, in one field line or several, in every declared form.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def prefer_several(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [nf, ok]
    for lines in CASES:
        prefer = tuple(("Prefer", v) for v in lines)
        # Every form the target declares: the Prefer field is read whatever the answer's form.
        for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
            # MB-PROC-6: a server honouring batch-on-error=stop "skips every part after the
            # first with status 400 or above and echoes Preference-Applied".
            judge.expect(
                f"{media} part 1 outcome with Prefer {lines!r}", entries[1].outcome, {"skipped"}
            )
            applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
            judge.expect_true(
                f"{media} Preference-Applied with Prefer {lines!r}",
                "batch-on-error=stop" in applied.split(","),
                repr(applied),
                "batch-on-error=stop",
            )
            # MB-PROC-13: "MUST write it in `Preference-Applied` in lower case with an unquoted
            # value", whatever spelling the request used.
            written = [m.strip() for v in resp.get_all("Preference-Applied") for m in v.split(",")]
            spelled = [m for m in written if m.replace(" ", "").lower() == "batch-on-error=stop"]
            judge.expect(
                f"{media} Preference-Applied spelling with Prefer {lines!r}",
                spelled,
                [["batch-on-error=stop"]],
                "MB-PROC-13",
            )


#: Prefer field lines naming batch-on-error twice, stop first and a value no server knows
#: after it (a token, none, an empty string, an extension of stop), on one field line and on
#: two.
STOP_THEN_UNKNOWN: tuple[tuple[str, ...], ...] = (
    ("batch-on-error=stop, batch-on-error=mb-suite-retry",),
    ("batch-on-error=stop", "batch-on-error=mb-suite-retry"),
    ("batch-on-error=stop, wait=5, batch-on-error=mb-suite-retry",),
    ("batch-on-error=stop", "batch-on-error"),
    ('batch-on-error=stop, batch-on-error=""',),
    ("BATCH-ON-ERROR=STOP", "Batch-On-Error=Stopped"),
)


@checker(
    "prefer-stop-then-unknown-value",
    ("MB-PROC-11", "MB-PROC-6"),
    "Prefer batch-on-error=stop followed by batch-on-error with an unrecognised value, on one field line or two, is honoured as stop: the unrecognised one is absent, not a reset to continue.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def prefer_stop_then_unknown(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [nf, ok]
    for lines in STOP_THEN_UNKNOWN:
        prefer = tuple(("Prefer", v) for v in lines)
        for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
            # MB-PROC-11: "treat a `batch-on-error` preference with a value it does not
            # recognise as if it were absent", so what stands is the stop before it (RFC 7240
            # §2: of a preference given more than once "only the first instance is to be
            # considered"); whichever way it is read, the unrecognised value asks for nothing.
            judge.expect(
                f"{media} part 1 outcome with Prefer {lines!r}",
                entries[1].outcome,
                {"skipped"},
                "MB-PROC-11",
            )
            applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
            named = [
                m for m in applied.split(",") if m.split("=")[0].split(";")[0] == "batch-on-error"
            ]
            # MB-PROC-6: stop honoured "and send `Preference-Applied: batch-on-error=stop`";
            # MB-PROC-11: the unrecognised value is left "out of `Preference-Applied`".
            judge.expect(
                f"{media} batch-on-error in Preference-Applied with Prefer {lines!r}",
                named,
                [["batch-on-error=stop"]],
                "MB-PROC-11",
            )


#: Prefer field lines naming batch-on-error more than once, on one field line or several, each
#: with the policy its first instance asks for: "stop", "continue", or None when the first
#: instance's value is one no server knows (the preference is then absent).
REPEATED: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("batch-on-error=stop, batch-on-error=continue",), "stop"),
    (("batch-on-error=continue, batch-on-error=stop",), "continue"),
    (("batch-on-error=stop", "batch-on-error=continue"), "stop"),
    (("batch-on-error=continue", "batch-on-error=stop"), "continue"),
    (('Batch-On-Error="STOP", batch-on-error=continue',), "stop"),
    (('batch-on-error=Continue, BATCH-ON-ERROR="stop"',), "continue"),
    (
        ("respond-async, batch-on-error=stop; mb-suite-param=1", "wait=5, batch-on-error=continue"),
        "stop",
    ),
    (("batch-on-error=mb-suite-maybe, batch-on-error=stop",), None),
    (("batch-on-error=mb-suite-maybe", "batch-on-error=stop"), None),
    # MB-PROC-13: "An instance without a value (`batch-on-error`, or `batch-on-error; x=1`) or
    # with an empty one (`batch-on-error=`, `batch-on-error=""`, which RFC 7240 §2 makes the
    # same as none) is an instance whose value the server does not recognise": still the first
    # instance, so the later stop is not read.
    (("batch-on-error, batch-on-error=stop",), None),
    (("batch-on-error", "batch-on-error=stop"), None),
    (("Batch-On-Error; mb-suite-param=1, batch-on-error=stop",), None),
    (("batch-on-error=, batch-on-error=stop",), None),
    (("wait=5, batch-on-error =", "BATCH-ON-ERROR=STOP"), None),
    (('batch-on-error="", batch-on-error=stop',), None),
    (('batch-on-error=""', "batch-on-error=stop"), None),
)


def _named_policies(resp: Response) -> list[str]:
    """The batch-on-error members of Preference-Applied, lower-cased, without spaces."""
    applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
    return [m for m in applied.split(",") if m.split("=")[0].split(";")[0] == "batch-on-error"]


@checker(
    "prefer-repeated-preference-first-counts",
    ("MB-PROC-13", "MB-PROC-6", "MB-PROC-11"),
    "Prefer naming batch-on-error more than once, on one field line or several and in any spelling, runs under its first instance whatever the later ones say, and under the default policy when the first has an unrecognised value, in every declared form.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def prefer_repeated_first_counts(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [nf, ok]
    for lines, policy in REPEATED:
        prefer = tuple(("Prefer", v) for v in lines)
        for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
            what = f"{media} with Prefer {lines!r}"
            named = _named_policies(resp)
            # MB-PROC-13: "When the `Prefer` field (its field lines combined in order, RFC 9110
            # §5.3) names `batch-on-error` more than once, the server MUST follow the first
            # instance only (RFC 7240 §2), whatever the later ones say; when that first
            # instance has a value the server does not recognise, the preference is absent
            # ([MB-PROC-11]) and no later instance is read in its place."
            if policy == "stop":
                judge.expect(
                    f"{what}: part 1 outcome", entries[1].outcome, {"skipped"}, "MB-PROC-13"
                )
                # MB-PROC-6: under stop the server MUST "send `Preference-Applied:
                # batch-on-error=stop`", and no other batch-on-error beside it.
                judge.expect(
                    f"{what}: batch-on-error in Preference-Applied",
                    named,
                    [["batch-on-error=stop"]],
                    "MB-PROC-6",
                )
                continue
            # The first instance asks for continue, or for nothing a server knows: either way
            # the part after the failing one runs (MB-PROC-5: "every part runs whatever
            # earlier parts returned"), because the later stop is not read.
            judge.expect(f"{what}: part 1 outcome", entries[1].outcome, {None}, "MB-PROC-13")
            judge.expect(f"{what}: part 1 status", entries[1].status, {200}, "MB-PROC-13")
            judge.expect_true(
                f"{what}: Preference-Applied",
                "batch-on-error=stop" not in named,
                repr(resp.get_all("Preference-Applied")),
                "no batch-on-error=stop",
                "MB-PROC-13",
            )
            if policy is None:
                # MB-PROC-11: a value it does not recognise the server "MUST leave it out of
                # `Preference-Applied`", and a first instance without a value or with an empty
                # one is such a value (MB-PROC-13); continue, the default, is the only policy
                # that may be named (spec 7.4: "A server may name `batch-on-error=continue`").
                judge.expect_true(
                    f"{what}: unrecognised value in Preference-Applied",
                    all(m == "batch-on-error=continue" for m in named),
                    repr(resp.get_all("Preference-Applied")),
                    "no batch-on-error but continue",
                    "MB-PROC-11",
                )
