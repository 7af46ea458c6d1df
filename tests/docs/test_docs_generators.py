"""The docs generators (tools/docs_*.py) on small, hand-made inputs.

Each test feeds a generator data whose right answer is obvious and checks the Markdown for
it, including the honest fallbacks: "no check yet", "not run", "not yet measured" and a
failing `--help`.
"""

from __future__ import annotations

import codecs
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from griffe_doctests import fence_doctests

import docs_bench
import docs_chart
import docs_cli
import docs_octets
import docs_requirements
import docs_results
import docs_schemas
import docs_sources
import docs_spec
import docs_vectors

from .conftest import ROOT

REQS = [
    docs_sources.Requirement(
        "MB-WIRE-8", "MUST", ("client", "server"), "3.1", "core", "No bare LF."
    ),
    docs_sources.Requirement("MB-RESP-3", "MUST", ("server",), "3.3", "core", "Echo | Content-Id."),
    docs_sources.Requirement("MB-PIPE-1", "MAY", ("server",), "11", "pipelining", "Pipelining."),
]
CHECKS = [
    docs_sources.CheckInfo("reject-bare-lf", ("MB-WIRE-8",), "core", "smoke", "A."),
    docs_sources.CheckInfo("echo-and-lf", ("MB-WIRE-8", "MB-RESP-3"), "core", "standard", "B."),
]


def _report(results: list[tuple[str, str]], name: str | None = "ref server") -> dict[str, Any]:
    target: dict[str, Any] = {"base_url": "http://127.0.0.1:8080", "batch_endpoint": "/batch"}
    if name:
        target["name"] = name
    verdicts = [v for _, v in results]
    summary = {k: verdicts.count(k) for k in docs_sources.VERDICT_ORDER[:-1]}
    summary["total"] = len(results)
    return {
        "header": {
            "suite_version": "0.1.0",
            "spec_version": "draft-02",
            "seed": 1,
            "tier": "smoke",
            "profiles": ["core"],
            "target": target,
            "started": "2026-01-01T00:00:00Z",
            "duration_s": 1.0,
        },
        "results": [
            {
                "check_id": cid,
                "requirements": ["MB-WIRE-8"],
                "severity": "MUST",
                "profile": "core",
                "verdict": verdict,
                "message": "m.",
            }
            for cid, verdict in results
        ],
        "coverage": {},
        "summary": summary,
    }


def _write(folder: Path, name: str, doc: Any) -> None:
    (folder / name).write_text(json.dumps(doc), encoding="utf-8")


# ---- sources ----------------------------------------------------------------------------


def test_reports_load_reference_first_and_validate(tmp_path: Path) -> None:
    _write(tmp_path, "zeta.json", _report([("reject-bare-lf", "FAIL")], name=None))
    _write(tmp_path, "reference.json", _report([("reject-bare-lf", "PASS")]))
    _write(tmp_path, "mutation.json", {"score": 0.9})
    reports = docs_sources.load_reports(tmp_path, ROOT)
    assert [r.key for r in reports] == ["reference", "zeta"]
    assert reports[1].name == "zeta"
    assert reports[0].verdict("reject-bare-lf") == "PASS"
    assert reports[0].verdict("echo-and-lf") == docs_sources.NOT_RUN


def test_an_invalid_report_stops_the_build(tmp_path: Path) -> None:
    broken = _report([("reject-bare-lf", "PASS")])
    broken["results"][0]["verdict"] = "GREAT"
    _write(tmp_path, "reference.json", broken)
    with pytest.raises(ValueError, match=r"reference\.json: not a valid conformance report"):
        docs_sources.load_reports(tmp_path, ROOT)


def test_worst_verdict_prefers_failure_and_defaults_to_not_run() -> None:
    assert docs_sources.worst_verdict(["PASS", "WARN", "N/A"]) == "WARN"
    assert docs_sources.worst_verdict(["PASS", "FLAKY", "FAIL"]) == "FAIL"
    assert docs_sources.worst_verdict([]) == docs_sources.NOT_RUN


def test_the_real_registry_and_index_load() -> None:
    _, requirements = docs_sources.load_requirements()
    checks = docs_sources.load_checks()
    ids = {r.id for r in requirements}
    assert checks
    assert all(set(c.requirements) <= ids for c in checks)


# ---- requirement index --------------------------------------------------------------------


def test_requirements_table_lists_every_id_and_says_no_check_yet() -> None:
    text = docs_requirements.requirements_table(REQS, CHECKS, [])
    for req in REQS:
        assert f'<a id="{req.id}"></a>[{req.id}](spec.md#{req.id})' in text
    pipe_row = next(line for line in text.splitlines() if "MB-PIPE-1" in line)
    assert "no check yet" in pipe_row
    assert "Echo \\| Content-Id." in text  # a pipe in a summary does not split the row


def test_requirements_table_shows_the_reference_verdict_or_not_run(tmp_path: Path) -> None:
    without = docs_requirements.requirements_table(REQS, CHECKS, [])
    assert "PASS" not in without
    assert "not run" in without
    _write(tmp_path, "reference.json", _report([("reject-bare-lf", "PASS")]))
    reports = docs_sources.load_reports(tmp_path, ROOT)
    text = docs_requirements.requirements_table(REQS, CHECKS, reports)
    wire_row = next(line for line in text.splitlines() if line.startswith('| <a id="MB-WIRE-8"'))
    assert "PASS</span> [`reject-bare-lf`](results/index.md#check-reject-bare-lf)" in wire_row
    assert 'mb-pass">PASS<' in wire_row
    assert 'mb-notrun">not run<' in wire_row  # echo-and-lf is not in the report


# ---- results ------------------------------------------------------------------------------


def test_matrix_lists_a_check_under_each_requirement_but_anchors_it_once(tmp_path: Path) -> None:
    _write(tmp_path, "reference.json", _report([("echo-and-lf", "FAIL")]))
    reports = docs_sources.load_reports(tmp_path, ROOT)
    text = docs_results.implementation_matrix(REQS, CHECKS, reports, base="../")
    rows = [line for line in text.splitlines() if "`echo-and-lf`" in line]
    assert len(rows) == 2
    assert text.count('<a id="check-echo-and-lf"></a>') == 1
    assert all('mb-fail">FAIL<' in row for row in rows)
    assert "(../spec.md#MB-RESP-3)" in text


def test_matrix_without_reports_says_not_run() -> None:
    text = docs_results.implementation_matrix(REQS, CHECKS, [])
    assert "(no report yet)" in text
    assert "PASS" not in text


def test_coverage_counts_uncovered_requirements() -> None:
    text = docs_results.coverage_matrix(REQS, CHECKS, [])
    assert "2 of 3 requirements are verified by at least one check; 1 have no check yet." in text
    assert "| MAY | 1 | 0 | 1 |" in text


def test_tiers_table_accumulates_lower_tiers() -> None:
    text = docs_results.tiers_table(CHECKS, ("smoke", "standard", "deep"))
    assert "| `standard` | 1 | 2 | core |" in text
    assert "| `deep` | 0 | 2 | none yet |" in text


def test_mutation_section_is_honest_when_absent_and_shows_given_numbers() -> None:
    assert "not measured yet" in docs_results.mutation_section(None)
    text = docs_results.mutation_section({"score": 0.9286, "killed": 26, "mutants": [1]})
    assert "| score | 0.929 |" in text
    assert "`mutants`" in text


def test_value_sweep_section_is_honest_when_absent_and_lists_unnoticed_first() -> None:
    assert "not run yet" in docs_results.value_sweep_section(None)
    doc = {
        "outcomes": [
            {"slot": "part-field:etag", "corruption": "drop", "readers": 3, "noticed_by": "a"},
            {
                "slot": "batch-field:date",
                "corruption": "alter",
                "readers": 9,
                "noticed_by": None,
                "allowed_unjudged": "the server's own clock",
            },
            {
                "slot": "problem-member:limit",
                "corruption": "alter",
                "readers": 2,
                "noticed_by": None,
                "allowed_unjudged": None,
            },
        ]
    }
    text = docs_results.value_sweep_section(doc)
    assert "1 noticed by a check, 1 allowed to go unnoticed" in text
    assert "**1 unnoticed**" in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows[0] == "| `problem-member:limit` | alter | 2 | **none** |"
    assert "none needed: the server's own clock" in rows[1]
    assert rows[2].endswith("[`a`](#check-a) |")


def test_input_sweep_section_counts_each_kind_and_lists_what_is_not_under_its_requirement() -> None:
    assert "not run yet" in docs_results.input_sweep_section(None)
    doc = {
        "outcomes": [
            {
                "slot": "part-field:accept",
                "plant": "ignore",
                "senders": ["a", "b"],
                "noticed_by": "a",
                "cited_by": "b",
                "status": "cited",
                "spec_requirement": "MB-PART-8",
            },
            {
                "slot": "part-field:te@name-case",
                "plant": "ignore-name-case",
                "senders": ["c"],
                "noticed_by": "c",
                "cited_by": None,
                "status": "uncited",
                "spec_requirement": "MB-PART-10",
            },
            {
                "slot": "top-field:pragma",
                "plant": "ignore",
                "senders": ["a"],
                "noticed_by": None,
                "status": "allowed",
                "spec_requirement": None,
                "allowed_unswept": "MB-SUB-6 gives it no rule",
            },
            {
                "slot": "envelope@preamble",
                "plant": "strip",
                "senders": ["a"],
                "noticed_by": None,
                "status": "unnoticed",
                "spec_requirement": "MB-WIRE-9",
            },
        ],
        "never_sent": [
            {"input": "part-field:if-range", "requirement": "MB-PROC-9", "rule": "If-Range"}
        ],
    }
    text = docs_results.input_sweep_section(doc)
    assert "4 plants of 4 slots: 2 noticed, 1 of them by a check citing" in text
    assert "**2 unnoticed or noticed only under other requirements**" in text
    assert "| `part-field` | 2 | 2 | 2 | 1 | 0 | 0 | 1 | 0 |" in text
    assert "| `envelope` | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 1 |" in text
    assert (
        "| `part-field:te@name-case` | ignore-name-case | [MB-PART-10](../spec.md#MB-PART-10) "
        "| 1 | [`c`](#check-c) | uncited |"
    ) in text
    assert "| `envelope@preamble` | strip | [MB-WIRE-9](../spec.md#MB-WIRE-9) | 1 | none |" in text
    assert "| `top-field:pragma` | ignore | MB-SUB-6 gives it no rule |" in text
    assert "| `part-field:if-range` | [MB-PROC-9](../spec.md#MB-PROC-9) | If-Range |" in text
    assert "part-field:accept`" not in text.split("Plants unnoticed")[1]


def test_input_sweep_file_is_not_read_as_a_conformance_report(tmp_path: Path) -> None:
    (tmp_path / "input-sweep.json").write_text('{"outcomes": []}')
    assert docs_sources.load_reports(tmp_path) == []
    assert docs_sources.load_input_sweep(tmp_path) == {"outcomes": []}


def test_mutation_rows_are_a_table_with_uncaught_plants_first() -> None:
    doc = {
        "score": "1/2",
        "mutations": [
            {
                "mutation": "ok",
                "breaks": "MB-RESP-1 order",
                "caught": True,
                "verdicts": {"batch-equals-alone": "FAIL"},
            },
            {"mutation": "missed", "breaks": "MB-WIRE-6", "caught": False, "verdicts": {}},
        ],
    }
    text = docs_results.mutation_section(doc)
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `missed` | [MB-WIRE-6](../spec.md#MB-WIRE-6)")
    assert "| none |" in rows[0]
    assert "[MB-RESP-1](../spec.md#MB-RESP-1) order" in rows[1]
    assert "`batch-equals-alone`" in rows[1]
    assert "mb-fail" in rows[1]
    assert "Further detail" not in text


# ---- CLI ----------------------------------------------------------------------------------


def test_subcommands_are_read_from_either_argparse_layout() -> None:
    listed = (
        "usage: mixbatch [-h] COMMAND ...\n\npositional arguments:\n  COMMAND\n"
        "    serve      run it\n    conformance\n               long help\n\noptions:\n"
        "  -h, --help\n"
    )
    assert docs_cli.subcommands(listed) == ["serve", "conformance"]
    assert docs_cli.command_summaries(listed) == {"serve": "run it", "conformance": "long help"}
    assert docs_cli.subcommands("usage: x {serve,send,proxy} ...") == ["serve", "send", "proxy"]


def test_cli_page_reports_a_failing_help_instead_of_hiding_it() -> None:
    broken = docs_cli.HelpText(("--help",), 1, "", "No module named mixbatch.__main__")
    text = docs_cli.cli_page([broken])
    assert "not available in this build" in text
    assert "No module named mixbatch.__main__" in text


def test_cli_page_has_a_section_per_help_text() -> None:
    top = docs_cli.HelpText(("--help",), 0, "usage: mixbatch\n", "")
    serve = docs_cli.HelpText(("serve", "--help"), 0, "usage: mixbatch serve\n\nRun it.\n", "")
    text = docs_cli.cli_page([top, serve])
    assert "## `mixbatch serve` {#cmd-serve}" in text
    assert "| [`mixbatch serve`](#cmd-serve) | Run it. |" in text


# ---- chart, octets, spec, vectors, schemas, bench, doctests ---------------------------------


def test_chart_computes_the_thesis_figures() -> None:
    model = docs_chart.THESIS_MODEL
    assert sum(model.one_by_one_ms) == pytest.approx(108_000)
    assert sum(model.batched_ms) == pytest.approx(8_010)
    svg = docs_chart.latency_chart_svg()
    assert ">108 s<" in svg
    assert ">8.01 s<" in svg
    assert svg.count("http") == 1  # the SVG namespace only: nothing to fetch


def test_octets_codec_shows_invalid_and_invisible_octets() -> None:
    docs_octets.register()
    data = "é\t".encode() + b"\x80\x00\r\nok"
    assert codecs.decode(data, docs_octets.CODEC_NAME) == "é\t\\x80\\x00\r\nok"


def test_octets_codec_keeps_a_character_split_across_reads(tmp_path: Path) -> None:
    docs_octets.register()
    decoder = codecs.getincrementaldecoder(docs_octets.CODEC_NAME)()
    encoded = "§".encode()
    text = decoder.decode(encoded[:1]) + decoder.decode(encoded[1:], final=True)
    assert text == "§"
    path = tmp_path / "v.http"
    path.write_bytes(b"a\xff" + "§".encode() * 5000)
    read = path.read_text(encoding=docs_octets.CODEC_NAME)
    assert read == "a\\xff" + "§" * 5000


def test_spec_links_point_repository_files_at_site_pages() -> None:
    text = (
        "[index](requirements.json) [ex](examples/) [docs](examples/documents/) "
        "[v](examples/single-get.request.http) [caps](schemas/capabilities.schema.json) "
        "[sec](#31-framing) [rfc](https://example.test/x) [odd](unknown.txt)"
    )
    out = docs_spec.rewrite_repo_links(text)
    assert "[index](requirements.md)" in out
    assert "[ex](reference/vectors.md)" in out
    assert "[docs](reference/vectors.md)" in out
    assert "[v](reference/vectors.md#single-get-request)" in out
    assert "[caps](reference/schemas/capabilities.md)" in out
    assert "[sec](#31-framing)" in out
    assert "(https://example.test/x)" in out
    assert "[odd](unknown.txt)" in out  # unknown: left for mkdocs --strict to report


def test_requirement_labels_become_links_to_the_index() -> None:
    text = '<a id="MB-WIRE-8"></a>**[MB-WIRE-8]** A receiver MUST ...'
    out = docs_spec.link_requirement_labels(text)
    assert out.startswith('<a id="MB-WIRE-8"></a>**[\\[MB-WIRE-8\\]](requirements.md#MB-WIRE-8 ')


def test_spec_section_lifts_one_section_and_aims_links_at_the_spec() -> None:
    spec = "## 14. A\n\n### 14.1 B\n\nSee [6.2](#62-x).\n\n#### 14.1.1 C\n\nc\n\n### 14.2 D\n\nd\n"
    body = docs_spec.spec_section(spec, "14.1")
    assert body.startswith("See [6.2](spec.md#62-x).")
    assert "#### 14.1.1 C" in body
    assert "14.2" not in body
    with pytest.raises(LookupError, match=r"'9\.9'"):
        docs_spec.spec_section(spec, "9.9")


def test_the_spec_has_the_sections_the_site_lifts() -> None:
    spec = (ROOT / "spec" / "mixbatch.md").read_text("utf-8")
    for number in ("14.1", "14.3"):
        assert docs_spec.spec_section(spec, number).strip()


def test_vectors_table_has_a_row_and_unique_anchor_per_vector() -> None:
    vectors = docs_vectors.load_vectors(ROOT)
    text = docs_vectors.vectors_table(vectors)
    anchors = [docs_vectors.vector_anchor(v["id"]) for v in vectors]
    assert len(set(anchors)) == len(vectors)
    for anchor in anchors:
        assert f'<a id="{anchor}"></a>' in text
    assert "reject: 400 citing MB-WIRE-8" in text


def test_schema_pages_walk_nested_members_and_include_the_file() -> None:
    pages = {p.slug: p for p in docs_schemas.schema_pages(ROOT)}
    text = docs_schemas.schema_page(pages["target"])
    assert "| `resources.sandbox_collection` |" in text
    assert '--8<-- "spec/schemas/target.schema.json"' in text
    fake = copy.deepcopy(pages["target"])
    assert docs_schemas.index_page([fake]).count("](target.md)") == 1


def test_bench_section_says_not_yet_measured_then_includes_the_summary(tmp_path: Path) -> None:
    assert "Not yet measured" in docs_bench.bench_section(tmp_path)
    summary = tmp_path / docs_bench.SUMMARY
    summary.parent.mkdir(parents=True)
    summary.write_text("# Results\n\n```sh\n# not a heading\n```\n", encoding="utf-8")
    (summary.parent / "a_methods.png").write_bytes(b"\x89PNG")
    text = docs_bench.bench_section(tmp_path)
    assert "\n## Results\n" in text
    assert "\n# not a heading\n" in text
    assert "![a_methods](benchmarks/plots/a_methods.png)" in text


def test_doctests_in_docstrings_are_fenced_once() -> None:
    doc = "An example.\n\n>>> [1, 2]\n[1, 2]\n\nAfter."
    fenced = fence_doctests(doc)
    assert fenced == "An example.\n\n```pycon\n>>> [1, 2]\n[1, 2]\n```\n\nAfter."
    assert fence_doctests(fenced) == fenced
    assert fence_doctests("Examples:\n    >>> 1\n    1\n") == "Examples:\n    >>> 1\n    1\n"


def test_via_table_lists_scenarios_or_says_unavailable() -> None:
    assert "Not yet available" in docs_results.via_scenarios_table(None)
    scenarios = [
        docs_sources.ViaScenario("passthrough", "transform", "relays", (), False),
        docs_sources.ViaScenario("drop-part", "fault", "drops | one", ("part-count",), False),
    ]
    text = docs_results.via_scenarios_table((scenarios, {"pipelining": "de-pipelines"}))
    assert "| `passthrough` | transform | relays | nothing |" in text
    assert "| `drop-part` | fault | drops \\| one | part-count |" in text
    assert "- `pipelining`: de-pipelines." in text


def test_runs_overview_counts_verdicts_or_says_there_are_none(tmp_path: Path) -> None:
    assert "No conformance results yet" in docs_results.reports_overview([])
    _write(tmp_path, "reference.json", _report([("a", "PASS"), ("b", "PASS"), ("c", "FAIL")]))
    text = docs_results.reports_overview(docs_sources.load_reports(tmp_path, ROOT))
    assert 'mb-pass">PASS</span> 2' in text
    assert 'mb-fail">FAIL</span> 1' in text
    assert "WARN" not in text  # zero counts are left out
    assert "tier smoke, seed 1" in text
