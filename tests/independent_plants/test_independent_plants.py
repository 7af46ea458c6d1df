"""The suite catches violations planted by someone who had not read its checks.

Each plant in a set's plants.json (this folder's, and each roundN/ folder's) is a patch to the
independent Go server that breaks one server requirement; run_plants.py builds and runs every one
against the standard tier. The index of every set is checked on every run. The deep tier holds
the suite to each set's recorded results: the clean server has no FAIL, and every plant its
results.json records as caught is still caught by a check citing its requirement. That needs
the Go toolchain and about half an hour per set. run_plants.py --server node patches the Node
server instead: that its copy, patched or not, starts and answers is checked on every run where
node is installed.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.independent_plants import go_coverage, go_mutants, run_plants

HERE = Path(__file__).resolve().parent


#: Every set of plants: the first in this folder, each later blind one in its own, and the
#: red-team sets under redteam/.
SETS = sorted(
    [
        HERE,
        *(d for d in HERE.glob("round*") if (d / "plants.json").is_file()),
        *(d for d in HERE.glob("redteam/*") if (d / "plants.json").is_file()),
    ]
)


def recorded_catches(recorded: dict[str, Any]) -> set[str]:
    """The plants a set's results.json records as caught by a citing check: in its measurement,
    or in the run after the fixes (`after_fixes`) where the set has one."""
    runs = [recorded]
    after = recorded.get("after_fixes")
    if isinstance(after, dict):
        runs.append(after)
    return {v["id"] for run in runs for v in run.get("plants", []) if v["caught_by_requirement"]}


@pytest.mark.parametrize("folder", SETS, ids=[str(d.relative_to(HERE)) for d in SETS])
def test_index_names_existing_patches_and_requirements(folder: Path) -> None:
    plants = json.loads((folder / "plants.json").read_text())
    index = json.loads((HERE.parents[1] / "spec" / "requirements.json").read_text())
    known = {r["id"]: r["keyword"] for r in index["requirements"]}
    ids = [p["id"] for p in plants]
    assert len(ids) == len(set(ids))
    run_plants.server_of(plants, None)
    for plant in plants:
        assert (folder / plant["patch"]).is_file(), plant["id"]
        assert known.get(plant["requirement"]) == plant["keyword"], plant["id"]


@pytest.mark.parametrize("folder", SETS, ids=[str(d.relative_to(HERE)) for d in SETS])
def test_every_patch_applies_to_its_server_as_it_stands(folder: Path, tmp_path: Path) -> None:
    """A plant whose patch no longer applies cannot be measured again (the deep tier's re-run,
    a rerun after a fix), so an edit to an independent server that moves a plant's lines must
    refresh that plant's patch in the same change."""
    plants = json.loads((folder / "plants.json").read_text())
    server = run_plants.SERVERS[run_plants.server_of(plants, None)]
    copy = tmp_path / "server"
    shutil.copytree(server, copy, ignore=shutil.ignore_patterns("target", "build"))
    stale = []
    for plant in plants:
        done = subprocess.run(
            ["git", "apply", "--check", str(folder / plant["patch"])],
            cwd=copy,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            stale.append(f"{plant['id']}: {done.stderr.strip()[:200]}")
    assert stale == [], "\n".join(stale)


#: Seconds for one set's run: up to about 80 builds and standard-tier runs, two at a time.
DEEP_TIMEOUT_S = 3600


@pytest.mark.deep
@pytest.mark.timeout(DEEP_TIMEOUT_S)
@pytest.mark.parametrize("folder", SETS, ids=[str(d.relative_to(HERE)) for d in SETS])
def test_every_recorded_catch_still_holds(folder: Path, tmp_path: Path, mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the planted servers run with --mixbatch-tier deep (make deep)")
    server = run_plants.server_of(json.loads((folder / "plants.json").read_text()), None)
    if run_plants.find_tool(server) is None:
        pytest.skip(f"no {server} binary to build or run the planted servers")
    if not (folder / "results.json").is_file():
        pytest.skip(f"{folder.name} has not been measured yet")
    recorded = json.loads((folder / "results.json").read_text())
    out = tmp_path / "results.json"
    index = str(folder / "plants.json")
    code = run_plants.main(["--jobs", "2", "--index", index, "--results", str(out)])
    fresh = json.loads(out.read_text())
    assert code == 0, fresh["summary"]["clean_false_failures"]
    now = {v["id"] for v in fresh["plants"] if v["caught_by_requirement"]}
    lost = sorted(recorded_catches(recorded) - now)
    assert lost == [], f"plants no longer caught: {lost}"


def test_a_set_names_one_server() -> None:
    assert run_plants.server_of([{"id": "a"}], None) == "go"
    assert run_plants.server_of([{"id": "a", "server": "node"}], None) == "node"
    assert run_plants.server_of([{"id": "a", "server": "node"}], "node") == "node"
    assert run_plants.server_of([], "node") == "node"
    with pytest.raises(ValueError, match="different servers"):
        run_plants.server_of([{"id": "a", "server": "node"}, {"id": "b"}], None)
    with pytest.raises(ValueError, match="--server go"):
        run_plants.server_of([{"id": "a", "server": "node"}], "go")
    assert run_plants.server_of([{"id": "a", "server": "rust"}], None) == "rust"
    assert run_plants.server_of([{"id": "a", "server": "java"}], None) == "java"


def test_recorded_catches_include_the_runs_after_fixes() -> None:
    recorded = {
        "plants": [
            {"id": "a", "caught_by_requirement": []},
            {"id": "b", "caught_by_requirement": ["x"]},
        ],
        "after_fixes": {"plants": [{"id": "a", "caught_by_requirement": ["y"]}]},
    }
    assert recorded_catches(recorded) == {"a", "b"}
    assert recorded_catches({"plants": [{"id": "a", "caught_by_requirement": []}]}) == set()


def test_coverage_allowances_name_existing_blocks() -> None:
    """Each allowance names a line of source that still stands in the function it names, with
    a reason; an allowance for code that was removed would hide nothing and mislead."""
    allowed = json.loads(go_coverage.ALLOWED.read_text())["allowed"]
    assert allowed, "the allowance list is empty"
    for entry in allowed:
        lines = (run_plants.SERVER_DIR / entry["file"]).read_text().splitlines()
        where = [
            i for i, line in enumerate(lines, 1)
            if line.strip() == entry["text"]
            and go_coverage.enclosing_function(lines, i) == entry["function"]
            and go_coverage.occurrence(lines, i) == entry.get("nth", 0)
        ]  # fmt: skip
        assert where, entry
        assert entry["reason"].strip(), entry


def test_coverage_profile_is_read_by_block(tmp_path: Path) -> None:
    """A block with count 0 is listed under its function; counted statements are totalled."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.go").write_text(
        "package main\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
    )
    profile = tmp_path / "p.txt"
    profile.write_text(
        "mode: set\n"
        "example/a.go:3.20,4.11 1 1\n"
        "example/a.go:4.11,6.3 1 0\n"
        "example/a.go:7.2,7.10 1 1\n"
    )
    total, covered, blocks = go_coverage.read_blocks(profile, src)
    assert (total, covered) == (3, 2)
    assert [(b.function, b.first, b.text) for b in blocks] == [("f", 4, "if x > 0 {")]
    unexplained, stale = go_coverage.compare(
        blocks, [{"file": "a.go", "function": "f", "text": "return 0", "reason": "r"}]
    )
    assert [b.first for b in unexplained] == [4]
    assert stale == [{"file": "a.go", "function": "f", "text": "return 0", "reason": "r"}]


#: Seconds for the covered server's one standard-tier run and its build.
COVERAGE_TIMEOUT_S = 900


@pytest.mark.deep
@pytest.mark.timeout(COVERAGE_TIMEOUT_S)
def test_standard_tier_reaches_every_reachable_block(tmp_path: Path, mixbatch_tier: str) -> None:
    """Every block of the Go server that a request can reach is executed by the standard tier:
    a block no check reaches is an input no check sends, where any planted mistake passes."""
    if mixbatch_tier != "deep":
        pytest.skip("the covered server runs with --mixbatch-tier deep (make deep)")
    if run_plants.find_go() is None:
        pytest.skip("no go binary on PATH or at /usr/local/go/bin/go")
    out = tmp_path / "coverage.json"
    code = go_coverage.main(["--check", "--out", str(out)])
    found = json.loads(out.read_text())
    unexplained = [u for u in found["unexecuted"] if u["allowed"] is None]
    assert code == 0, (unexplained, found["stale_allowances"])


def test_mutants_change_code_not_strings_or_comments(tmp_path: Path) -> None:
    """A mutant changes one token of code; text inside literals and comments stays as it is,
    lines the standard tier never ran are left alone, and the draw is repeatable."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.go").write_text(
        "package main\n"
        "func f(x int) bool {\n"
        '\tif x == 2 && s != "a == b" { // x == 3\n'
        "\t\treturn true\n"
        "\t}\n"
        '\th.Set("Vary", "Accept")\n'
        "\treturn x < 5\n"
        "}\n"
    )
    found = go_mutants.candidates(src, unexecuted={("a.go", 7)})
    made = {(m.line, m.operator, m.after.strip()) for m in found}
    assert (3, "eq-to-ne", 'if x != 2 && s != "a == b" { // x == 3') in made
    assert (3, "int-plus-one", 'if x == 3 && s != "a == b" { // x == 3') in made
    assert (3, "and-to-or", 'if x == 2 || s != "a == b" { // x == 3') in made
    assert (4, "true-to-false", "return false") in made
    assert (6, "drop-field", '// h.Set("Vary", "Accept")') in made
    assert all(m.line != 7 for m in found)
    assert all('"a == b"' in m.after and "// x == 3" in m.after for m in found if m.line == 3)
    assert list(go_mutants.draw(found, 2, 5)) == list(go_mutants.draw(found, 2, 5))


def test_serving_reads_the_url_from_the_first_line() -> None:
    """The URL is the word after the ready prefix, whatever follows it on the line."""
    line = "mbserver listening on http://127.0.0.1:9 (more words)"
    command = [sys.executable, "-c", f"import time; print({line!r}, flush=True); time.sleep(60)"]
    with run_plants.serving(command) as url:
        assert url == "http://127.0.0.1:9"


def test_serving_refuses_another_first_line() -> None:
    command = [sys.executable, "-c", "print('listening', flush=True)"]
    with pytest.raises(RuntimeError, match="unexpected first line"), run_plants.serving(command):
        pass


#: The line of the Node server's /r/ok that the plants below change.
OK_LINE = "return text(200, 'OK\\n');"


def server_plant(server: str, name: str, line: str, new: str, folder: Path) -> Path:
    """A plant for `server`, its paths relative to that server's folder, as a patch file in
    `folder`: the one `line` of its file `name` written as `new`."""
    before = (run_plants.SERVERS[server] / name).read_text()
    assert before.count(line) == 1
    after = before.replace(line, new)
    diff = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    patch = folder / "plant.patch"
    patch.write_text("".join(diff))
    return patch


def node_plant(folder: Path, new: str) -> Path:
    """A plant for the Node server: /r/ok's line written as `new`."""
    return server_plant("node", "lib/resources.js", OK_LINE, new, folder)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.parametrize(("patched", "status"), [(False, 200), (True, 500)])
def test_node_server_copy_starts_and_answers(tmp_path: Path, patched: bool, status: int) -> None:
    """--server node: the copy, with a plant's patch applied, passes `node --check`, starts on a
    free loopback port through `serving` and answers there."""
    node = run_plants.find_tool("node")
    if node is None:
        pytest.skip("no node binary on PATH")
    patch = node_plant(tmp_path, OK_LINE.replace("200", "500")) if patched else None
    command = run_plants.build(node, patch, tmp_path / "work", tmp_path / "cache", "node")
    with run_plants.serving(command) as url:
        assert url.startswith("http://127.0.0.1:")
        assert _status(f"{url}/r/ok") == status
        assert _status(f"{url}/r/nothing-here") == 404


def test_node_server_copy_with_a_syntax_error_is_refused(tmp_path: Path) -> None:
    """A patch that leaves a .js file unparseable fails the build step, as a Go build would."""
    node = run_plants.find_tool("node")
    if node is None:
        pytest.skip("no node binary on PATH")
    patch = node_plant(tmp_path, OK_LINE.replace(");", ";"))
    with pytest.raises(subprocess.CalledProcessError):
        run_plants.build(node, patch, tmp_path / "work", tmp_path / "cache", "node")


#: The line of the Rust server's /res/ok handler that the plants below change.
RUST_OK = 'Response::new(200).with_body("text/plain; charset=utf-8", b"ok\\n".to_vec())'


def rust_plant(folder: Path, new: str) -> Path:
    """A plant for the Rust server: /res/ok's answer written as `new`."""
    return server_plant("rust", "src/resources.rs", RUST_OK, new, folder)


@pytest.mark.parametrize(("patched", "status"), [(False, 200), (True, 500)])
def test_rust_server_copy_builds_and_answers(tmp_path: Path, patched: bool, status: int) -> None:
    """--server rust: the copy, with a plant's patch applied, builds with cargo (its target
    folder left behind), starts on a free loopback port through `serving` and answers there."""
    cargo = run_plants.find_tool("rust")
    if cargo is None:
        pytest.skip("no cargo on PATH or in ~/.cargo/bin")
    patch = rust_plant(tmp_path, RUST_OK.replace("200", "500")) if patched else None
    command = run_plants.build(cargo, patch, tmp_path / "work", tmp_path / "cache", "rust")
    with run_plants.serving(command) as url:
        assert url.startswith("http://127.0.0.1:")
        assert _status(f"{url}/res/ok") == status
        assert _status(f"{url}/res/missing") == 404


def test_rust_server_copy_that_does_not_compile_is_refused(tmp_path: Path) -> None:
    """A patch that leaves the crate uncompilable fails the build step, as a Go build would."""
    cargo = run_plants.find_tool("rust")
    if cargo is None:
        pytest.skip("no cargo on PATH or in ~/.cargo/bin")
    patch = rust_plant(tmp_path, RUST_OK.replace("200", '"200"'))
    with pytest.raises(subprocess.CalledProcessError):
        run_plants.build(cargo, patch, tmp_path / "work", tmp_path / "cache", "rust")
