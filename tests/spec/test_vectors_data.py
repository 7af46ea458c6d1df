"""The multipart vectors in spec/examples/ check their own data before anyone parses them.

Each check is a plain function returning a list of problems, so it runs twice: over every
shipped vector (no problems allowed) and over a deliberately broken sample (a problem must be
found), which proves the check can fail. The framing checks read the .http bytes with a small
splitter of their own, written from RFC 2046 §5.1.1 and independent of the codec: it finds the
delimiters, demands CRLF on every delimiter line and header line, and compares each body with
the expectation.
"""

from __future__ import annotations

import base64
import copy
import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "spec" / "examples"
SCHEMAS = ROOT / "spec" / "schemas"

Vector = dict[str, Any]
Problems = list[str]


def load_vectors() -> dict[str, tuple[Vector, bytes]]:
    """Every vector by file stem: its JSON expectation and its .http bytes."""
    vectors = {}
    for path in sorted(EXAMPLES.glob("*.json")):
        data = path.with_suffix(".http")
        vectors[path.stem] = (json.loads(path.read_text("utf-8")), data.read_bytes())
    return vectors


VECTORS = load_vectors()
VECTOR_SCHEMA = json.loads((SCHEMAS / "vector.schema.json").read_text("utf-8"))
PROBLEM_SCHEMA = json.loads((SCHEMAS / "problem.schema.json").read_text("utf-8"))
REQUIREMENT_IDS = {
    r["id"] for r in json.loads((ROOT / "spec" / "requirements.json").read_text())["requirements"]
}


def body_of(part: dict[str, Any]) -> bytes:
    if "body_text" in part:
        return str(part["body_text"]).encode("utf-8")
    return base64.b64decode(part["body_base64"], validate=True)


def boundary_of(content_type: str) -> str:
    """The boundary parameter of a Content-Type value, unquoted (RFC 9110 §5.6.6)."""
    match = re.search(r';\s*boundary=("(?:[^"\\]|\\.)*"|[^;\s]+)', content_type, re.IGNORECASE)
    assert match, content_type
    value = match.group(1)
    return re.sub(r"\\(.)", r"\1", value[1:-1]) if value.startswith('"') else value


def split_parts(data: bytes, boundary: str) -> tuple[list[tuple[list[bytes], bytes]], Problems]:
    """Split a multipart body into (header lines, body) pairs, noting every framing problem."""
    dash = b"--" + boundary.encode("latin-1")
    problems: Problems = []
    start = 0 if data.startswith(dash) else data.find(b"\r\n" + dash) + 2
    if start < 2 and not data.startswith(dash):
        return [], ["no first delimiter"]
    parts: list[tuple[list[bytes], bytes]] = []
    while True:
        after = start + len(dash)
        if data.startswith(b"--", after):
            return parts, problems  # close delimiter: the rest is the epilogue
        eol = data.find(b"\n", after)
        if eol < 0 or data[eol - 1 : eol] != b"\r" or data[after : eol - 1].strip(b" \t"):
            problems.append(f"delimiter line at {start} is not dash-boundary, padding, CRLF")
            return parts, problems
        header_end = data.find(b"\r\n\r\n", eol - 1)
        if data.startswith(b"\r\n", eol + 1):  # no header fields at all
            header_end = eol - 1
        if header_end < 0:
            return parts, [*problems, f"part at {eol + 1} has no blank line"]
        lines = data[eol + 1 : header_end].split(b"\r\n") if header_end > eol else []
        problems += [
            f"bare CR or LF in header line {ln!r}" for ln in lines if b"\r" in ln or b"\n" in ln
        ]
        body_start = header_end + 4
        next_delim = data.find(b"\r\n" + dash, body_start - 2)
        if next_delim < 0:
            return parts, [*problems, "no close delimiter"]
        parts.append((lines, data[body_start:next_delim] if next_delim >= body_start else b""))
        start = next_delim + 2


# --- Checks: each returns the problems it finds in one vector ------------------------------


def check_schema(vector: Vector, data: bytes) -> Problems:
    return [e.message for e in Draft202012Validator(VECTOR_SCHEMA).iter_errors(vector)]


def check_description(vector: Vector, data: bytes) -> Problems:
    text = vector.get("description", "")
    return [] if len(text) > 20 and text.endswith(".") else [f"not a sentence: {text!r}"]


def check_requirements_exist(vector: Vector, data: bytes) -> Problems:
    cited = set(vector.get("requirements", []))
    if "error" in vector:
        cited.add(vector["error"]["requirement"])
        if vector["error"]["requirement"] not in vector.get("requirements", []):
            return ["the error's requirement is not among the vector's requirements"]
    return [f"unknown requirement {r}" for r in sorted(cited - REQUIREMENT_IDS)]


def check_framing(vector: Vector, data: bytes) -> Problems:
    """A valid vector splits, with CRLF everywhere, into exactly the expected parts and bodies."""
    if not vector["valid"]:
        return []
    parts, problems = split_parts(data, boundary_of(vector["content_type"]))
    expected = vector["expect"]["parts"]
    if len(parts) != len(expected):
        problems.append(f"{len(parts)} parts on the wire, {len(expected)} expected")
    for index, ((_, body), part) in enumerate(zip(parts, expected, strict=False)):
        if body != body_of(part):
            problems.append(f"part {index}: body on the wire differs from the expectation")
    return problems


def check_body_length(vector: Vector, data: bytes) -> Problems:
    parts = vector.get("expect", {}).get("parts", [])
    return [
        f"part {i}: body_length {p['body_length']} but the body has {len(body_of(p))} octets"
        for i, p in enumerate(parts)
        if p["body_length"] != len(body_of(p))
    ]


def check_content_length(vector: Vector, data: bytes) -> Problems:
    """In a valid vector, a Content-Length field equals its part's body length (MB-WIRE-16)."""
    problems = []
    for i, part in enumerate(vector.get("expect", {}).get("parts", [])):
        for name, value in part["fields"]:
            if name.lower() == "content-length" and int(value) != part["body_length"]:
                problems.append(f"part {i}: Content-Length {value} != {part['body_length']}")
    return problems


def check_error_offset(vector: Vector, data: bytes) -> Problems:
    error = vector.get("error") or {}
    offset = error.get("byte_offset")
    if offset is None:
        return []
    return [] if 0 <= offset <= len(data) else [f"byte_offset {offset} outside 0..{len(data)}"]


def check_aborted_body(vector: Vector, data: bytes) -> Problems:
    """The body of a Batch-Outcome: aborted part is a valid problem document (MB-STATUS-6) with
    a 5xx status and, in part_index, the first part not answered (MB-STATUS-14)."""
    problems = []
    for position, part in enumerate(vector.get("expect", {}).get("parts", [])):
        if part.get("outcome") == "aborted":
            document = json.loads(body_of(part))
            validator = Draft202012Validator(PROBLEM_SCHEMA)
            problems += [e.message for e in validator.iter_errors(document)]
            if not 500 <= document.get("status", 0) <= 599:
                problems.append(f"abort status {document.get('status')!r} is not a 5xx")
            if document.get("part_index") != position:
                problems.append(f"abort part_index {document.get('part_index')!r} != {position}")
    return problems


CHECKS: list[Callable[[Vector, bytes], Problems]] = [
    check_schema,
    check_description,
    check_requirements_exist,
    check_framing,
    check_body_length,
    check_content_length,
    check_error_offset,
    check_aborted_body,
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("stem", sorted(VECTORS))
def test_vector_passes_check(stem: str, check: Callable[[Vector, bytes], Problems]) -> None:
    vector, data = VECTORS[stem]
    assert check(vector, data) == []


# --- Broken samples: each check must find its fault --------------------------------------------


def broken(
    stem: str, mutate: Callable[[Vector], Any], data: Callable[[bytes], bytes] | None = None
) -> tuple[Vector, bytes]:
    """A deep copy of a shipped vector with ``mutate`` applied, and its bytes after ``data``."""
    vector, raw = VECTORS[stem]
    sample = copy.deepcopy(vector)
    mutate(sample)
    return sample, (data(raw) if data else raw)


def set_part(key: str, value: Any, index: int = 0) -> Callable[[Vector], Any]:
    """A mutation that sets ``key`` of expected part ``index``."""
    return lambda v: v["expect"]["parts"][index].__setitem__(key, value)


BROKEN: list[tuple[Callable[[Vector, bytes], Problems], str, Callable[[], tuple[Vector, bytes]]]] = [
    (check_schema, "skipped status", lambda: broken("stop-policy-skipped.response", set_part("status", 424, 2))),
    (check_schema, "valid with error", lambda: broken("single-get.request", lambda v: v.__setitem__("error", VECTORS["lf-only.request"][0]["error"]))),
    (check_schema, "id direction", lambda: broken("single-get.request", lambda v: v.__setitem__("id", "single-get.response"))),
    (check_description, "no period", lambda: broken("single-get.request", lambda v: v.__setitem__("description", "A batch with one part"))),
    (check_description, "too short", lambda: broken("single-get.request", lambda v: v.__setitem__("description", "One part."))),
    (check_requirements_exist, "unknown id", lambda: broken("single-get.request", lambda v: v["requirements"].append("MB-WIRE-999"))),
    (check_requirements_exist, "error id not listed", lambda: broken("lf-only.request", lambda v: v.__setitem__("requirements", ["MB-WIRE-7"]))),
    (check_framing, "bare LF in header", lambda: broken("single-get.request", lambda v: None, lambda d: d.replace(b"GET\r\n", b"GET\n"))),
    (check_framing, "bare LF after delimiter", lambda: broken("single-get.request", lambda v: None, lambda d: d.replace(b"Z3\r\n", b"Z3\n", 1))),
    (check_framing, "body differs", lambda: broken("bare-lf-in-body.request", set_part("body_text", "line one\r\nline two\n\nline four\n"))),
    (check_framing, "part missing", lambda: broken("empty-bodies.request", lambda v: v["expect"]["parts"].pop())),
    (check_body_length, "length off by one", lambda: broken("binary-body-all-octets.request", set_part("body_length", 539))),
    (check_content_length, "stale Content-Length", lambda: broken("content-length-exact.request", set_part("body_length", 3, 1))),
    (check_error_offset, "offset past the end", lambda: broken("lf-only.request", lambda v: v["error"].__setitem__("byte_offset", 10_000))),
    (check_aborted_body, "problem without part_index", lambda: broken("aborted-mid-stream.response", set_part("body_text", '{"type":"about:blank","title":"x","status":503}', 2))),
    (check_aborted_body, "problem with a 4xx status", lambda: broken("aborted-mid-stream.response", set_part("body_text", '{"type":"about:blank","title":"x","status":400,"part_index":2}', 2))),
    (check_aborted_body, "problem without status", lambda: broken("aborted-mid-stream.response", set_part("body_text", '{"type":"about:blank","title":"x","part_index":2}', 2))),
]  # fmt: skip


@pytest.mark.parametrize(
    ("check", "sample"),
    [(c, s) for c, _, s in BROKEN],
    ids=[f"{c.__name__}-{n}" for c, n, _ in BROKEN],
)
def test_check_finds_fault_in_broken_sample(
    check: Callable[[Vector, bytes], Problems], sample: Callable[[], tuple[Vector, bytes]]
) -> None:
    vector, data = sample()
    assert check(vector, data) != []


# --- Checks over the whole set --------------------------------------------------------------


def check_pairs(names: set[str]) -> Problems:
    """Every NAME.http has a NAME.json and vice versa."""
    stems = {n.rsplit(".", 1)[0] for n in names}
    return [
        f"{s} lacks {ext}"
        for s in sorted(stems)
        for ext in ("http", "json")
        if f"{s}.{ext}" not in names
    ]


def check_ids(vectors: dict[str, Vector]) -> Problems:
    """Ids equal their file stems, which also makes them unique."""
    problems = [
        f"{stem}.json has id {v.get('id')!r}" for stem, v in vectors.items() if v.get("id") != stem
    ]
    ids = [v.get("id") for v in vectors.values()]
    return problems + [f"duplicate id {i!r}" for i in sorted(set(ids), key=str) if ids.count(i) > 1]


def test_every_http_file_has_its_json_and_back() -> None:
    assert check_pairs({p.name for p in EXAMPLES.iterdir() if p.suffix in {".http", ".json"}}) == []
    assert check_pairs({"a.request.http", "a.request.json", "b.request.http"}) == [
        "b.request lacks json"
    ]


def test_ids_equal_file_stems_and_are_unique() -> None:
    assert check_ids({stem: v for stem, (v, _) in VECTORS.items()}) == []
    sample = {"a.request": {"id": "b.request"}, "b.request": {"id": "b.request"}}
    assert check_ids(sample) == ["a.request.json has id 'b.request'", "duplicate id 'b.request'"]


def test_set_has_enough_vectors_of_each_kind() -> None:
    kinds = {(v["direction"], v["valid"]) for v, _ in VECTORS.values()}
    assert len(VECTORS) >= 45
    assert kinds == {("request", True), ("request", False), ("response", True), ("response", False)}


MUST_INCLUDE = [
    "thesis-post-then-get.request", "thesis-post-then-get.response", "thesis-conditional-get.request",
    "thesis-conditional-get.response", "collection-get-books.response", "binary-body-all-octets.request",
    "boundary-70-chars.request", "boundary-1-char.request", "lf-only.request", "bare-lf-in-body.request",
    "missing-close-delimiter.request", "empty-batch.request", "nested-batch.request",
    "too-many-parts.request", "oversized-part-header-section.request", "aborted-mid-stream.response",
    "response-missing-close-delimiter.response",
]  # fmt: skip


def test_vectors_named_by_the_spec_exist() -> None:
    assert [name for name in MUST_INCLUDE if name not in VECTORS] == []


def test_generator_reproduces_committed_files() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_vectors", ROOT / "tools" / "make_vectors.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    generated: dict[str, bytes] = module.build()
    committed = {
        p.name: p.read_bytes() for p in EXAMPLES.iterdir() if p.suffix in {".http", ".json"}
    }
    assert sorted(generated) == sorted(committed)
    assert [name for name in generated if generated[name] != committed[name]] == []
