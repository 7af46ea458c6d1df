"""The built site in a real browser: headless chromium, driven by Playwright, on loopback only.

Theory of operation: the strict build (conftest's `built_site`) is served by http.server on
127.0.0.1 with an ephemeral port, in a thread that the test stops. Debian's chromium (not a
browser Playwright downloads) loads the pages; every request for any other host is aborted
and recorded, and the test fails if there was one, since the site must need nothing from
outside. The test walks what a newcomer does: open the spec, follow a requirement's label to
its checks, search for `Http-Status-Code`, open the results. At laptop width (1366 px) the
wide pages keep their tables reachable, and the real-intermediaries matrix and the deploy guide
render with every link resolving (the page loads, the fragment names an element of it) and no
sideways scroll of the whole page. Screenshots of each step are saved under reports/screenshots/
as test artifacts.

When /usr/bin/chromium is missing the test runs tools/ensure_chromium.sh; only if that cannot
install it does the test skip, with the script's reason.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import json
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from .conftest import ROOT, BuiltSite

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
SCREENSHOTS = ROOT / "reports" / "screenshots"
TIMEOUT_MS = 20_000
#: Opening a page waits longer than any other step: the results pages hold the whole check
#: matrix (over a megabyte of HTML), and make test shares 2 cores among 8 workers, so chromium
#: can need well over 20 s to reach the load event there.
NAVIGATION_TIMEOUT_MS = 90_000


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site_url(built_site: BuiltSite) -> Iterator[str]:
    assert built_site.returncode == 0, built_site.log
    handler = functools.partial(_QuietHandler, directory=str(built_site.directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _ensure_chromium() -> None:
    if CHROMIUM.exists():
        return
    proc = subprocess.run(
        ["bash", str(ROOT / "tools" / "ensure_chromium.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0 or not CHROMIUM.exists():
        reason = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        pytest.skip(f"chromium is not installed and could not be installed: {reason[0]}")


@pytest.fixture(scope="module")
def browser_page(site_url: str) -> Iterator[tuple[Any, list[str]]]:
    _ensure_chromium()
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []
    local = urlsplit(site_url).netloc

    def route(route: Any) -> None:
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            # Reduced motion: Material fades its tabs in, which a screenshot would catch midway.
            context = browser.new_context(
                viewport={"width": 1280, "height": 900}, reduced_motion="reduce"
            )
            context.route("**/*", route)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
            yield page, outside
            context.close()
        finally:
            browser.close()


def test_spec_requirement_label_leads_to_its_checks(
    browser_page: tuple[Any, list[str]], site_url: str
) -> None:
    page, outside = browser_page
    page.goto(f"{site_url}/spec/")
    page.wait_for_selector("h1")
    assert "Batching HTTP Requests" in page.inner_text("h1")
    label = page.locator('a[href="../requirements/#MB-WIRE-8"]').first
    label.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "spec-mb-wire-8.png"))
    label.click()
    page.wait_for_url(f"{site_url}/requirements/#MB-WIRE-8")
    row = page.locator("tr", has=page.locator('a[id="MB-WIRE-8"]'))
    assert row.count() == 1
    checks = row.locator('a[href^="../results/#check-"]')
    assert checks.count() >= 1
    assert row.locator('a[href="../spec/#MB-WIRE-8"]').count() == 1
    page.screenshot(path=str(SCREENSHOTS / "requirements-mb-wire-8.png"))
    first_check = checks.first.get_attribute("href")
    assert first_check is not None
    checks.first.click()
    anchor = first_check.split("#", 1)[1]
    page.wait_for_url(f"{site_url}/results/#{anchor}")
    assert page.locator(f'a[id="{anchor}"]').count() == 1
    assert outside == []


def test_search_finds_http_status_code(browser_page: tuple[Any, list[str]], site_url: str) -> None:
    page, outside = browser_page
    page.goto(f"{site_url}/")
    page.wait_for_selector("h1")
    search = page.locator("input.md-search__input")
    search.click()
    # The index loads in a web worker; a query typed before it is ready is not re-run. The
    # result meta line says "Initializing search" until the worker is ready.
    page.wait_for_function(
        "() => !document.querySelector('.md-search-result__meta')"
        "?.textContent.includes('Initializing')"
    )
    search.press_sequentially("Http-Status-Code")
    page.wait_for_selector(".md-search-result__item")
    # One atomic read: the result list grows as the results render.
    hrefs: list[str] = page.eval_on_selector_all(
        ".md-search-result__item a", "links => links.map(a => a.getAttribute('href') || '')"
    )
    page.screenshot(path=str(SCREENSHOTS / "search-http-status-code.png"))
    assert any("spec/" in href for href in hrefs), hrefs
    assert outside == []


def test_results_page_shows_the_matrix(browser_page: tuple[Any, list[str]], site_url: str) -> None:
    page, outside = browser_page
    page.goto(f"{site_url}/results/")
    page.wait_for_selector("h1")
    assert page.locator("h2#implementation-matrix").count() == 1
    assert page.locator('a[id^="check-"]').count() >= 1
    assert page.locator(".mb-verdict").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "results.png"), full_page=False)
    assert outside == []


def test_home_page_shows_the_chart_and_entry_points(
    browser_page: tuple[Any, list[str]], site_url: str
) -> None:
    page, outside = browser_page
    page.goto(f"{site_url}/")
    chart = page.locator("svg.mb-latency-chart")
    chart.wait_for()
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] > 200
    for target in ("spec/", "guides/test-your-server/", "guides/reference-server/"):
        assert page.locator(f'.mb-entry a[href="{target}"]').count() >= 1, target
    page.screenshot(path=str(SCREENSHOTS / "home.png"), full_page=True)
    assert outside == []


#: Every cell of a wide table is reachable: the table fits, or its wrapper scrolls sideways
#: (Material wraps tables in ``.md-typeset__scrollwrap``), and no ``code`` inside a table is
#: broken across lines, which would split names such as requirement IDs mid-word.
_TABLE_LAYOUT = """() => [...document.querySelectorAll('.md-typeset table')].map(t => {
    let scrolls = false;
    for (let el = t.parentElement; el && el !== document.body; el = el.parentElement) {
        const o = getComputedStyle(el).overflowX;
        if ((o === 'auto' || o === 'scroll') && el.scrollWidth >= t.scrollWidth - 1) {
            scrolls = true;
            break;
        }
    }
    const content = document.querySelector('.md-content').getBoundingClientRect();
    const box = t.getBoundingClientRect();
    const broken = [...t.querySelectorAll('code')]
        .filter(c => c.getClientRects().length > 1).map(c => c.textContent);
    return {fits: box.right <= content.right + 1, scrolls, broken};
})"""


@pytest.mark.parametrize("path", ["comparison/", "results/", "benchmarks/"])
def test_wide_tables_scroll_instead_of_cropping_at_laptop_width(
    browser_page: tuple[Any, list[str]], site_url: str, path: str
) -> None:
    page, outside = browser_page
    page.set_viewport_size({"width": 1366, "height": 768})
    try:
        page.goto(f"{site_url}/{path}")
        page.wait_for_selector("h1")
        tables: list[dict[str, Any]] = page.evaluate(_TABLE_LAYOUT)
        page.screenshot(path=str(SCREENSHOTS / f"laptop-{path.strip('/')}.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
    assert tables, f"{path} has no table"
    cropped = [i for i, t in enumerate(tables) if not (t["fits"] or t["scrolls"])]
    assert cropped == [], f"{path}: tables {cropped} are cut off on the right"
    broken = sorted({c for t in tables for c in t["broken"]})
    assert broken == [], f"{path}: code broken across lines in a table: {broken[:10]}"
    assert outside == []


def test_results_page_lists_the_planted_bugs(
    browser_page: tuple[Any, list[str]], site_url: str
) -> None:
    page, outside = browser_page
    page.goto(f"{site_url}/results/")
    heading = page.locator("h2#mutation-score")
    heading.wait_for()
    table = page.locator("table", has=page.locator("th", has_text="Planted bug"))
    assert table.count() == 1
    assert table.locator("tbody tr").count() >= 30
    assert outside == []


#: Every link in the page's content, as the browser resolves it (absolute, fragment kept).
_CONTENT_LINKS = "() => [...document.querySelectorAll('.md-content a[href]')].map(a => a.href)"
#: Whether the page itself scrolls sideways: wide tables and code blocks must scroll inside
#: their own wrappers (what `_TABLE_LAYOUT` checks), never push the whole page wider.
_PAGE_OVERFLOW = """() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
})"""
#: The published matrix's data, one entry per table row.
_MATRIX_DATA = ROOT / "docs" / "results" / "intermediaries" / "matrix.json"
#: What a matrix cell says: no check of the area fails through the hop, n do, or none ran.
_CELL = re.compile(r"^(✓|✗ \d+|-)$")


class _Ids(html.parser.HTMLParser):
    """The ids (and legacy ``<a name>``) a page defines: what a fragment can point at."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "id" or (tag == "a" and name == "name")):
                self.ids.add(value)


def _broken_links(page: Any, site_url: str) -> list[str]:
    """Links in the page's content to a page of this site that does not load, or to a
    fragment that page does not define. Links to other hosts are not followed (the site
    fetches nothing from outside; a link is the reader's choice)."""
    local = urlsplit(site_url).netloc
    hrefs: list[str] = page.evaluate(_CONTENT_LINKS)
    ids: dict[str, set[str] | None] = {}
    broken: list[str] = []
    for href in dict.fromkeys(hrefs):
        parts = urlsplit(href)
        if parts.netloc != local:
            continue
        target = parts._replace(fragment="").geturl()
        if target not in ids:
            response = page.request.get(target)
            if not response.ok:
                ids[target] = None
            elif "html" in response.headers.get("content-type", ""):
                parser = _Ids()
                parser.feed(response.text())
                ids[target] = parser.ids
            else:
                ids[target] = set()
        found = ids[target]
        if found is None:
            broken.append(f"{href} (no page)")
        elif parts.fragment and unquote(parts.fragment) not in found:
            broken.append(f"{href} (no #{unquote(parts.fragment)} there)")
    return broken


def _at_laptop_width(page: Any, url: str, shot: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Open ``url`` at 1366 px, save a screenshot, and measure its tables and its width."""
    page.set_viewport_size({"width": 1366, "height": 768})
    try:
        page.goto(url)
        page.wait_for_selector("h1")
        tables: list[dict[str, Any]] = page.evaluate(_TABLE_LAYOUT)
        width: dict[str, int] = page.evaluate(_PAGE_OVERFLOW)
        page.screenshot(path=str(SCREENSHOTS / shot))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
    return tables, width


def test_intermediaries_matrix_renders_with_a_row_per_program_and_variant(
    browser_page: tuple[Any, list[str]], site_url: str
) -> None:
    page, outside = browser_page
    rows = json.loads(_MATRIX_DATA.read_text(encoding="utf-8"))["rows"]
    tables, width = _at_laptop_width(
        page, f"{site_url}/results/intermediaries/", "laptop-results-intermediaries.png"
    )
    matrix = page.locator("table", has=page.locator("th", has_text="Program"))
    assert matrix.count() == 1
    headers = [h.strip() for h in matrix.locator("thead th").all_inner_texts()]
    assert headers[:2] == ["Program", "Variant"]
    # An area gets a column when a check of it ran through at least one row.
    areas = {a for row in rows for a, cell in row.get("areas", {}).items() if cell["ran"]}
    assert areas <= set(headers), f"areas without a column: {sorted(areas - set(headers))}"
    body = matrix.locator("tbody tr")
    assert body.count() == len(rows)
    for i, row in enumerate(rows):
        cells = body.nth(i).locator("td")
        assert cells.nth(0).inner_text().strip() == row["intermediary"]
        assert cells.nth(1).inner_text().strip() == row["variant"]
        for column, header in enumerate(headers):
            if header in areas and row["status"] == "ran":
                text = cells.nth(column).inner_text().strip()
                assert _CELL.match(text), f"{row['report']} {header}: {text!r}"
    # Each row's variant links to its own run report further down the page.
    variants = body.locator("td:nth-child(2) a")
    assert variants.count() == len(rows)
    assert [variants.nth(i).get_attribute("href") for i in range(len(rows))] == [
        f"#{row['report']}" for row in rows
    ]
    assert _broken_links(page, site_url) == []
    cropped = [i for i, t in enumerate(tables) if not (t["fits"] or t["scrolls"])]
    assert cropped == [], f"tables {cropped} are cut off on the right"
    assert width["scroll"] <= width["client"], f"the page scrolls sideways: {width}"
    assert outside == []


def test_deploy_guide_links_resolve_and_fit_at_laptop_width(
    browser_page: tuple[Any, list[str]], site_url: str
) -> None:
    page, outside = browser_page
    tables, width = _at_laptop_width(
        page, f"{site_url}/guides/deploy-behind-a-proxy/", "laptop-guides-deploy.png"
    )
    assert "reverse proxy" in page.inner_text("h1")
    assert tables, "the deploy guide has no table"
    assert page.locator('.md-content a[href="../../results/intermediaries/"]').count() >= 1
    assert _broken_links(page, site_url) == []
    cropped = [i for i, t in enumerate(tables) if not (t["fits"] or t["scrolls"])]
    assert cropped == [], f"tables {cropped} are cut off on the right"
    broken = sorted({c for t in tables for c in t["broken"]})
    assert broken == [], f"code broken across lines in a table: {broken[:10]}"
    assert width["scroll"] <= width["client"], f"the page scrolls sideways: {width}"
    assert outside == []
