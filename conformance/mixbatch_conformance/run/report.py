"""Reports: JSON (spec/schemas/report.schema.json), JUnit XML, HTML, and per-case artifacts.

Theory of operation: `build_report` turns results into the JSON document the schema
describes (header, results, coverage, summary); the other writers render that document
plus the results. For every check that did not pass, the exact request and response octets
of each exchange are saved under DIR/cases/CHECK-ID/ (request-N.http is the whole request
as sent, request-N.body its content, response-N.http the response as received), with a
curl command that resends the content and the `mixbatch conformance replay` command that
resends the stored bytes unchanged. Nothing is re-serialized: the files are the wire; when
the answer was not HTTP at all, response-N.http holds the octets that did arrive.

A report folder reused from an earlier run is cleared of that run's cases first, so every
case folder belongs to this run. The HTML puts failures first, groups failures that share one
root cause (the same requirement broken the same way by many checks), and links each
requirement ID to its anchor in the spec on the documentation site (`SPEC_PAGE`). Its coverage
matrix gives each requirement the checks that name it and the planted violations that break it
(run.plants); a server requirement with neither says "no check" or "no plant", or why there is
none (run.coverage_gaps.UNCHECKED, run.plants.UNPLANTED). Members
the suite created but could not delete are listed in the HTML and in cleanup.json.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
import shlex
import shutil
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mixbatch_conformance import __version__
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.requirements import RequirementIndex
from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.run.coverage_gaps import UNCHECKED
from mixbatch_conformance.run.hop_blame import write_hop_blame
from mixbatch_conformance.run.plants import planted_coverage
from mixbatch_conformance.run.runner import CheckResult, requirement_verdict

__all__ = ["SPEC_PAGE", "RunInfo", "build_report", "coverage", "write_reports"]

SEVERITY_WORD = {"fail": "MUST", "warn": "SHOULD", "info": "MAY"}
#: The spec on the documentation site; each requirement has an anchor named by its ID there.
#: MIXBATCH_SPEC_URL points reports at another copy (a mirror, or a local build of the site).
SPEC_PAGE = os.environ.get("MIXBATCH_SPEC_URL", "https://mixbatch.dev/spec/")
#: A root cause shared by at least this many failing checks gets its own group in the HTML.
GROUP_AT = 3


@dataclass(frozen=True)
class RunInfo:
    """The report header's facts."""

    base_url: str
    batch_endpoint: str
    tier: str
    seed: int
    profiles: tuple[str, ...]
    started: dt.datetime
    duration_s: float
    name: str | None = None
    #: Why the run stopped before running every check (None: it did not).
    aborted: str | None = None
    #: Members the suite created and could not delete, with the reason.
    leftovers: tuple[str, ...] = ()
    #: The target description the run used, without credentials (saved with each case so
    #: that `replay` can judge the check again).
    description: dict[str, Any] | None = None
    #: The request variants sent (off, mixed or one name), and those the target did not take.
    request_variants: str = "off"
    variants_not_taken: tuple[str, ...] = ()


def coverage(checks: Iterable[Check], index: RequirementIndex) -> dict[str, list[str]]:
    """Requirement ID -> ids of the checks that verify it (empty list: uncovered)."""
    out: dict[str, list[str]] = {r.id: [] for r in index.requirements}
    for check in checks:
        for rid in check.requirements:
            out.setdefault(rid, []).append(check.id)
    return out


def _save_artifacts(
    result: CheckResult, root: Path, info: RunInfo, index: RequirementIndex
) -> dict[str, str | None]:
    base_url = info.base_url
    case_dir = root / "cases" / result.check.id
    case_dir.mkdir(parents=True, exist_ok=True)
    last: dict[str, str | None] = {"request": None, "response": None, "curl": None, "replay": None}
    curls = []
    for n, ex in enumerate(result.judge.exchanges):
        req_path = case_dir / f"request-{n}.http"
        req_path.write_bytes(ex.request)
        head, _, body = ex.request.partition(b"\r\n\r\n")
        body_path = case_dir / f"request-{n}.body"
        body_path.write_bytes(body)
        # Empty lines a check writes before a request line are no part of the request.
        lines = head.decode("latin-1").lstrip("\r\n").split("\r\n")
        words = lines[0].split(" ")
        curl: str | None = None
        if len(words) >= 2:
            parts = ["curl", "-sS", "-i", "-X", words[0], base_url + words[1]]
            for line in lines[1:]:
                name = line.split(":", 1)[0].lower()
                if name not in ("host", "content-length"):
                    parts += ["-H", line]
            if body:
                parts += ["--data-binary", f"@{body_path.resolve()}"]
            curl = shlex.join(parts)
            curls.append(curl)
        # Octets with no request line to begin with (a fault a check sends) have no curl
        # command; the .http file holds them as sent, for the replay.
        last["request"] = str(req_path.relative_to(root))
        last["curl"] = curl
        received = ex.response.raw if ex.response is not None else ex.raw
        if received:
            resp_path = case_dir / f"response-{n}.http"
            resp_path.write_bytes(received)
            last["response"] = str(resp_path.relative_to(root))
        else:
            last["response"] = None
    replay = f"mixbatch conformance replay {shlex.quote(str(case_dir))} --target {base_url}"
    last["replay"] = replay
    (case_dir / "curl.sh").write_text("\n".join(curls) + "\n", encoding="utf-8")
    (case_dir / "case.json").write_text(
        json.dumps(
            {
                "check_id": result.check.id,
                "requirements": list(result.check.requirements),
                "verdict_requirements": {
                    rid: requirement_verdict(result, rid, index).value
                    for rid in result.judged_requirements
                },
                "base_url": base_url,
                "tier": info.tier,
                "seed": info.seed,
                "verdict": result.verdict.value,
                "message": result.message,
                "exchanges": len(result.judge.exchanges),
                # request-N's connection: "2nd request on a kept connection", or its own.
                "connections": [ex.connection for ex in result.judge.exchanges],
                "expectations": [e.__dict__ for e in result.judge.expectations],
                "notes": result.judge.notes,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    if info.description is not None:
        (case_dir / "target.json").write_text(
            json.dumps(info.description, indent=2) + "\n", encoding="utf-8"
        )
    return last


def _result_doc(result: CheckResult, index: RequirementIndex) -> dict[str, Any]:
    severity = SEVERITY_WORD[result.check.severity(index).value]
    doc: dict[str, Any] = {
        "check_id": result.check.id,
        "requirements": list(result.check.requirements),
        "severity": severity,
        "profile": result.check.profile,
        "verdict": result.verdict.value,
        "message": result.message,
    }
    failed = result.failed_expectations
    if failed:
        doc["broken_requirements"] = list(result.broken_requirements)
        doc["accepted_outcomes"] = [f"{e.what}: {e.allowed}" for e in failed]
        doc["actual_outcome"] = "; ".join(f"{e.what}: {e.actual}" for e in failed)
    if result.artifacts:
        doc["artifacts"] = result.artifacts
    if result.replays is not None:
        doc["replays"] = {
            "runs": result.replays.runs,
            "failures": result.replays.failures,
            "classification": result.replays.classification,
        }
    return doc


def build_report(
    results: list[CheckResult], info: RunInfo, index: RequirementIndex, all_checks: list[Check]
) -> dict[str, Any]:
    summary: dict[str, int] = {v.value: 0 for v in Verdict}
    for r in results:
        summary[r.verdict.value] += 1
    target: dict[str, Any] = {"base_url": info.base_url, "batch_endpoint": info.batch_endpoint}
    if info.name:
        target["name"] = info.name
    return {
        "header": {
            "suite_version": __version__,
            "spec_version": index.spec_version,
            "seed": info.seed,
            "tier": info.tier,
            "profiles": sorted(info.profiles),
            "target": target,
            "started": info.started.isoformat(timespec="seconds"),
            "duration_s": round(info.duration_s, 3),
            "request_variants": {
                "mode": info.request_variants,
                "not_taken": list(info.variants_not_taken),
            },
        },
        "results": [_result_doc(r, index) for r in results],
        "coverage": coverage(all_checks, index),
        "summary": {"total": len(results), **summary},
    }


def _junit(results: list[CheckResult], index: RequirementIndex) -> bytes:
    suite = ElementTree.Element(
        "testsuite",
        name="mixbatch-conformance",
        tests=str(len(results)),
        failures=str(sum(r.verdict in (Verdict.FAIL, Verdict.FLAKY) for r in results)),
        errors=str(
            sum(
                r.verdict in (Verdict.HARNESS_ERROR, Verdict.SETUP_ERROR, Verdict.TIMEOUT)
                for r in results
            )
        ),
        skipped=str(sum(r.verdict is Verdict.NA for r in results)),
    )
    for r in results:
        reqs = " ".join(r.check.requirements)
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"mixbatch.{r.check.requirements[0]}",
            name=f"{r.check.id} [{reqs}]",
            time=f"{r.duration_s:.3f}",
        )
        text = r.message + "".join(
            f"\n{e.requirement} {e.what}: expected {e.allowed}; got {e.actual}"
            for e in r.failed_expectations
        )
        if r.artifacts.get("replay"):
            text += f"\nreplay: {r.artifacts['replay']}\ncurl: {r.artifacts.get('curl')}"
        if r.verdict in (Verdict.FAIL, Verdict.FLAKY):
            ElementTree.SubElement(
                case, "failure", message=r.message, type=r.verdict.value
            ).text = text
        elif r.verdict in (Verdict.HARNESS_ERROR, Verdict.SETUP_ERROR, Verdict.TIMEOUT):
            ElementTree.SubElement(
                case, "error", message=r.message, type=r.verdict.value
            ).text = text
        elif r.verdict is Verdict.NA:
            ElementTree.SubElement(case, "skipped", message=r.message)
        elif r.verdict in (Verdict.WARN, Verdict.INFO):
            ElementTree.SubElement(case, "system-out").text = f"{r.verdict.value}: {text}"
    root = ElementTree.Element("testsuites")
    root.append(suite)
    data: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return data


COLOURS = {
    "PASS": "#1a7f37",
    "FAIL": "#cf222e",
    "FLAKY": "#bf3989",
    "WARN": "#9a6700",
    "INFO": "#0969da",
    "N/A": "#6e7781",
}


_HTML_ORDER = (
    Verdict.FAIL,
    Verdict.FLAKY,
    Verdict.HARNESS_ERROR,
    Verdict.SETUP_ERROR,
    Verdict.TIMEOUT,
    Verdict.WARN,
    Verdict.INFO,
    Verdict.PASS,
    Verdict.NA,
)


def _req_link(rid: str) -> str:
    e = html.escape
    return f"<a href='{e(SPEC_PAGE)}#{e(rid)}'>{e(rid)}</a>"


def _unchecked_cell(rid: str) -> str:
    why = UNCHECKED.get(rid)
    return f"<i>none: {html.escape(why)}</i>" if why else "<b>no check</b>"


def _planted_cell(rid: str, plants: dict[str, list[str] | str | None]) -> str:
    """The planted-violations cell: the plants' names, why there is none, or a bold gap."""
    entry = plants.get(rid)
    if isinstance(entry, list):
        return " ".join(f"<code>{html.escape(n)}</code>" for n in entry)
    if isinstance(entry, str):
        return f"<i>none: {html.escape(entry)}</i>"
    return "<b>no plant</b>" if entry is None and rid in plants else ""


def _root_causes(results: list[CheckResult]) -> list[tuple[tuple[str, str, str], list[str]]]:
    """Failures that share their first broken expectation (requirement, what, actual), when
    at least GROUP_AT checks share it, largest group first."""
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for r in results:
        if r.verdict.failing and r.failed_expectations:
            first = r.failed_expectations[0]
            groups[(first.requirement, first.what, first.actual)].append(r.check.id)
    shared = [(k, v) for k, v in groups.items() if len(v) >= GROUP_AT]
    return sorted(shared, key=lambda kv: -len(kv[1]))


def _html(
    doc: dict[str, Any], results: list[CheckResult], index: RequirementIndex, info: RunInfo
) -> str:
    e = html.escape
    h = doc["header"]
    by_id = {r.check.id: r for r in results}
    rows = []
    # Failures first, then the other non-passing verdicts, then passes, then N/A.
    rank = {v: i for i, v in enumerate(_HTML_ORDER)}
    for r in sorted(results, key=lambda r: rank.get(r.verdict, len(rank))):
        colour = COLOURS.get(r.verdict.value, "#8250df")
        detail = ""
        if r.verdict not in (Verdict.PASS, Verdict.NA):
            items = "".join(
                f"<li><b>{_req_link(x.requirement)}</b> ({e(index.get(x.requirement).summary) if x.requirement in index else ''}) "
                f"{e(x.what)}: accepted {e(x.allowed)}; actual {e(x.actual)}</li>"
                for x in r.failed_expectations
            )
            files = ""
            if r.artifacts:
                files = (
                    f"<p>request: <code>{e(str(r.artifacts.get('request')))}</code> response: "
                    f"<code>{e(str(r.artifacts.get('response')))}</code></p>"
                    f"<pre>{e(str(r.artifacts.get('curl')))}\n{e(str(r.artifacts.get('replay')))}</pre>"
                )
            wire = ""
            if r.judge.exchanges:
                last = r.judge.exchanges[-1]
                raw = last.response.raw if last.response else (last.raw or b"(no response)")
                wire = (
                    f"<details><summary>last exchange ({e(last.connection)})</summary><pre>{e(last.request[:4000].decode('latin-1'))}</pre>"
                    f"<pre>{e(raw[:4000].decode('latin-1'))}</pre></details>"
                )
            replays = ""
            if r.replays is not None:
                replays = (
                    f"<p>replayed: {r.replays.failures}/{r.replays.runs} runs failed: "
                    f"<b>{r.replays.classification}</b></p>"
                )
            detail = f"<ul>{items}</ul>{replays}{files}{wire}"
        rows.append(
            f"<tr id='{e(r.check.id)}'><td style='color:{colour};font-weight:bold'>{e(r.verdict.value)}</td>"
            f"<td><code>{e(r.check.id)}</code></td><td>{' '.join(_req_link(x) for x in r.check.requirements)}</td>"
            f"<td>{e(r.check.profile)}</td><td>{e(r.check.description)}<br><small>{e(r.message)}</small>{detail}</td></tr>"
        )
    cov_rows = []
    plants = planted_coverage(index)
    # Each check's broken requirements once, not once a requirement row.
    broken = {i: r.broken_requirements for i, r in by_id.items()}
    for req in index.requirements:
        if not ({"server", "proxy"} & set(req.roles)):
            continue
        declared = doc["coverage"].get(req.id, [])
        # A check that broke this requirement through a shared judgement is listed too.
        ids = declared + [i for i, reqs in broken.items() if req.id in reqs and i not in declared]
        cells = " ".join(
            # Coloured by how the check graded this requirement, not by its overall verdict.
            f"<a href='#{e(i)}' style='color:{COLOURS.get(requirement_verdict(by_id[i], req.id, index).value, '#8250df')}'>{e(i)}</a>"
            if i in by_id
            else f"<span style='color:#6e7781'>{e(i)}</span>"
            for i in ids
        )
        cov_rows.append(
            f"<tr><td>{_req_link(req.id)}</td><td>{e(req.keyword)}</td><td>{e(req.summary)}</td>"
            f"<td>{cells or _unchecked_cell(req.id)}</td><td>{_planted_cell(req.id, plants)}</td></tr>"
        )
    summary = " ".join(f"{k}: {v}" for k, v in doc["summary"].items() if v)
    notices = ""
    if info.aborted:
        notices += f"<p style='color:#cf222e'><b>The run stopped early:</b> {e(info.aborted)}</p>"
    if info.leftovers:
        notices += (
            "<h2>Members the suite created and could not delete</h2><ul>"
            + "".join(f"<li><code>{e(x)}</code></li>" for x in info.leftovers)
            + "</ul>"
        )
    if info.variants_not_taken:
        notices += (
            "<p><b>Request variants the target does not answer as the request written</b> "
            "(HTTP makes each the same request; the run did not send them, and the checks "
            f"that judge those forms say why): {e(', '.join(info.variants_not_taken))}</p>"
        )
    causes = _root_causes(results)
    if causes:
        notices += (
            "<h2>Root causes</h2><ul>"
            + "".join(
                f"<li><b>{len(ids)} checks</b> broke {_req_link(req)} the same way: "
                f"{e(what)}: {e(actual)}<br><small>{' '.join(f'<a href={chr(39)}#{e(i)}{chr(39)}>{e(i)}</a>' for i in ids)}</small></li>"
                for (req, what, actual), ids in causes
            )
            + "</ul>"
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mixbatch conformance report</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse;width:100%}}
td,th{{border-bottom:1px solid #d0d7de;padding:4px;vertical-align:top;text-align:left}}
pre{{background:#f6f8fa;padding:6px;overflow-x:auto;white-space:pre-wrap}}</style></head><body>
<h1>mixbatch conformance report</h1>
<p>suite {e(h["suite_version"])} &middot; spec {e(h["spec_version"])} &middot; tier {e(h["tier"])}
&middot; seed {h["seed"]} &middot; profiles {e(", ".join(h["profiles"]))} &middot;
target <code>{e(h["target"]["base_url"] + h["target"]["batch_endpoint"])}</code> &middot;
{h["duration_s"]} s</p><p><b>{e(summary)}</b></p>
{notices}
<h2>Results</h2><table><tr><th>verdict</th><th>check</th><th>requirements</th><th>profile</th><th>detail</th></tr>
{"".join(rows)}</table>
<h2>Requirement coverage (server and proxy requirements)</h2>
<table><tr><th>ID</th><th>keyword</th><th>requirement</th><th>checks</th><th>planted violations</th></tr>{"".join(cov_rows)}</table>
</body></html>
"""


def write_reports(
    directory: Path,
    results: list[CheckResult],
    info: RunInfo,
    index: RequirementIndex,
    all_checks: list[Check],
) -> dict[str, Any]:
    """Write report.json, junit.xml, report.html and failing cases; return the JSON doc.

    Cases of an earlier run in the same folder are removed first."""
    directory.mkdir(parents=True, exist_ok=True)
    stale = directory / "cases"
    if stale.is_dir():
        shutil.rmtree(stale)
    (directory / "cleanup.json").unlink(missing_ok=True)
    for r in results:
        if r.verdict not in (Verdict.PASS, Verdict.NA) and r.judge.exchanges:
            r.artifacts = _save_artifacts(r, directory, info, index)
    doc = build_report(results, info, index, all_checks)
    problem = validate_against("report.schema.json", doc)
    if problem is not None and "missing" not in problem:
        raise ValueError(f"the report does not validate against report.schema.json: {problem}")
    (directory / "report.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    (directory / "junit.xml").write_bytes(_junit(results, index))
    (directory / "report.html").write_text(_html(doc, results, index, info), encoding="utf-8")
    write_hop_blame(directory)  # through a real intermediary: what fails only through the hop
    if info.leftovers:
        (directory / "cleanup.json").write_text(
            json.dumps({"not_deleted": list(info.leftovers)}, indent=2) + "\n", encoding="utf-8"
        )
    return doc
