"""Recording the slots each check sends, planting a server that ignores each, and the report."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.run import recording
from mixbatch_conformance.run.input_sweep._catalog import (
    SPEC_INPUTS,
    UNSWEPT,
    never_sent,
    unswept_reason,
)
from mixbatch_conformance.run.input_sweep._plants import PLANT_KINDS, Plant, plants_for
from mixbatch_conformance.run.input_sweep._requirements import (
    no_requirement_reason,
    slot_requirement,
)
from mixbatch_conformance.run.input_sweep._slots import Slot, request_slots
from mixbatch_conformance.run.recording import NOTICED, SWEPT_TIERS, reference_relay, run_through
from mixbatch_conformance.run.runner import CheckResult
from mixbatch_conformance.transport.relay import MutationLike, Relay, RelayRequest

__all__ = [
    "FAILING_STATUSES",
    "MAX_CHECKS_PER_PLANT",
    "PLANT_BUDGET_S",
    "SWEEP_BUDGET_S",
    "SWEPT_TIERS",
    "PlantOutcome",
    "Recorder",
    "cites",
    "main",
    "record",
    "sweep",
    "sweep_reference",
]

#: Checks run against one plant at most: a slot sent by many checks and noticed by none is
#: reported after this many, as capped.
MAX_CHECKS_PER_PLANT = 500
#: Seconds one plant may take before its remaining senders are left unrun (a check that waits
#: out a budget takes tens of seconds).
PLANT_BUDGET_S = 120.0
#: Seconds the planting phase may take in all; plants after it are reported as not run.
SWEEP_BUDGET_S = 1800.0


@dataclass
class Recorder(MutationLike):
    """Edits nothing; notes the input slots of every request while a check runs."""

    endpoint: str = "/batch"
    #: Slots of requests the plants can edit: batches whose envelope reads whole.
    seen: set[Slot] = field(default_factory=set)
    #: Slots of every request, malformed batches included (for `never_sent`).
    sent: set[Slot] = field(default_factory=set)

    @property
    def edits_response(self) -> bool:
        # Answers stream as they would without a relay: streaming checks pass too.
        return False

    def request(self, req: RelayRequest) -> None:
        self.seen |= request_slots(req, self.endpoint)
        self.sent |= request_slots(req, self.endpoint, whole=False)


class _HeldNoOp(MutationLike):
    """Holds every answer whole and changes nothing: what a target plant costs a check."""


@dataclass(frozen=True)
class PlantOutcome:
    """One plant of one slot, the first check that noticed it and the first that noticed it
    citing the slot's requirement (None: none did)."""

    slot: Slot
    how: str
    senders: tuple[str, ...]
    noticed_by: str | None
    ran: int
    seconds: float
    #: Why the senders were not all run when none noticed and cited ("" when they were).
    capped: str = ""
    cited_by: str | None = None
    #: The requirements the first noticing check cited: its own and its broken expectations'.
    noticer_cites: tuple[str, ...] = ()

    @property
    def requirement(self) -> str | None:
        """The server requirement a noticing check must cite (None: no server rule names it)."""
        return slot_requirement(self.slot, self.how)

    @property
    def allowed(self) -> bool:
        return unswept_reason(self.slot) is not None

    @property
    def status(self) -> str:
        """`cited`, `noticed` (no requirement to cite), `uncited` (noticed, not under its
        requirement), `allowed` (unnoticed or uncited, as `UNSWEPT` lets it be) or `unnoticed`."""
        if self.noticed_by and self.cited_by:
            return "cited"
        if self.noticed_by and self.requirement is None:
            return "noticed"
        if self.allowed:
            return "allowed"
        return "uncited" if self.noticed_by else "unnoticed"


#: Outcome statuses that leave an input unverified.
FAILING_STATUSES = ("uncited", "unnoticed")


def cites(result: CheckResult, requirement: str) -> bool:
    """Whether `result` names `requirement`: declared by its check or named by a broken
    expectation (as the independent plants count a catch)."""
    return requirement in (*result.check.requirements, *result.broken_requirements)


def record(
    relay: Relay, ctx: Context, checks: Iterable[Check], sent: set[Slot] | None = None
) -> dict[Slot, list[str]]:
    """Run each of `checks` through `relay` and return slot -> the checks that sent it and
    passed, in registry order; add to `sent` every slot sent at all, in malformed batches too."""
    return recording.record(
        relay,
        ctx,
        checks,
        lambda: Recorder(ctx.target.batch_endpoint),
        lambda r: r.seen,
        None if sent is None else lambda r: sent.update(r.sent),
    )


def sweep(
    relay: Relay,
    ctx: Context,
    senders: dict[Slot, list[str]],
    slots: Sequence[Slot] | None = None,
    max_checks: int = MAX_CHECKS_PER_PLANT,
    plant_budget_s: float = PLANT_BUDGET_S,
    sweep_budget_s: float = SWEEP_BUDGET_S,
) -> list[PlantOutcome]:
    """Plant each way of ignoring each slot and run its senders until one notices citing the
    slot's requirement; after the first that notices, the senders declaring it run first."""
    checks = {c.id: c for c in all_checks()}
    held_passes: dict[str, bool] = {}

    def passes_held(check_id: str) -> bool:
        # A check that fails whenever answers are held whole notices nothing by failing
        # under a plant that holds them.
        if check_id not in held_passes:
            verdict = run_through(relay, _HeldNoOp(), checks[check_id], ctx).verdict
            held_passes[check_id] = verdict is Verdict.PASS
        return held_passes[check_id]

    outcomes = []
    sweep_start = time.monotonic()
    for slot in slots if slots is not None else sorted(senders):
        who = tuple(senders.get(slot, ()))
        for how in plants_for(slot):
            start = time.monotonic()
            if start - sweep_start > sweep_budget_s:
                outcomes.append(PlantOutcome(slot, how, who, None, 0, 0.0, "sweep budget"))
                continue
            plant = Plant(slot, how, ctx.target.batch_endpoint)
            requirement = slot_requirement(slot, how)
            queue = list(who)
            noticed: str | None = None
            cited: str | None = None
            noticer_cites: tuple[str, ...] = ()
            ran, capped = 0, ""
            while ran < len(queue):
                if ran >= max_checks:
                    capped = f"{max_checks} checks"
                    break
                if time.monotonic() - start > plant_budget_s:
                    capped = f"{plant_budget_s:.0f} s"
                    break
                check_id = queue[ran]
                ran += 1
                result = run_through(relay, plant, checks[check_id], ctx)
                if result.verdict not in NOTICED or (
                    plant.edits_response and not passes_held(check_id)
                ):
                    continue
                if noticed is None:
                    noticed = check_id
                    noticer_cites = tuple(
                        dict.fromkeys([*result.check.requirements, *result.broken_requirements])
                    )
                    if requirement is not None:
                        rest = queue[ran:]
                        first = [c for c in rest if requirement in checks[c].requirements]
                        queue[ran:] = first + [c for c in rest if c not in first]
                if requirement is None or cites(result, requirement):
                    cited = check_id if requirement is not None else None
                    break
            seconds = round(time.monotonic() - start, 2)
            outcomes.append(
                PlantOutcome(slot, how, who, noticed, ran, seconds, capped, cited, noticer_cites)
            )
    return outcomes


def _row(o: PlantOutcome) -> dict[str, object]:
    return {
        "slot": str(o.slot),
        "plant": o.how,
        "senders": list(o.senders),
        "checks_run": o.ran,
        "noticed_by": o.noticed_by,
        "cited_by": o.cited_by,
        "status": o.status,
        "noticer_cites": list(o.noticer_cites),
        "spec_requirement": o.requirement,
        "no_requirement": no_requirement_reason(o.slot, o.how),
        "capped": o.capped or None,
        "seconds": o.seconds,
        "allowed_unswept": unswept_reason(o.slot),
    }


#: What the JSON report says of itself, for a reader without this module.
ABOUT = (
    "Each input slot the smoke and standard checks sent to the batch endpoint (recorded "
    "through a relay in front of the reference server), a relay plant that makes the server "
    "ignore it, the checks that sent it (registry order) and the first of them that failed "
    "under the plant (`noticed_by`, null: none did). `spec_requirement` is the server "
    "requirement the slot serves (null: none governs it, `no_requirement` says why); "
    "`cited_by` is the first noticing check that cites it, declared or named by a broken "
    "expectation (after the first to notice, the senders declaring it run first), and "
    "`noticer_cites` what the first noticing check cited. `status`: cited, noticed (no "
    "requirement to cite), uncited (noticed, not under its requirement), allowed or "
    "unnoticed. `capped` says why not every sender ran; "
    "`allowed_unswept` gives the spec's reason a slot may go unnoticed. `unneutralised` lists "
    "slots no plant can remove; `never_sent` lists inputs the spec gives a server a rule for "
    "that no check sends."
)


def _dump(doc: dict[str, object]) -> str:
    """`doc` as JSON with one line per outcome and per unneutralised slot, for readable diffs."""
    compact = {k: doc[k] for k in ("outcomes", "unneutralised")}
    marks = {k: f"@@{k}@@" for k in compact}
    text = json.dumps({**doc, **marks}, indent=1, ensure_ascii=False)
    outcomes = compact["outcomes"]
    assert isinstance(outcomes, list)
    rows = ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in outcomes)
    text = text.replace(json.dumps(marks["outcomes"]), f"[\n  {rows}\n ]")
    slots = compact["unneutralised"]
    assert isinstance(slots, dict)
    items = ",\n  ".join(
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v)}" for k, v in slots.items()
    )
    text = text.replace(json.dumps(marks["unneutralised"]), f"{{\n  {items}\n }}")
    return text + "\n"


def sweep_reference(out: Path | None = None) -> list[PlantOutcome]:
    """Record and sweep against the reference server behind a relay; write `out` as JSON."""
    checks = [c for c in all_checks() if c.tier in SWEPT_TIERS]
    began = time.monotonic()
    with reference_relay() as (relay, ctx):
        sent: set[Slot] = set()
        senders = record(relay, ctx, checks, sent)
        recorded = time.monotonic()
        outcomes = sweep(relay, ctx, senders)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        statuses = [o.status for o in outcomes]
        doc = {
            "about": ABOUT,
            "summary": {
                "slots": len(senders),
                "plants": len(outcomes),
                "noticed": sum(1 for o in outcomes if o.noticed_by),
                "noticed_under_requirement": statuses.count("cited"),
                "noticed_without_requirement": statuses.count("noticed"),
                "noticed_not_under_requirement": statuses.count("uncited"),
                "allowed": statuses.count("allowed"),
                "unnoticed": statuses.count("unnoticed"),
                "record_seconds": round(recorded - began, 1),
                "sweep_seconds": round(time.monotonic() - recorded, 1),
            },
            "limits": {
                "max_checks_per_plant": MAX_CHECKS_PER_PLANT,
                "plant_budget_s": PLANT_BUDGET_S,
                "sweep_budget_s": SWEEP_BUDGET_S,
            },
            "plant_kinds": PLANT_KINDS,
            "unswept": UNSWEPT,
            "outcomes": [_row(o) for o in outcomes],
            "unneutralised": {
                str(s): list(w) for s, w in sorted(senders.items()) if not plants_for(s)
            },
            "never_sent": never_sent(sent | set(senders)),
            "spec_inputs": len(SPEC_INPUTS),
        }
        out.write_text(_dump(doc))
    return outcomes


def main(argv: Sequence[str] | None = None) -> int:
    """Print each plant and who noticed it; exit 1 when one is unnoticed, or noticed only by
    checks that do not cite its requirement, and not allowed to be."""
    args = list(argv if argv is not None else sys.argv[1:])
    out = Path(args[0]) if args else Path("reports/input-sweep.json")
    outcomes = sweep_reference(out)
    missed = [o for o in outcomes if o.status in FAILING_STATUSES]
    for o in outcomes:
        cap = f", capped at {o.capped}" if o.capped else ""
        print(
            f"{o.status:9} {o.slot} {o.how} [{o.requirement or '-'}]: "
            f"{o.noticed_by or '-'} / {o.cited_by or '-'} "
            f"({o.ran} of {len(o.senders)} run{cap}, {o.seconds} s)"
        )
    print(
        f"{len(outcomes)} plants, {len(missed)} unnoticed or not under their requirement "
        f"and not allowed; wrote {out}"
    )
    return 1 if missed else 0
