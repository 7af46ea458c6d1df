"""A batch answered as the same batch was answered without one added input.

Checks that add a field, a trailer or another input a batch's rules never read send the batch
once without it (the baseline) and then with it; each part must then be answered as in the
baseline: the same status and `Batch-Outcome`, and each echo part the same request, compared
as spec 3.2.4 compares sub-requests.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import Echo, differences
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.validator import Envelope
from mixbatch_conformance.transport.http import Response

__all__ = ["BaselineBatch"]


class BaselineBatch:
    """One batch of `subs` as answered without the added input (`resp`). The parts whose
    target holds `echo_query` are echo parts, read for the request their resource saw."""

    def __init__(
        self,
        ctx: Context,
        judge: Judge,
        name: str,
        subs: list[SubRequest],
        resp: Response,
        echo_query: str,
    ) -> None:
        self.name, self.subs, self.resp = name, subs, resp
        self.env = ctx.read_batch(judge, resp)
        judge.require("part count, without the added input", len(self.env.parts), {len(subs)})
        self.echoes: dict[int, Echo] = {
            i: readable_echoes(judge, self.env.parts[i].body)[0]
            for i, s in enumerate(subs)
            if echo_query in s.target
        }

    def expect_parts_alike(
        self,
        ctx: Context,
        judge: Judge,
        what: str,
        env: Envelope,
        *,
        without: str,
        part_requirement: str,
        echo_requirement: str,
        echo_after_change: bool,
    ) -> None:
        """Expect each part of `env` answered as in the baseline: status and `Batch-Outcome`
        under `part_requirement`, each echo part's request under `echo_requirement`. With
        `echo_after_change` false, an echo part whose status or outcome already differs is
        not read further (one fault, one failure)."""
        for i, sub in enumerate(self.subs):
            part = f"{what}: part {i} ({sub.method} {sub.target})"
            ran = judge.expect(
                f"{part} status", part_status(env, i), {part_status(self.env, i)}, part_requirement
            )
            ran = (
                judge.expect(
                    f"{part} Batch-Outcome",
                    env.parts[i].get("Batch-Outcome"),
                    {self.env.parts[i].get("Batch-Outcome")},
                    part_requirement,
                )
                and ran
            )
            if i not in self.echoes or not (ran or echo_after_change):
                continue
            (seen,) = readable_echoes(judge, env.parts[i].body)
            # Spec 3.2.4's comparison: the part's resource receives the request it receives
            # in the baseline, none of the added input's lines among its own.
            found = differences(seen, self.echoes[i], ctx.target.volatile_headers)
            judge.expect_true(
                f"{part} is the request it is without {without}",
                not found,
                "; ".join(found) or "the same request",
                "the same method, target, authority, content and fields (spec 3.2.4)",
                echo_requirement,
            )
