"""The spec and its requirement index agree, and the checker that says so can fail.

Each rule of tools/spec_index.py is tested twice: once against the repository's own
spec/mixbatch.md and spec/requirements.json (which must pass), and once against a small
hand-made Markdown or index that breaks exactly that rule (which must be caught). The second
half is what shows each check is able to fail.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_checker() -> ModuleType:
    # tools/ is a folder of scripts, not a package; load the module from its path.
    path = ROOT / "tools" / "spec_index.py"
    spec = importlib.util.spec_from_file_location("mixbatch_tools_spec_index", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


checker = _load_checker()

SPEC_TEXT = (ROOT / "spec" / "mixbatch.md").read_text(encoding="utf-8")
INDEX: dict[str, Any] = json.loads((ROOT / "spec" / "requirements.json").read_text("utf-8"))


# ---------------------------------------------------------------- the repository's own files


def test_repository_index_is_valid() -> None:
    assert checker.check_index(INDEX) == []


def test_repository_spec_agrees_with_index() -> None:
    assert checker.check_spec(SPEC_TEXT, INDEX, ROOT) == []


def test_repository_spec_defines_every_index_id_exactly_once() -> None:
    defined = [d.requirement for d in checker.extract_definitions(checker.split_blocks(SPEC_TEXT))]
    assert sorted(defined) == sorted(e["id"] for e in INDEX["requirements"])
    assert len(defined) == len(set(defined))


def spec_versions() -> dict[str, str]:
    """Every place under spec/ that states the spec version, with the version it states."""
    header = next(
        line for line in (ROOT / "spec" / "mixbatch.md").read_text("utf-8").splitlines()
        if line.startswith("Version: ")
    )  # fmt: skip
    found = {"spec/mixbatch.md": header.split()[1]}
    for path in sorted((ROOT / "spec" / "examples" / "documents").glob("*.json")):
        document = json.loads(path.read_text("utf-8"))
        for value in (document, document.get("header", {})):
            if isinstance(value, dict) and "spec_version" in value:
                found[str(path.relative_to(ROOT))] = value["spec_version"]
    return found


def stale_versions(version: str) -> dict[str, str]:
    return {path: stated for path, stated in spec_versions().items() if stated != version}


def test_spec_header_and_example_documents_state_the_index_version() -> None:
    assert len(spec_versions()) > 4
    assert stale_versions(INDEX["spec_version"]) == {}


def test_a_version_bump_left_undone_is_reported() -> None:
    assert "spec/mixbatch.md" in stale_versions("draft-99")


def test_repository_spec_includes_only_existing_files() -> None:
    includes = [
        line.split('"')[1] for line in SPEC_TEXT.splitlines() if line.lstrip().startswith("--8<--")
    ]
    assert includes, "the spec includes its examples from spec/examples/"
    missing = [path for path in includes if not (ROOT / path).is_file()]
    assert missing == []


# ---------------------------------------------------------------- a tiny index for the bad cases


def _entry(rid: str, keyword: str, section: str = "3") -> dict[str, Any]:
    return {
        "id": rid,
        "keyword": keyword,
        "roles": ["server"],
        "section": section,
        "profile": "core",
        "summary": f"{rid} says something testable.",
    }


TINY_INDEX: dict[str, Any] = {
    "spec_version": "draft-02",
    "requirements": [_entry("MB-WIRE-1", "MUST"), _entry("MB-WIRE-2", "SHOULD NOT")],
}

GOOD_MD = """\
# Title

## 2. Conventions

The key words "MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT", "SHOULD", "SHOULD NOT",
"RECOMMENDED", "NOT RECOMMENDED", "MAY", and "OPTIONAL" in this document are to be interpreted
as described in BCP 14.

## 3. Wire format

<a id="MB-WIRE-1"></a>**[MB-WIRE-1]** A receiver MUST reject a bare LF.

- <a id="MB-WIRE-2"></a>**[MB-WIRE-2]** A sender SHOULD NOT send a preamble; see
  [MB-WIRE-1](#MB-WIRE-1).

Non-normative text in lower case: a sender must not do this, says [MB-WIRE-1](#MB-WIRE-1) in
[section 3](#3-wire-format).

```abnf
rule = "x"
```
"""


def test_tiny_index_and_good_markdown_pass() -> None:
    assert checker.check_index(TINY_INDEX) == []
    assert checker.check_spec(GOOD_MD, TINY_INDEX, ROOT) == []


# ---------------------------------------------------------------- the index checks can fail


def _broken_index(mutate: str) -> dict[str, Any]:
    index = copy.deepcopy(TINY_INDEX)
    first = index["requirements"][0]
    if mutate == "duplicate-id":
        index["requirements"].append(copy.deepcopy(first))
    elif mutate == "bad-id-pattern":
        first["id"] = "MB-wire-1"
    elif mutate == "unknown-area":
        first["id"] = "MB-FRAMING-1"
    elif mutate == "gap-in-numbers":
        index["requirements"][1]["id"] = "MB-WIRE-3"
    elif mutate == "bad-keyword":
        first["keyword"] = "MUSTN'T"
    elif mutate == "lower-case-keyword":
        first["keyword"] = "must"
    elif mutate == "bad-role":
        first["roles"] = ["browser"]
    elif mutate == "empty-roles":
        first["roles"] = []
    elif mutate == "bad-profile":
        first["profile"] = "fancy"
    elif mutate == "empty-summary":
        first["summary"] = "  "
    elif mutate == "bad-section":
        first["section"] = "three"
    elif mutate == "no-spec-version":
        del index["spec_version"]
    else:  # pragma: no cover - a typo in the parametrize list
        raise AssertionError(mutate)
    return index


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        ("duplicate-id", "defined 2 times"),
        ("bad-id-pattern", "does not match"),
        ("unknown-area", "area 'FRAMING'"),
        ("gap-in-numbers", "without gaps"),
        ("bad-keyword", "not a BCP 14 keyword"),
        ("lower-case-keyword", "not a BCP 14 keyword"),
        ("bad-role", "role 'browser'"),
        ("empty-roles", "roles must be a non-empty list"),
        ("bad-profile", "not a known profile"),
        ("empty-summary", "summary must be a non-empty string"),
        ("bad-section", "not a section number"),
        ("no-spec-version", "spec_version"),
    ],
)
def test_index_check_rejects_broken_index(mutate: str, message: str) -> None:
    problems = checker.check_index(_broken_index(mutate))
    assert any(message in problem for problem in problems), problems


# ---------------------------------------------------------------- the spec checks can fail


def _break(old: str, new: str) -> str:
    assert old in GOOD_MD
    return GOOD_MD.replace(old, new, 1)


BAD_MARKDOWN = {
    "missing-definition": (
        _break(
            '<a id="MB-WIRE-1"></a>**[MB-WIRE-1]** A receiver MUST reject a bare LF.',
            "A receiver rejects a bare LF.",
        ),
        "MB-WIRE-1: in the index but never defined",
    ),
    "definition-not-in-index": (
        GOOD_MD + '\n<a id="MB-WIRE-9"></a>**[MB-WIRE-9]** A sender MUST do more.\n',
        "MB-WIRE-9 is defined but is not in the index",
    ),
    "defined-twice": (
        GOOD_MD + '\n<a id="MB-WIRE-1"></a>**[MB-WIRE-1]** A receiver MUST reject it again.\n',
        "MB-WIRE-1: defined 2 times",
    ),
    "wrong-keyword": (
        _break("A receiver MUST reject a bare LF.", "A receiver SHOULD reject a bare LF."),
        "states no 'MUST'",
    ),
    "keyword-negated": (
        _break("A receiver MUST reject a bare LF.", "A receiver MUST NOT accept a bare LF."),
        "states no 'MUST'",
    ),
    "second-keyword-in-definition": (
        _break(
            "A receiver MUST reject a bare LF.", "A receiver MUST reject a bare LF and MAY log."
        ),
        "also says ['MAY']",
    ),
    "keyword-outside-definition": (
        _break("a sender must not do this", "a sender MUST NOT do this"),
        "outside a requirement definition",
    ),
    "keyword-in-heading": (
        _break("## 3. Wire format", "## 3. What a receiver MUST do"),
        "outside a requirement definition",
    ),
    "keyword-in-code-block": (
        _break('rule = "x"', 'rule = "x" ; senders MUST use it'),
        "outside a requirement definition",
    ),
    "second-boilerplate": (
        GOOD_MD + '\nThe key words "MUST", "MUST NOT" again.\n',
        "outside a requirement definition",
    ),
    "anchor-not-at-start": (
        _break(
            '<a id="MB-WIRE-1"></a>**[MB-WIRE-1]** A receiver MUST reject a bare LF.',
            'So: <a id="MB-WIRE-1"></a>**[MB-WIRE-1]** A receiver MUST reject a bare LF.',
        ),
        "is not at the start",
    ),
    "label-differs-from-anchor": (
        _break("**[MB-WIRE-1]** A receiver", "**[MB-WIRE-2]** A receiver"),
        "differ",
    ),
    "dangling-link": (
        _break("says [MB-WIRE-1](#MB-WIRE-1)", "says [MB-WIRE-7](#MB-WIRE-7)"),
        "link to #MB-WIRE-7 has no definition",
    ),
    "unknown-id-mentioned": (
        _break("in lower case:", "in lower case (see MB-PART-4):"),
        "MB-PART-4 is not in the index",
    ),
    "dangling-section-link": (
        _break("[section 3](#3-wire-format)", "[section 3](#3-wire-formats)"),
        "link to #3-wire-formats matches no heading",
    ),
    "missing-include": (
        GOOD_MD + '\n```http\n--8<-- "spec/examples/no-such-vector.request.http"\n```\n',
        "included file 'spec/examples/no-such-vector.request.http' does not exist",
    ),
    "wrong-section": (
        _break("## 3. Wire format", "## 4. Wire format"),
        "sits in section 4 but the index records section 3",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_MARKDOWN))
def test_spec_check_catches_broken_markdown(case: str) -> None:
    markdown, message = BAD_MARKDOWN[case]
    problems = checker.check_spec(markdown, TINY_INDEX, ROOT)
    assert any(message in problem for problem in problems), problems


def test_spec_check_accepts_a_subsection_of_the_recorded_section() -> None:
    markdown = _break("## 3. Wire format", "## 3. Wire format\n\n### 3.1.2 Line terminators")
    assert checker.check_spec(markdown, TINY_INDEX, ROOT) == []


def test_spec_check_rejects_a_section_that_only_shares_a_prefix() -> None:
    markdown = _break("## 3. Wire format", "## 31. Wire format")
    problems = checker.check_spec(markdown, TINY_INDEX, ROOT)
    assert any("sits in section 31" in problem for problem in problems), problems


def test_split_blocks_keeps_list_item_continuations_with_their_item() -> None:
    blocks = checker.split_blocks(GOOD_MD)
    item = next(block for block in blocks if block.kind == "list-item")
    assert "[MB-WIRE-1](#MB-WIRE-1)." in item.text
    assert item.section == "3"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "**[MB-WIRE-8]** A receiver MUST reject",
            "**[MB-WIRE-8]** A receiver SHOULD reject",
            "MB-WIRE-8 states no 'MUST'",
        ),
        ('<a id="MB-PROC-5"></a>**[MB-PROC-5]** ', "", "MB-PROC-5: in the index but never defined"),
        ("MB-PROC-5 (the default policy)", "MB-PROC-99", "MB-PROC-99 is not in the index"),
        ("stop-policy-skipped.response.http", "gone.response.http", "does not exist"),
        ("example, and uses lower case.", "example, and MUST use lower case.", "outside"),
    ],
)
def test_corrupted_copy_of_repository_spec_fails(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    copy_path = tmp_path / "mixbatch.md"
    text = SPEC_TEXT if old != "MB-PROC-5 (the default policy)" else SPEC_TEXT + f"\n{old}\n"
    assert old in text
    copy_path.write_text(text.replace(old, new, 1), encoding="utf-8")
    problems = checker.check_spec(copy_path.read_text(encoding="utf-8"), INDEX, ROOT)
    assert any(message in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("3.1.2 Line terminators", "312-line-terminators"),
        (
            "6. 207 Multi-Status and other representations",
            "6-207-multi-status-and-other-representations",
        ),
        ("3.2.2 Content-Id: the target", "322-content-id-the-target"),
    ],
)
def test_heading_slug_matches_the_toc_extension(title: str, slug: str) -> None:
    assert checker.heading_slug(title) == slug


def test_command_line_reports_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    assert checker.main([]) == 0
    assert "index and spec agree" in capsys.readouterr().out
