"""Part bodies across orders of magnitude, past 64 KiB both ways (spec 3.2.4, 3.3).

Theory of operation: 64 KiB is where buffers, read sizes and flow-control windows commonly
end, so a server that copies a body in one read, or writes a part from one buffer, is right
below it and wrong above it. The check sends the `echo` resource bodies of 0 octets up to
256 KiB, crossing 65,536 one octet under, at and over, and reads back what the resource
received (MB-PART-8: "the part body is its content"; an echo that describes other octets
for the same request sent alone breaks MB-TEST-2 instead, so a difference is traced there);
and it asks the `random` resource for as many octets, and for both sides of 1 MiB, 2,000,000
and just over 4 MiB, whose part must carry exactly that many (MB-RESP-4: "its content as the part body"; MB-TEST-5). A size over a published limit, or over the random resource's largest n
(a 4xx alone), is left out rather than judged. `random-bodies-every-form` asks the random
resource for every count from 1 to 17 and for the edges of 32, 64, 128 and 64 KiB, in each form
the target declares: each part, entry or response carries exactly that many octets, whether the
form writes them as multipart content (MB-RESP-4), base64 (MB-MULTI-6) or a JSON string
(MB-MULTI-7).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.echo_blame import blame_echo
from mixbatch_conformance.checks._shared.octet_patterns import pattern
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    BODY_REQUIREMENT,
    answers_in_every_form,
)

__all__: list[str] = []

#: Octet counts: powers of ten and the 64 KiB edge on both sides.
SIZES = (0, 1, 10, 1000, 10_000, 65_535, 65_536, 65_537, 100_000, 262_144)
#: Counts asked of the random resource beyond SIZES: both sides of 1 MiB, where a recorder or a
#: write buffer is commonly capped, 2,000,000 and just over 4 MiB.
LARGE_RANDOM = (1_048_575, 1_048_576, 1_048_577, 2_000_000, 4_194_305)


@checker(
    "bodies-across-sizes",
    ("MB-PART-8", "MB-RESP-4", "MB-TEST-5", "MB-TEST-2"),
    "Request part bodies from 0 octets to 256 KiB and response part bodies up to just over 4 MiB, one under, at and over 64 KiB and 1 MiB, arrive whole.",
    state=State.READ_ONLY,
)
def bodies_across_sizes(ctx: Context, judge: Judge) -> None:
    echo = ctx.target.resource("echo")
    random = ctx.target.resource("random")
    if not echo and not random:
        judge.not_applicable("the target declares neither an echo nor a random resource")
    part_limit = ctx.limit("max_part_bytes")
    sizes = [n for n in SIZES if part_limit is None or n <= part_limit]
    subs: list[SubRequest] = []
    if echo:
        subs += [
            SubRequest(
                "PUT", ctx.path(echo), (("Content-Type", "application/octet-stream"),), pattern(n)
            )
            for n in sizes
        ]
    counts: list[int] = []
    if random:
        for n in sorted({*sizes, *LARGE_RANDOM}):
            sub = SubRequest("GET", ctx.path(random.replace("{n}", str(n))))
            if 400 <= ctx.alone(judge, sub).status < 500:
                break
            subs.append(sub)
            counts.append(n)
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, sub in enumerate(subs):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PART-8")
        if sub.method == "PUT":
            seen = read_echo(env.parts[i].body)
            if seen is None and i == 0:
                judge.not_applicable("the echo resource does not describe the request it received")
            if seen is None:
                # The same resource described the empty body (part 0), so an unreadable
                # description here is a part body that did not arrive whole.
                judge.expect_true(
                    f"echo part {i} body",
                    False,
                    f"{len(env.parts[i].body)} octets that are not an echo description",
                    "the whole echo description",
                    "MB-RESP-4",
                )
                continue
            if seen.body == sub.body:
                judge.expect_true(
                    f"echo of {len(sub.body)} octets", True, "equal", "the octets sent", "MB-PART-8"
                )
                continue
            blame_echo(ctx, judge, sub, seen.body)
        else:
            n = counts[i - (len(subs) - len(counts))]
            judge.expect(f"random part of {n} octets", len(env.parts[i].body), {n}, "MB-RESP-4")


#: Random body sizes judged in every form: each count up to 17 (the short bodies a writer may
#: treat apart, and the base64 padding cycle several times over), then either side of 32, 64,
#: 128 and 64 KiB.
FORM_SIZES = (*range(1, 18), 31, 32, 33, 63, 64, 65, 127, 128, 129, 65_535, 65_536, 65_537)


@checker(
    "random-bodies-every-form",
    ("MB-MULTI-5", "MB-MULTI-7", "MB-TEST-5", "MB-MULTI-6", "MB-RESP-4"),
    "Random bodies of every count from 1 to 17 octets and either side of 32, 64, 128 and 64 KiB come back with exactly that many octets in the multipart, XML and JSON forms.",
    state=State.READ_ONLY,
)
def random_bodies_every_form(ctx: Context, judge: Judge) -> None:
    random = ctx.path(ctx.resource(judge, "random"))
    part_limit = ctx.limit("max_part_bytes")
    parts_limit = ctx.limit("max_parts")
    sizes = [n for n in FORM_SIZES if part_limit is None or n <= part_limit]
    largest = SubRequest("GET", random.replace("{n}", str(sizes[-1])))
    if 400 <= ctx.alone(judge, largest).status < 500:
        # MB-TEST-5: "with a 4xx status for any larger *n*": keep to what it serves.
        sizes = [n for n in sizes if n < 65_535]
    if parts_limit is not None:
        sizes = sizes[: int(parts_limit)]
    subs = [SubRequest("GET", random.replace("{n}", str(n))) for n in sizes]
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for n, entry in zip(sizes, entries, strict=True):
            # MB-TEST-5: "exactly *n* octets of content", which each form carries by its own
            # sentence: MB-RESP-4 "its content as the part body" in multipart/mixed; MB-MULTI-6
            # "one `mb:body` element ... holding the body in base64" in the XML form;
            # MB-MULTI-7 `body` "when the body octets are valid UTF-8 ... otherwise in
            # `body_base64`" in the JSON form, so the member decodes to those octets.
            judge.expect(
                f"{media} random body of {n} octets", len(entry.body), {n}, BODY_REQUIREMENT[media]
            )
