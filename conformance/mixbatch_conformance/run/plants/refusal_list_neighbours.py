"""Planted refusal lists read one step too wide: methods beside CONNECT and TRACE (MB-SUB-3),
part fields beside the ones MB-PART-9 forbids or the control fields (MB-PART-8).

- Methods: MB-SUB-3 refuses `CONNECT` and `TRACE` "and MUST keep every other method ... out of
  this rule". A server that adds the aliases hardening guides block beside TRACE (`TRACK`,
  `DEBUG`), or compares by prefix either way (`TRACES`, `TRAC`, `CONNECT-UDP`), refuses a
  batch of ordinary parts.
- Fields: MB-PART-8 hands a part's fields other than `Http-Method` and `Content-Id` to the
  sub-request, and MB-PART-9 forbids eleven of them. A server that also forbids the
  response-part fields (`Batch-Outcome`, `Batch-Summary`, `Preference-Applied`), matches the
  forbidden names by prefix either way (`Http-Status`, `Upgrade-Insecure-Requests`), takes an
  `X-` prefix off before its lookup (`X-Connection`), or reads a name that begins like a control
  field as that field (`Http-Method2`), or keeps its list as a plain object whose inherited
  properties it finds (`Constructor`, `toString`), refuses the batch instead.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.core.validator import FORBIDDEN_REQUEST_FIELDS
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    Pred,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

#: The methods MB-SUB-3 names.
_FORBIDDEN_METHODS = ("CONNECT", "TRACE")
#: The fields MB-PART-9 forbids in a request part, lower-cased.
_FORBIDDEN_FIELDS = tuple(n.lower() for n in FORBIDDEN_REQUEST_FIELDS)
#: The control fields of a request part, lower-cased.
_CONTROL_FIELDS = ("http-method", "content-id")
#: Properties every JavaScript object inherits, lower-cased as a table's lookup would have them.
_OBJECT_PROPERTIES = ("constructor", "__proto__", "tostring", "hasownproperty", "valueof")


def _any_part(test: Callable[[Part], bool]) -> Pred:
    """A batch request with a part that `test` holds for."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req) if is_batch(req) else None
        parts = parts_of(req.body, b) if b else None
        return any(test(p) for p in parts or [])

    return pred


def _method_is(test: Callable[[str], bool]) -> Pred:
    def part(p: Part) -> bool:
        method = (field_of(p[0], "Http-Method") or "").strip()
        return method not in _FORBIDDEN_METHODS and test(method)

    return _any_part(part)


def _field_named(test: Callable[[str], bool]) -> Pred:
    def part(p: Part) -> bool:
        names = [n.lower() for n, _ in p[0]]
        return any(n not in _FORBIDDEN_FIELDS + _CONTROL_FIELDS and test(n) for n in names)

    return _any_part(part)


def _prefix_either_way(name: str, listed: tuple[str, ...]) -> bool:
    return any(name.startswith(f) or f.startswith(name) for f in listed)


PLANTS: tuple[Mutation, ...] = (
    # MB-SUB-3: "`CONNECT` or `TRACE`, compared case-sensitively ..., and MUST keep every other
    # method, `trace` or `Connect` included, out of this rule".
    Mutation(
        "tracing-alias-methods-refused",
        "MB-SUB-3 a TRACK or DEBUG part refusing the batch as TRACE would",
        ("forbidden-method-neighbours-run",),
        on_response=refuses(_method_is(lambda m: m in ("TRACK", "DEBUG")), 400, "MB-SUB-3"),
    ),
    Mutation(
        "forbidden-method-by-prefix-refused",
        "MB-SUB-3 a part method beginning with CONNECT or TRACE, or beginning either, refused",
        ("forbidden-method-neighbours-run",),
        on_response=refuses(
            _method_is(lambda m: bool(m) and _prefix_either_way(m, _FORBIDDEN_METHODS)),
            400,
            "MB-SUB-3",
        ),
    ),
    # MB-PART-8: "take a request part's header fields other than `Http-Method` and
    # `Content-Id` as the sub-request's header fields"; MB-PART-9 names eleven fields.
    Mutation(
        "response-part-fields-refused",
        "MB-PART-8 a request part carrying Batch-Outcome, Batch-Summary or Preference-Applied "
        "refused as one carrying Http-Status-Code",
        ("unforbidden-part-fields-reach-resource",),
        on_response=refuses(
            _field_named(lambda n: n in ("batch-outcome", "batch-summary", "preference-applied")),
            400,
            "MB-PART-10",
        ),
    ),
    Mutation(
        "forbidden-field-by-prefix-refused",
        "MB-PART-8 a part field whose name begins with a forbidden one, or begins one, refused",
        ("unforbidden-part-fields-reach-resource",),
        on_response=refuses(
            _field_named(lambda n: _prefix_either_way(n, _FORBIDDEN_FIELDS)), 400, "MB-PART-10"
        ),
    ),
    Mutation(
        "forbidden-field-after-x-prefix-refused",
        "MB-PART-8 a part field refused when its name without X- is a forbidden one",
        ("unforbidden-part-fields-reach-resource",),
        on_response=refuses(
            _field_named(lambda n: n.startswith("x-") and n[2:] in _FORBIDDEN_FIELDS),
            400,
            "MB-PART-10",
        ),
    ),
    Mutation(
        "control-field-by-prefix-read",
        "MB-PART-8 a part field beginning with Http-Method or Content-Id read as a second one",
        ("unforbidden-part-fields-reach-resource",),
        on_response=refuses(
            _field_named(lambda n: n.startswith(_CONTROL_FIELDS)), 400, "MB-PART-2"
        ),
    ),
    Mutation(
        "forbidden-fields-kept-as-plain-object",
        "MB-PART-8 a part field named as an inherited object property (constructor, valueof, "
        "tostring) found in a forbidden-field table kept as a plain object, and refused",
        ("unforbidden-part-fields-reach-resource",),
        on_response=refuses(_field_named(lambda n: n in _OBJECT_PROPERTIES), 400, "MB-PART-10"),
    ),
)
