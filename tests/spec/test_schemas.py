"""The JSON Schemas in spec/schemas/ are valid, documented, and agree with their example instances.

Instances live in spec/examples/documents/ named SCHEMA.VARIANT.json (or .xml for the RFC 4918
form of a multi-status), so the schema of a document is the part of its name before the first
dot. Where a document's variant names a vector (problem.too-many-parts.request.json,
multistatus.thesis-post-then-get.response.json), the document must also agree with that vector,
which keeps the three representations of one result (multipart, JSON, XML) saying the same
thing (MB-MULTI-5). Every checker also runs over a deliberately broken sample to show it can
fail.
"""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, SchemaError

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "spec" / "schemas"
EXAMPLES = ROOT / "spec" / "examples"
DOCUMENTS = EXAMPLES / "documents"
META = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://mixbatch.dev/schemas/"
DAV = "{DAV:}"
MB = "{https://mixbatch.dev/ns/multistatus}"
# The part's own Content-Length frames the part in multipart; other forms do not carry it.
FRAMING = {"content-length"}

SCHEMA_NAMES = ["vector", "problem", "capabilities", "multistatus", "target", "report"]
Json = dict[str, Any]
Problems = list[str]


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def schema(name: str) -> Json:
    return load(SCHEMAS / f"{name}.schema.json")  # type: ignore[no-any-return]


def documents(suffix: str = ".json") -> list[Path]:
    return sorted(DOCUMENTS.glob(f"*{suffix}"))


def twin_vector(document: Path) -> Json | None:
    """The vector a document's variant names, if any."""
    variant = document.name.split(".", 1)[1].rsplit(".", 1)[0]
    path = EXAMPLES / f"{variant}.json"
    return load(path) if path.is_file() else None


# --- Checkers ------------------------------------------------------------------------------


def check_meta(candidate: Json, name: str) -> Problems:
    """The schema is valid 2020-12 and carries $schema, the house $id, a title and a description."""
    try:
        Draft202012Validator.check_schema(candidate)
    except SchemaError as error:
        return [f"not a valid schema: {error.message}"]
    problems = [] if candidate.get("$schema") == META else ["$schema is not 2020-12"]
    if candidate.get("$id") != f"{ID_BASE}{name}.schema.json":
        problems.append(f"$id is {candidate.get('$id')!r}")
    return problems + [f"no {key}" for key in ("title", "description") if not candidate.get(key)]


# Conditional branches only narrow properties declared (and described) elsewhere.
REFINEMENTS = {"if", "then", "else", "not"}


def undocumented(node: Any, path: str = "#") -> Iterator[str]:
    """Every entry of every declaring ``properties`` mapping that lacks a description."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if not isinstance(sub, dict) or "description" not in sub:
                yield f"{path}/properties/{name}"
        for key, sub in node.items():
            if key not in REFINEMENTS:
                yield from undocumented(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for index, sub in enumerate(node):
            yield from undocumented(sub, f"{path}/{index}")


def check_documented(candidate: Json, name: str) -> Problems:
    return [f"undocumented property {p}" for p in undocumented(candidate)]


def check_instance(instance: Any, name: str) -> Problems:
    return [e.message for e in Draft202012Validator(schema(name)).iter_errors(instance)]


def body(part: Json) -> str:
    if "body_text" in part:
        return str(part["body_text"])
    return base64.b64decode(part["body_base64"]).decode("utf-8", "replace")


def expected_entries(vector: Json) -> list[tuple[Any, ...]]:
    """(status, outcome, content_id, headers, body) per part of a response vector."""
    return [
        (
            p["status"],
            p["outcome"],
            p["content_id"],
            [tuple(f) for f in p["fields"] if f[0].lower() not in FRAMING],
            body(p),
        )
        for p in vector["expect"]["parts"]
    ]


def check_multistatus_json(document: Json, vector: Json) -> Problems:
    """The JSON multi-status carries what the multipart vector carries, entry for part."""
    entries = [
        (e["status"], e["outcome"], e["content_id"], [tuple(h) for h in e["headers"]],
         e["body"] if "body" in e else base64.b64decode(e["body_base64"]).decode("utf-8", "replace"))
        for e in document["responses"]
    ]  # fmt: skip
    problems = [] if entries == expected_entries(vector) else ["entries differ from the vector"]
    indexes = [e["index"] for e in document["responses"]]
    if indexes != list(range(len(indexes))):
        problems.append(f"indexes {indexes} are not 0..n-1 in order")
    summary = document["summary"]
    counted = {
        "ok": sum(1 for s, o, *_ in entries if o is None and s < 400),
        "failed": sum(1 for s, o, *_ in entries if o is None and s >= 400),
        "skipped": sum(1 for _, o, *_ in entries if o == "skipped"),
        "rolled_back": sum(1 for _, o, *_ in entries if o == "rolled-back"),
    }
    return problems + ([] if summary == counted else [f"summary {summary} != {counted}"])


REASONS = {200: "OK", 201: "Created", 304: "Not Modified", 404: "Not Found", 409: "Conflict"}


def xml_body(response: ET.Element) -> str | None:
    """The octets of one mb:body, which MB-MULTI-6 writes as base64 with encoding="base64"."""
    element = response.find(f"{MB}body")
    if element is None or element.get("encoding") != "base64":
        return None
    try:
        octets = base64.b64decode(element.text or "", validate=True)
    except ValueError:
        return None
    return octets.decode("utf-8", "replace")


def check_multistatus_xml(text: str, vector: Json) -> Problems:
    """The RFC 4918 form has one DAV:response per part, in order, with the same content."""
    root = ET.fromstring(text)
    if root.tag != f"{DAV}multistatus":
        return [f"root element is {root.tag}"]
    entries = []
    for response in root.findall(f"{DAV}response"):
        status_line = response.findtext(f"{DAV}status") or ""
        status = int(status_line.split()[1]) if status_line else None
        headers = [(h.get("name"), h.text or "") for h in response.findall(f"{MB}header")]
        body = xml_body(response)
        if body is None:
            return ['an mb:body is not base64 with encoding="base64" (MB-MULTI-6)']
        entries.append(
            (status, response.findtext(f"{MB}outcome"), response.findtext(f"{MB}content-id"),
             headers, body)
        )  # fmt: skip
        if not response.findtext(f"{DAV}href"):
            return ["a response lacks DAV:href"]
    problems = [] if entries == expected_entries(vector) else ["entries differ from the vector"]
    indexes = [int(r.findtext(f"{MB}index") or -1) for r in root.findall(f"{DAV}response")]
    return problems + ([] if indexes == list(range(len(indexes))) else [f"indexes {indexes}"])


def check_problem_matches(document: Json, vector: Json) -> Problems:
    """A problem document named after an invalid vector reports that vector's error."""
    error = vector["error"]
    keys = {"status": "status", "requirement": "requirement", "title": "title",
            "part_index": "part_index", "byte_offset": "byte_offset"}  # fmt: skip
    problems = [
        f"{doc_key} {document.get(doc_key)!r} != {error[vec_key]!r}"
        for doc_key, vec_key in keys.items()
        if document.get(doc_key) != error[vec_key]
    ]
    if (
        "limit" in document
        and vector.get("limits", {}).get(document["limit"], document["value"]) != document["value"]
    ):
        problems.append("value differs from the vector's limit")
    return problems


# --- Tests over the shipped files ----------------------------------------------------------


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_is_valid_and_identified(name: str) -> None:
    assert check_meta(schema(name), name) == []


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_documents_every_property(name: str) -> None:
    assert check_documented(schema(name), name) == []


def test_every_schema_file_is_listed_and_has_an_instance() -> None:
    assert sorted(p.name.split(".")[0] for p in SCHEMAS.glob("*.json")) == sorted(SCHEMA_NAMES)
    with_instances = {p.name.split(".")[0] for p in documents()} | {"vector"}
    assert with_instances == set(SCHEMA_NAMES)


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.name)
def test_document_validates_against_its_schema(path: Path) -> None:
    assert check_instance(load(path), path.name.split(".")[0]) == []


@pytest.mark.parametrize("path", sorted(DOCUMENTS.glob("multistatus.*.json")), ids=lambda p: p.name)
def test_json_multistatus_agrees_with_its_vector(path: Path) -> None:
    vector = twin_vector(path)
    assert vector is not None
    assert check_multistatus_json(load(path), vector) == []


@pytest.mark.parametrize("path", sorted(DOCUMENTS.glob("multistatus.*.xml")), ids=lambda p: p.name)
def test_xml_multistatus_agrees_with_its_vector(path: Path) -> None:
    vector = twin_vector(path)
    assert vector is not None
    assert check_multistatus_xml(path.read_text("utf-8"), vector) == []


@pytest.mark.parametrize("path", sorted(DOCUMENTS.glob("problem.*.json")), ids=lambda p: p.name)
def test_problem_document_agrees_with_its_vector(path: Path) -> None:
    vector = twin_vector(path)
    assert vector is not None
    assert check_problem_matches(load(path), vector) == []


def test_draft_01_shapes_and_answers_without_a_broken_requirement_stay_valid() -> None:
    capabilities = load(DOCUMENTS / "capabilities.reference.json")
    draft_01 = {k: v for k, v in capabilities.items() if k != "endpoint"}
    draft_01["limits"] = {k: v for k, v in capabilities["limits"].items() if k != "max_part_fields"}
    assert check_instance(draft_01, "capabilities") == []
    busy = {"type": "https://mixbatch.dev/problems/busy", "title": "Busy", "status": 503}
    assert check_instance(busy, "problem") == []
    target = load(DOCUMENTS / "target.reference.json")
    bare = {k: v for k, v in target.items() if k not in ("sandbox", "disposable")}
    bare["resources"] = {k: v for k, v in target["resources"].items() if k != "sandbox_collection"}
    assert check_instance(bare, "target") == []


def test_reference_documents_agree_with_each_other() -> None:
    target = load(DOCUMENTS / "target.reference.json")
    capabilities = load(DOCUMENTS / "capabilities.reference.json")
    # endpoint is optional in a capabilities document (spec 9.2); when present it must agree.
    assert target["batch_endpoint"] == capabilities.get("endpoint", target["batch_endpoint"])
    assert set(target["profiles"]) <= set(capabilities["profiles"])
    sandbox = target.get("sandbox", {}).get("collection")
    assert sandbox is None or target["resources"].get("sandbox_collection", sandbox) == sandbox


# --- Broken samples: every checker must be able to fail -----------------------------------------


def altered(path: Path, change: Callable[[Any], Any]) -> Any:
    document = load(path)
    change(document)
    return document


MULTISTATUS = DOCUMENTS / "multistatus.thesis-post-then-get.response.json"
MULTISTATUS_XML = MULTISTATUS.with_suffix(".xml")
TOO_MANY = DOCUMENTS / "problem.too-many-parts.request.json"
VECTOR_OF = {p: twin_vector(p) for p in (MULTISTATUS, MULTISTATUS_XML, TOO_MANY)}

BROKEN: list[tuple[str, Callable[[], Problems]]] = [
    ("meta-bad-type", lambda: check_meta({**schema("problem"), "type": "nope"}, "problem")),
    ("meta-wrong-id", lambda: check_meta(schema("problem"), "target")),
    ("meta-no-title", lambda: check_meta({k: v for k, v in schema("target").items() if k != "title"}, "target")),
    ("undocumented", lambda: check_documented({"properties": {"a": {"type": "string"}}}, "x")),
    ("nested-undocumented", lambda: check_documented({"$defs": {"d": {"properties": {"b": {}}}}}, "x")),
    ("capabilities-without-core", lambda: check_instance(altered(DOCUMENTS / "capabilities.reference.json", lambda d: d.__setitem__("profiles", ["xml"])), "capabilities")),
    ("problem-value-without-limit", lambda: check_instance(altered(TOO_MANY, lambda d: d.pop("limit")), "problem")),
    ("problem-unknown-limit", lambda: check_instance(altered(TOO_MANY, lambda d: d.__setitem__("limit", "max_fields")), "problem")),
    ("target-sandbox-without-collection", lambda: check_instance(altered(DOCUMENTS / "target.reference.json", lambda d: d["sandbox"].pop("collection")), "target")),
    ("problem-limit-on-400", lambda: check_instance(altered(TOO_MANY, lambda d: d.__setitem__("status", 400)), "problem")),
    ("multistatus-skipped-with-status", lambda: check_instance(altered(MULTISTATUS, lambda d: d["responses"][0].__setitem__("outcome", "skipped")), "multistatus")),
    ("report-bad-verdict", lambda: check_instance(altered(DOCUMENTS / "report.example.json", lambda d: d["results"][0].__setitem__("verdict", "OK")), "report")),
    ("target-url-with-path", lambda: check_instance(altered(DOCUMENTS / "target.reference.json", lambda d: d.__setitem__("base_url", "http://h/x")), "target")),
    ("multistatus-json-status", lambda: check_multistatus_json(altered(MULTISTATUS, lambda d: d["responses"][1].__setitem__("status", 203)), VECTOR_OF[MULTISTATUS] or {})),
    ("multistatus-json-summary", lambda: check_multistatus_json(altered(MULTISTATUS, lambda d: d["summary"].__setitem__("ok", 1)), VECTOR_OF[MULTISTATUS] or {})),
    ("multistatus-xml-body", lambda: check_multistatus_xml(MULTISTATUS_XML.read_text().replace("PEFy", "PEFz"), VECTOR_OF[MULTISTATUS_XML] or {})),
    ("multistatus-xml-body-as-text", lambda: check_multistatus_xml(MULTISTATUS_XML.read_text().replace(' encoding="base64"', ""), VECTOR_OF[MULTISTATUS_XML] or {})),
    ("problem-offset", lambda: check_problem_matches(altered(TOO_MANY, lambda d: d.__setitem__("byte_offset", 0)), VECTOR_OF[TOO_MANY] or {})),
    ("problem-limit-value", lambda: check_problem_matches(altered(TOO_MANY, lambda d: d.__setitem__("value", 3)), VECTOR_OF[TOO_MANY] or {})),
]  # fmt: skip


@pytest.mark.parametrize("run", [run for _, run in BROKEN], ids=[name for name, _ in BROKEN])
def test_checker_finds_fault_in_broken_sample(run: Callable[[], Problems]) -> None:
    assert run() != []


def test_problem_naming_a_limit_without_its_value_is_valid() -> None:
    # Spec 9.1 under MB-LIMIT-4: `value` may accompany `limit`; a document without it is complete.
    assert check_instance(altered(TOO_MANY, lambda d: d.pop("value")), "problem") == []
