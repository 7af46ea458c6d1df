"""mkdocs hook: generates the site's tables and pages from the project's single sources.

Theory of operation: authored pages under docs/ carry the prose and mark where generated
content goes with an HTML comment, `<!-- mixbatch:NAME ARGS -->`. At every build, and at every
rebuild of `mkdocs serve`, this hook replaces each marker with Markdown made by the generators
in tools/docs_*.py from the spec, the requirement index, the suite's registry, the CLI's
`--help`, the committed reports and the benchmark summary. An unknown marker stops the build,
so a typo cannot ship an empty section. Because nothing generated is committed, nothing
generated can go stale.

Besides the markers the hook

- registers the `mixbatch-display` codec that pymdownx.snippets reads includes with, so the
  binary test vectors the spec includes render as text with `\\xNN` escapes;
- adds the `SpecLinks` preprocessor, active on the spec page only (see tools/docs_spec.py);
- adds one generated page per JSON Schema and lists them in the navigation under "Schemas";
- publishes every file of spec/examples/ unchanged under reference/vectors/, and the bench
  plots under benchmarks/plots/ when there is a bench summary to show them with.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

import docs_bench  # noqa: E402
import docs_chart  # noqa: E402
import docs_cli  # noqa: E402
import docs_octets  # noqa: E402
import docs_requirements  # noqa: E402
import docs_results  # noqa: E402
import docs_schemas  # noqa: E402
import docs_sources  # noqa: E402
import docs_spec  # noqa: E402
import docs_vectors  # noqa: E402

MARKER = re.compile(r"<!-- mixbatch:([a-z-]+)(?: ([^>]*?))? -->")
SCHEMAS_NAV_TITLE = "Schemas"
SCHEMAS_INDEX = "reference/schemas/index.md"

_spec_links = docs_spec.SpecLinks()
# Loaded once per build (on_config runs again on every rebuild of `mkdocs serve`).
_cache: dict[str, Any] = {}


def _once(key: str, make: Callable[[], Any]) -> Any:
    if key not in _cache:
        _cache[key] = make()
    return _cache[key]


def _requirements() -> list[docs_sources.Requirement]:
    return _once("requirements", lambda: docs_sources.load_requirements(ROOT)[1])  # type: ignore[no-any-return]


def _checks() -> list[docs_sources.CheckInfo]:
    return _once("checks", lambda: docs_sources.load_checks(ROOT))  # type: ignore[no-any-return]


def _reports() -> list[docs_sources.Report]:
    return _once("reports", docs_sources.load_reports)  # type: ignore[no-any-return]


def _schema_pages() -> list[docs_schemas.SchemaPage]:
    return _once("schemas", lambda: docs_schemas.schema_pages(ROOT))  # type: ignore[no-any-return]


def _optional_api(module: str) -> str:
    """`::: module` when the module exists in this checkout, an honest note otherwise."""
    if importlib.util.find_spec(module.split(".")[0]) and importlib.util.find_spec(module):
        return f"::: {module}\n"
    return (
        f'!!! note "`{module}` is not part of this build yet"\n'
        f"    The module `{module}` does not exist in this checkout; its API reference\n"
        "    appears here as soon as it does.\n"
    )


def _wide(markdown: str) -> str:
    """A generated table in a block that the stylesheet keeps ids unbroken in (md_in_html)."""
    return f'<div class="mb-generated" markdown="1">\n\n{markdown}\n</div>\n'


def _render(name: str, arg: str, base: str) -> str:
    """The Markdown for one marker."""
    if name == "latency-chart":
        return f'<figure class="mb-chart">{docs_chart.latency_chart_svg()}</figure>\n'
    if name == "requirements-table":
        return _wide(
            docs_requirements.requirements_table(_requirements(), _checks(), _reports(), base)
        )
    if name == "tier-table":
        return docs_results.tiers_table(_checks(), docs_sources.load_tiers(ROOT))
    if name == "via-scenarios":
        return docs_results.via_scenarios_table(docs_sources.load_via_scenarios(ROOT))
    if name == "results-overview":
        return docs_results.reports_overview(_reports())
    if name == "results-matrix":
        return _wide(
            docs_results.implementation_matrix(_requirements(), _checks(), _reports(), base)
        )
    if name == "coverage-matrix":
        return _wide(docs_results.coverage_matrix(_requirements(), _checks(), _reports(), base))
    if name == "mutation":
        return docs_results.mutation_section(docs_sources.load_mutation(), base)
    if name == "value-sweep":
        return _wide(docs_results.value_sweep_section(docs_sources.load_value_sweep()))
    if name == "input-sweep":
        return _wide(docs_results.input_sweep_section(docs_sources.load_input_sweep(), base))
    if name == "fuzz":
        return docs_results.fuzz_section(docs_sources.load_fuzz())
    if name == "cli-reference":
        return _once("cli", lambda: docs_cli.cli_page(docs_cli.collect_help()))  # type: ignore[no-any-return]
    if name == "schema-index":
        return docs_schemas.index_page(_schema_pages())
    if name == "vectors-table":
        return docs_vectors.vectors_table(docs_vectors.load_vectors(ROOT), base)
    if name == "spec-section":
        text = (ROOT / "spec" / "mixbatch.md").read_text(encoding="utf-8")
        return docs_spec.spec_section(text, arg, base + docs_spec.SPEC_PAGE) + "\n"
    if name == "bench-summary":
        return docs_bench.bench_section(ROOT)
    if name == "api":
        return _optional_api(arg)
    raise ValueError(f"unknown docs marker <!-- mixbatch:{name} --> (see docs/hooks/)")


def _with_schema_pages(nav: Any, pages: list[docs_schemas.SchemaPage]) -> Any:
    """The nav with the "Schemas" entry expanded into its index plus one page per schema."""
    if isinstance(nav, list):
        return [_with_schema_pages(item, pages) for item in nav]
    if isinstance(nav, dict):
        out = {}
        for title, value in nav.items():
            if title == SCHEMAS_NAV_TITLE and value == SCHEMAS_INDEX:
                out[title] = [SCHEMAS_INDEX, *({p.title: p.src_uri} for p in pages)]
            else:
                out[title] = _with_schema_pages(value, pages)
        return out
    return nav


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    _cache.clear()
    docs_octets.register()
    # Resolve includes from the repository root whatever directory mkdocs was started in.
    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(ROOT)]
    if _spec_links not in config.markdown_extensions:
        config.markdown_extensions.append(_spec_links)  # type: ignore[arg-type]
    if config.nav is not None:
        config.nav = _with_schema_pages(config.nav, _schema_pages())
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for page in _schema_pages():
        files.append(File.generated(config, page.src_uri, content=docs_schemas.schema_page(page)))
    if (ROOT / docs_bench.SUMMARY).is_file():
        for path in docs_bench.plot_files(ROOT):
            uri = f"{docs_bench.PLOTS_URI}/{path.name}"
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    examples = ROOT / "spec" / "examples"
    for path in sorted(examples.rglob("*")):
        # The folder's README is prose, shown on the vectors page; everything else is data.
        if path.is_file() and path.suffix != ".md":
            uri = f"{docs_vectors.VECTORS_URI}/{path.relative_to(examples).as_posix()}"
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _spec_links.active = page.file.src_uri == docs_spec.SPEC_PAGE
    base = "../" * page.file.src_uri.count("/")
    return MARKER.sub(lambda m: _render(m.group(1), (m.group(2) or "").strip(), base), markdown)
