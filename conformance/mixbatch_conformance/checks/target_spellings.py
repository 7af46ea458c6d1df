"""What the resource receives for each spelling of a part's target (spec 3.2.2, 3.2.3).

Theory of operation: a status alone cannot show that a part reached the right resource with
the right target: a server that drops the query, decodes percent-encoding, changes case or
keeps dot segments may still answer 200. The `echo` resource says what it received
(MB-TEST-2: "`target`, the origin-form request target (path and query) as received"), so
the check sends parts to it in several spellings and compares that target with the reference
resolved as MB-PART-5 says ("resolves the Content-Id reference against the batch request's
target URI by RFC 3986 §5.2": dot segments removed, everything else kept) and MB-PART-6 asks
("no unfolding, comment removal or case change"). Each part also carries an extension field
with a mixed-case name, which the resource must receive (MB-PART-8: "the part's other header
fields are the sub-request's header fields").
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: An extension field each part carries, its name in mixed case (names match in any case).
FIELD = ("X-MixBatch-Suite-Field", "Kept As Sent")
#: A query with upper case, a percent-encoded space and slash, and a repeated key.
QUERY = "Case=Kept&q=a%20b%2Fc&q=2"


def spellings(ctx: Context, echo: str) -> list[str]:
    """References to the echo resource: query, percent-encoding, dot segments, every form."""
    full = ctx.path(echo)
    parent = full.rsplit("/", 1)[0]
    name = full.rsplit("/", 1)[1]
    return [
        f"{full}?{QUERY}",
        f"{ctx.ref(echo, 'relative')}?{QUERY}",
        f"{parent}/mb-suite-dir/../{name}?{QUERY}",
        f"./{ctx.ref(echo, 'relative')}",
        f"{parent}/./mb-suite-dir/./../{name}",
        f"{ctx.ref(echo, 'absolute-uri')}?{QUERY}",
    ]


def resolved(ctx: Context, ref: str) -> str:
    """The origin-form target RFC 3986 §5.2 gives `ref` against the batch request's URI."""
    url = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{ctx.batch_path}", ref))
    return url.path + (f"?{url.query}" if url.query else "")


@checker(
    "target-forms-reach-resource",
    ("MB-PART-5", "MB-PART-6", "MB-PART-8"),
    "Parts addressed with a query, percent-encoding, upper case and dot segments, in every reference form, reach the resource with the target resolved by RFC 3986 and their fields intact.",
    state=State.READ_ONLY,
)
def target_forms_reach_resource(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    subs = [SubRequest("GET", ref, (FIELD,)) for ref in spellings(ctx, echo)]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, sub in enumerate(subs):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PART-5")
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        # MB-PART-5 and MB-PART-6: the resolved reference, with case, query and
        # percent-encoding as written.
        judge.expect(
            f"part {i} target received", seen.target, {resolved(ctx, sub.target)}, "MB-PART-5"
        )
        judge.expect(
            f"part {i} {FIELD[0]} received",
            seen.get_all(FIELD[0]),
            [[FIELD[1]]],
            "MB-PART-8",
        )
