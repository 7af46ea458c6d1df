"""The input sweep: what it finds in a request, how each plant removes it, and (deep tier) that
every input the checks send is verified by one of them."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.validator import read_multipart
from mixbatch_conformance.run import recording
from mixbatch_conformance.run.input_sweep import (
    FAILING_STATUSES,
    KIND_REQUIREMENTS,
    PLANT_REQUIREMENTS,
    SPEC_INPUTS,
    UNSWEPT,
    Plant,
    Slot,
    plants_for,
    request_slots,
    slot_requirement,
    sweep,
    sweep_reference,
)
from mixbatch_conformance.run.input_sweep import _sweep as sweep_module
from mixbatch_conformance.run.input_sweep._catalog import never_sent, unswept_reason
from mixbatch_conformance.run.input_sweep._plants import PLANT_KINDS
from mixbatch_conformance.run.input_sweep._slots import TARGET, target_shapes
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

BOUNDARY = "in-sweep-0123"
HOST = "Example.ORG"
PARTS = [
    b"Http-Method: GET\r\nContent-Id: </books/1?x=1>\r\n"
    b'IF-NONE-MATCH: "a", "b"\r\nPrefer: return=minimal, handling=strict\r\n',
    b"http-method: get\r\nContent-Id:   <books/../a%41#f>\r\n"
    b"Accept: text/plain\r\nAccept: text/html\r\n",
    b"Http-Method: DELETE\r\nContent-Id: <http://example.org/x>\r\n",
    b"Http-Method: FROB\r\nContent-Id: <//other.example/y>\r\n",
    b"Http-Method: GET\r\nContent-Id: <http://u@example.org:81/z>\r\n",
    b"Http-Method: GET\r\nContent-Id: <https://example.org/s>\r\n",
]


def _body(preamble: bytes = b"PRE", padding: bytes = b" \t", epilogue: bytes = b"EPI") -> bytes:
    dash = b"--" + BOUNDARY.encode()
    out = preamble + b"\r\n" if preamble else b""
    for i, fields in enumerate(PARTS):
        out += (
            (b"\r\n" if i else b"")
            + dash
            + padding
            + b"\r\n"
            + fields
            + b"\r\nbody"
            + bytes([48 + i])
        )
    return out + b"\r\n" + dash + b"--" + (b"\r\n" + epilogue if epilogue else b"")


def _batch(**kw: bytes) -> RelayRequest:
    headers = [
        ("Host", HOST),
        ("Content-Type", f'multipart/mixed; boundary="{BOUNDARY}"'),
        ("Transfer-Encoding", "chunked"),
        ("PREFER", "respond-async, wait=5"),
        ("Accept", "multipart/mixed"),
        ("accept", "application/json"),
    ]
    return RelayRequest("POST", "/batch", headers, _body(**kw))


def _parts(req: RelayRequest) -> list[list[tuple[str, str]]]:
    env = read_multipart(req.body, BOUNDARY)
    assert not env.fatal
    return [list(p.fields) for p in env.parts]


def _slots(*names: str) -> set[Slot]:
    out = set()
    for name in names:
        head, _, spelling = name.partition("@")
        kind, _, field_name = head.partition(":")
        out.add(Slot(kind, field_name, spelling))
    return out


def test_request_slots_name_fields_methods_preferences_targets_and_spellings() -> None:
    found = request_slots(_batch(), "/batch")
    assert found >= _slots(
        "top-field:prefer@name-case",
        "top-field:prefer@list",
        "top-field:accept@repeated",
        "top-method:POST",
        "prefer:respond-async",
        "prefer:wait",
        "part-field:if-none-match@name-case",
        "part-field:if-none-match@list",
        "part-field:http-method",
        "part-field:accept@repeated",
        "part-field:content-id@ows",
        "part-method:GET",
        "part-method:get",
        "part-method:FROB",
        "part-prefer:return",
        "part-prefer:handling",
        "target:absolute-path",
        "target:relative",
        "target:absolute-uri",
        "target:absolute-uri@host-case",
        "target:network-path",
        "target:with-query",
        "target:percent-encoded",
        "target:dot-segments",
        "target:fragment",
        "envelope@preamble",
        "envelope@padding",
        "envelope@epilogue",
        "envelope@quoted-boundary",
        "envelope@chunked",
    )
    # Framing fields and Host are not slots; a Title-Case or lower-case name is no spelling.
    names = {str(s) for s in found}
    assert not {"top-field:host", "top-field:transfer-encoding"} & names
    assert "part-field:http-method@name-case" not in names
    assert "part-field:accept@list" not in names


def test_requests_off_the_endpoint_and_plain_envelopes_carry_no_such_slots() -> None:
    assert (
        request_slots(RelayRequest("GET", "/books/1", [("Accept", "a, b")], b""), "/batch") == set()
    )
    plain = RelayRequest(
        "POST",
        "/batch",
        [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")],
        _body(preamble=b"", padding=b"", epilogue=b""),
    )
    assert not {s for s in request_slots(plain, "/batch") if s.kind == "envelope"}


@pytest.mark.parametrize(
    ("ref", "features"),
    [
        ("http://example.org/a", []),
        ("http://EXAMPLE.org:80/a", []),
        ("https://example.org/a", ["other-scheme", "other-port"]),
        ("//u:p@other.example:81/a", ["userinfo", "other-host", "other-port"]),
        ("http://example.org:8080/a", ["other-port"]),
    ],
)
def test_absolute_targets_are_compared_with_the_batch_authority(
    ref: str, features: list[str]
) -> None:
    assert target_shapes(ref, "example.org", "/batch")[1:] == features


def test_targets_naming_the_endpoint_a_reference_or_asterisk_are_shapes_without_a_plant() -> None:
    assert "batch-endpoint" in target_shapes("batch", "h", "/batch")
    assert "batch-endpoint" in target_shapes("/batch", "h", "/batch")
    assert "reference" in target_shapes("/items/$(0.Location)", "h", "/batch")
    assert "asterisk" in target_shapes("*", "h", "/batch")
    for shape in ("batch-endpoint", "reference", "asterisk"):
        assert plants_for(Slot("target", shape)) == ()


@pytest.mark.parametrize(
    ("ref", "shapes"),
    [
        ("/a", ["absolute-path"]),
        ("a/./b?q", ["relative", "with-query", "dot-segments"]),
        ("HTTP://h/%20", ["absolute-uri", "percent-encoded"]),
        ("//h/a#f", ["network-path", "fragment"]),
        ("", ["relative"]),
    ],
)
def test_target_shapes_name_the_form_and_each_feature(ref: str, shapes: list[str]) -> None:
    assert target_shapes(ref) == shapes


def _planted(slot: str, how: str, **kw: bytes) -> RelayRequest:
    req = _batch(**kw)
    (s,) = _slots(slot)
    Plant(s, how).request(req)
    return req


def test_field_plants_drop_the_field_its_odd_spelling_or_all_but_its_first_member() -> None:
    parts = _parts(_planted("part-field:if-none-match", "ignore"))
    assert all(n.lower() != "if-none-match" for f in parts for n, _ in f)
    parts = _parts(_planted("part-field:if-none-match@name-case", "ignore-name-case"))
    assert all(n != "IF-NONE-MATCH" for f in parts for n, _ in f)
    parts = _parts(_planted("part-field:if-none-match@list", "first-member"))
    assert ("IF-NONE-MATCH", '"a"') in parts[0]
    parts = _parts(_planted("part-field:accept@repeated", "first-line"))
    assert [v for n, v in parts[1] if n == "Accept"] == ["text/plain"]
    parts = _parts(_planted("part-field:content-id@ows", "ignore-ows"))
    assert all(n != "Content-Id" for n, _ in parts[1])
    assert ("Content-Id", "</books/1?x=1>") in parts[0]


def test_field_plants_keep_every_body_and_every_other_spelling() -> None:
    req = _planted("part-field:if-none-match", "ignore")
    env = read_multipart(req.body, BOUNDARY)
    assert [p.body for p in env.parts] == [f"body{i}".encode() for i in range(len(PARTS))]
    assert env.preamble == b"PRE"
    assert env.epilogue == b"EPI"
    assert b"Content-Id:   <books" in req.body


def test_top_field_and_preference_plants_edit_the_batch_request() -> None:
    req = _planted("top-field:prefer@name-case", "ignore-name-case")
    assert req.get("Prefer") is None
    req = _planted("top-field:accept@repeated", "first-line")
    assert [v for n, v in req.headers if n.lower() == "accept"] == ["multipart/mixed"]
    req = _planted("prefer:respond-async", "ignore")
    assert req.get("Prefer") == "wait=5"
    parts = _parts(_planted("part-prefer:return", "ignore"))
    assert ("Prefer", "handling=strict") in parts[0]


def test_method_plants_rename_known_methods_and_upper_case_others() -> None:
    parts = _parts(_planted("part-method:GET", "unsupported"))
    assert dict(parts[0])["Http-Method"] == "MBSWEEPUNKNOWN"
    assert dict(parts[1])["http-method"] == "get"
    parts = _parts(_planted("part-method:get", "unsupported"))
    assert dict(parts[1])["http-method"] == "GET"
    assert plants_for(Slot("part-method", "FROB")) == ()
    req = _planted("top-method:POST", "unsupported")
    assert req.method == "MBSWEEPUNKNOWN"


@pytest.mark.parametrize(
    ("slot", "index", "target", "touched"),
    [
        ("target:with-query", 0, "</books/1>", {0}),
        ("target:relative", 1, "</batch/a%41#f>", {1}),
        ("target:dot-segments", 1, "<books/%2E%2E/a%41#f>", {1}),
        ("target:percent-encoded", 1, "<books/../a%2541#f>", {1}),
        ("target:fragment", 1, "<books/../a%41>", {1}),
        ("target:absolute-uri", 2, "</x>", {2, 4, 5}),
        ("target:absolute-uri@host-case", 2, "<http://cross-origin.invalid/x>", {2, 5}),
        ("target:network-path", 3, "</y>", {3}),
        ("target:other-host", 3, "<//Example.ORG/y>", {3}),
        ("target:other-port", 4, "<http://example.org/z>", {4}),
        ("target:userinfo", 4, "<http://example.org:81/z>", {4}),
        ("target:other-scheme", 5, "<http://example.org/s>", {5}),
    ],
)
def test_target_plants_rewrite_each_shape_and_give_the_echo_back(
    slot: str, index: int, target: str, touched: set[int]
) -> None:
    (s,) = _slots(slot)
    plant = Plant(s, "rewrite")
    req = _batch()
    plant.request(req)
    parts = _parts(req)
    assert [v for n, v in parts[index] if n.lower() == "content-id"] == [target]
    before = _parts(_batch())
    assert {i for i in range(len(PARTS)) if parts[i] != before[i]} == touched
    echo = RelayResponse(
        207,
        [("Content-Type", "application/vnd.mixbatch.multistatus+json")],
        json.dumps({"responses": [{"content_id": target[1:-1], "href": target[1:-1]}]}).encode(),
    )
    plant.response(req, echo)
    sent = [v for n, v in before[index] if n.lower() == "content-id"]
    entry = json.loads(echo.body)["responses"][0]
    assert [f"<{entry['content_id']}>"] == sent
    assert entry["href"] == target[1:-1]


def test_envelope_plants_refuse_or_strip_the_spelling() -> None:
    req = _planted("envelope@preamble", "refuse")
    assert req.get("Content-Type") == "multipart/mixed"
    req = _planted("envelope@preamble", "strip")
    assert req.body.startswith(b"--" + BOUNDARY.encode())
    req = _planted("envelope@padding", "strip")
    assert b" \t\r\n" not in req.body
    assert read_multipart(req.body, BOUNDARY).epilogue == b"EPI"
    plain = _planted("envelope@preamble", "refuse", preamble=b"")
    assert plain.get("Content-Type") != "multipart/mixed"


def test_extension_fields_are_one_slot_and_their_plant_drops_them_all() -> None:
    lines = b"Http-Method: GET\r\nContent-Id: </a>\r\nX-One: 1\r\nx-two: 2\r\n"
    body = b"--b\r\n" + lines + b"\r\n\r\n--b--"
    req = RelayRequest("POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body)
    assert {s for s in request_slots(req, "/batch") if s.name.startswith("x-")} == {
        Slot("part-field", "x-*")
    }
    Plant(Slot("part-field", "x-*"), "ignore").request(req)
    assert b"X-One" not in req.body
    assert b"x-two" not in req.body


def test_malformed_batches_are_read_up_to_their_fault_only_when_asked() -> None:
    part = b"Http-Method: PUT\r\nContent-Id: </a>\r\nContent-Length: 1\r\nContent-Length: 1\r\n"
    body = b"--b\r\n" + part + b"\r\nx\r\n--b--"
    req = RelayRequest("POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body)
    repeated = Slot("part-field", "content-length", "repeated")
    assert repeated not in request_slots(req, "/batch")
    assert repeated in request_slots(req, "/batch", whole=False)
    before = req.body
    Plant(repeated, "first-line").request(req)
    assert req.body == before


def test_every_plant_a_slot_can_get_is_described() -> None:
    slots = request_slots(_batch(), "/batch")
    kinds = {how for slot in slots for how in plants_for(slot)}
    assert kinds == set(PLANT_KINDS)


def test_methods_that_are_not_tokens_have_no_plant() -> None:
    assert plants_for(Slot("part-method", "GET /a HTTP/1.1")) == ()
    assert plants_for(Slot("part-method", "get")) == ("unsupported",)


def test_wildcard_allowances_never_cover_an_input_the_spec_names() -> None:
    assert unswept_reason(Slot("top-field", "x-request-id")) is not None
    assert unswept_reason(Slot("top-field", "accept")) is None
    assert unswept_reason(Slot("prefer", "batch-on-error")) is None
    assert unswept_reason(Slot("prefer", "respond-async")) is not None


def test_every_slot_allowed_unswept_gives_a_reason_and_spec_inputs_cite_requirements() -> None:
    assert all(reason.strip() for reason in UNSWEPT.values())
    assert all(i.requirement.startswith("MB-") and i.rule.strip() for i in SPEC_INPUTS)
    assert len({i.slot for i in SPEC_INPUTS}) == len(SPEC_INPUTS)
    assert never_sent({i.slot for i in SPEC_INPUTS}) == []
    assert [row["input"] for row in never_sent(set())] == [i.slot for i in SPEC_INPUTS]


def _server_requirements() -> set[str]:
    index = Path(__file__).parents[2] / "spec" / "requirements.json"
    reqs = json.loads(index.read_text())["requirements"]
    return {r["id"] for r in reqs if "server" in r["roles"]}


def test_every_requirement_a_slot_serves_binds_a_server() -> None:
    servers = _server_requirements()
    given = {i.requirement for i in SPEC_INPUTS}
    given |= {r for r, _ in (*KIND_REQUIREMENTS.values(), *PLANT_REQUIREMENTS.values())}
    assert given - servers == set()


def test_a_plant_that_moves_the_octets_after_a_spelling_breaks_the_offsets_it_reports() -> None:
    (s,) = _slots("envelope@preamble")
    assert slot_requirement(s, "refuse") == "MB-WIRE-9"
    assert slot_requirement(s, "strip") == "MB-STATUS-4"


@pytest.mark.parametrize(
    ("slot", "requirement"),
    [
        ("part-field:authorization@name-case", "MB-SUB-5"),
        ("part-field:connection@name-case", "MB-PART-10"),
        ("part-field:if-match@repeated", "MB-PROC-9"),
        ("part-field:http-method@ows", "MB-PART-2"),
        ("part-field:x-*", "MB-PART-8"),
        ("part-field:accept-language@list", "MB-PART-8"),
        ("part-method:Get", "MB-SUB-1"),
        ("part-method:TRACE", "MB-SUB-3"),
        ("target:with-query", "MB-PART-5"),
        ("target:other-port", "MB-SUB-2"),
        ("top-field:accept@repeated", "MB-MULTI-1"),
        ("top-method:PATCH", "MB-METHOD-2"),
        ("top-method:POST", None),
        ("top-field:traceparent", None),
        ("prefer:wait", None),
    ],
)
def test_a_slot_serves_its_named_requirement_or_that_of_the_input_it_spells_or_its_kinds(
    slot: str, requirement: str | None
) -> None:
    (s,) = _slots(slot)
    assert slot_requirement(s) == requirement


class _Relay:
    mutation: object = None


def _fake_sweep(
    monkeypatch: pytest.MonkeyPatch, results: dict[str, tuple[Verdict, list[str], list[str]]]
) -> list[Any]:
    """Sweep one slot (top-field:accept, MB-MULTI-1) whose senders answer as `results` says:
    check id -> (verdict under the plant, declared requirements, broken requirements)."""
    checks = {c: SimpleNamespace(id=c, requirements=results[c][1]) for c in results}
    ran: list[str] = []

    def run_check(check: Any, ctx: Any) -> Any:
        ran.append(check.id)
        verdict, _, broken = results[check.id]
        return SimpleNamespace(verdict=verdict, check=check, broken_requirements=tuple(broken))

    monkeypatch.setattr(sweep_module, "all_checks", lambda: list(checks.values()))
    monkeypatch.setattr(recording, "run_check", run_check)
    monkeypatch.setattr(recording, "fresh_context", lambda ctx: ctx)
    ctx: Any = SimpleNamespace(target=SimpleNamespace(batch_endpoint="/batch"))
    slot = Slot("top-field", "accept")
    (outcome,) = sweep(_Relay(), ctx, {slot: list(results)})  # type: ignore[arg-type]
    return [outcome, ran]


def test_the_sweep_runs_on_after_the_first_notice_until_a_check_cites_the_requirement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outcome, ran = _fake_sweep(
        monkeypatch,
        {
            "passes": (Verdict.PASS, ["MB-MULTI-1"], []),
            "elsewhere": (Verdict.FAIL, ["MB-PART-13"], ["MB-PART-13"]),
            "other": (Verdict.FAIL, ["MB-STATUS-9"], ["MB-STATUS-9"]),
            "declares": (Verdict.PASS, ["MB-MULTI-1"], []),
            "names": (Verdict.FAIL, ["MB-STATUS-9"], ["MB-MULTI-1"]),
            "later": (Verdict.FAIL, ["MB-MULTI-1"], ["MB-MULTI-1"]),
        },
    )
    assert outcome.noticed_by == "elsewhere"
    assert outcome.noticer_cites == ("MB-PART-13",)
    # After the first notice the declaring senders run first, then the others in order.
    assert ran == ["passes", "elsewhere", "declares", "later"]
    assert (outcome.cited_by, outcome.status) == ("later", "cited")


def test_a_plant_noticed_only_under_other_requirements_is_its_own_failing_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outcome, ran = _fake_sweep(
        monkeypatch,
        {
            "elsewhere": (Verdict.FAIL, ["MB-PART-13"], ["MB-PART-13"]),
            "names": (Verdict.WARN, ["MB-STATUS-9"], ["MB-MULTI-10"]),
        },
    )
    assert ran == ["elsewhere", "names"]
    assert (outcome.noticed_by, outcome.cited_by) == ("elsewhere", None)
    assert outcome.status == "uncited"
    assert outcome.status in FAILING_STATUSES
    outcome, _ = _fake_sweep(
        monkeypatch, {"names": (Verdict.FAIL, ["MB-STATUS-9"], ["MB-STATUS-9", "MB-MULTI-1"])}
    )
    assert (outcome.noticed_by, outcome.cited_by, outcome.status) == ("names", "names", "cited")


#: The sweep runs every smoke and standard check once, then the senders of each slot.
SWEEP_BUDGET_S = 3600


@pytest.mark.deep
@pytest.mark.timeout(SWEEP_BUDGET_S)
def test_every_input_the_checks_send_is_verified(mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the input sweep runs with --mixbatch-tier deep (make deep)")
    outcomes = sweep_reference()
    missed = [f"{o.slot} {o.how}: {o.status}" for o in outcomes if o.status in FAILING_STATUSES]
    assert missed == []


def test_a_target_urllib_cannot_split_is_recorded_without_a_shape() -> None:
    """Checks send brackets around no IP address on purpose; the recorder must not fail on
    them (urllib raises ValueError), since the relay would then drop the connection."""
    body = b"--b\r\nHttp-Method: GET\r\nContent-Id: <http://[mb-host]/x>\r\n\r\n--b--\r\n"
    req = RelayRequest(
        "POST", "/batch",
        [("Host", "[V7.mb-host:1]:80"), ("Content-Type", "multipart/mixed; boundary=b")],
        body,
    )  # fmt: skip
    slots = request_slots(req, "/batch")
    assert not any(s.kind == TARGET for s in slots)
    assert target_shapes("http://[mb-host]/x", "[V7.mb-host:1]:80", "/batch") == []
