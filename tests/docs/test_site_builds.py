"""The site builds with --strict and no warning, and its generated pages hold what they promise.

These tests read the built HTML, so they check the whole chain: the hook ran, the generator
produced the rows, Markdown rendered them and mkdocs kept them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import docs_cli

from .conftest import ROOT, BuiltSite

REQUIREMENT_IDS = [
    r["id"]
    for r in json.loads((ROOT / "spec" / "requirements.json").read_text("utf-8"))["requirements"]
]


def test_site_builds_strict_without_warnings(built_site: BuiltSite) -> None:
    warnings = [line for line in built_site.log.splitlines() if line.startswith("WARNING")]
    assert built_site.returncode == 0, built_site.log
    assert warnings == []


def test_spec_page_anchors_every_requirement_and_links_it_to_its_checks(
    built_site: BuiltSite,
) -> None:
    html = built_site.page("spec/index.html")
    for rid in REQUIREMENT_IDS:
        assert f'id="{rid}"' in html, rid
        assert f'href="../requirements/#{rid}"' in html, rid


def test_spec_page_includes_the_vectors_it_names(built_site: BuiltSite) -> None:
    html = built_site.page("spec/index.html")
    # The snippets include inside the spec resolved (an unresolved one stops the build, but a
    # wrong base path could include nothing): a vector boundary appears in the page.
    assert "p7f9Axy2" in html
    # The all-octets vector is shown with visible escapes, not raw control octets.
    assert "\\x80" in html
    assert "\x00" not in html


def test_requirements_page_lists_every_id_with_an_anchor(built_site: BuiltSite) -> None:
    html = built_site.page("requirements/index.html")
    for rid in REQUIREMENT_IDS:
        assert f'<a id="{rid}"></a>' in html, rid
        assert f'href="../spec/#{rid}"' in html, rid


def test_requirements_page_names_the_covering_checks(built_site: BuiltSite) -> None:
    from mixbatch_conformance.checks import all_checks

    html = built_site.page("requirements/index.html")
    for check in all_checks():
        assert f'href="../results/#check-{check.id}"' in html, check.id


def test_cli_page_documents_every_subcommand_the_cli_offers(built_site: BuiltSite) -> None:
    top = subprocess.run(
        [sys.executable, "-m", "mixbatch", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    names = docs_cli.subcommands(top)
    assert {"serve", "send", "inspect", "conformance"} <= set(names)
    html = built_site.page("reference/cli/index.html")
    for name in names:
        assert f'id="cmd-{name}"' in html, name
        assert f"usage: mixbatch {name}" in html, name
    assert "mixbatch conformance discover" in html


def test_every_schema_has_a_page_including_the_schema_file(built_site: BuiltSite) -> None:
    schemas = sorted((ROOT / "spec" / "schemas").glob("*.schema.json"))
    assert schemas
    for path in schemas:
        slug = path.name.removesuffix(".schema.json")
        html = built_site.page(f"reference/schemas/{slug}/index.html")
        schema_id = json.loads(path.read_text("utf-8"))["$id"]
        assert schema_id in html, slug


def test_vector_files_are_published_unchanged(built_site: BuiltSite) -> None:
    for name in ("binary-body-all-octets.request.http", "bare-lf-in-part-header.request.http"):
        published = built_site.directory / "reference" / "vectors" / name
        assert published.read_bytes() == (ROOT / "spec" / "examples" / name).read_bytes()


def test_pages_load_nothing_from_other_hosts(built_site: BuiltSite) -> None:
    # theme.font: false and no CDN: scripts, stylesheets, images and fonts are all local.
    fetching = re.compile(r'<(?:script|img|link|source|iframe)\b[^>]*(?:src|href)="(?:https?:)?//')
    offenders = []
    for page in built_site.directory.rglob("*.html"):
        for match in fetching.finditer(page.read_text("utf-8")):
            if 'rel="canonical"' not in match.group(0):
                offenders.append(f"{page.relative_to(built_site.directory)}: {match.group(0)}")
    assert offenders == []


def test_home_page_carries_the_latency_chart_inline(built_site: BuiltSite) -> None:
    html = built_site.page("index.html")
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in html
    assert "108 s" in html
    assert "8.01 s" in html


def test_sitemap_and_canonical_links_name_the_published_address(built_site: BuiltSite) -> None:
    sitemap = (built_site.directory / "sitemap.xml").read_text("utf-8")
    assert "<loc>https://mixbatch.dev/spec/</loc>" in sitemap
    assert '<link rel="canonical" href="https://mixbatch.dev/spec/">' in built_site.page(
        "spec/index.html"
    )
