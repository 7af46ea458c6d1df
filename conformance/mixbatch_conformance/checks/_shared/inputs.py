"""Hypothesis strategies for the inputs around a batch: the fields and sizes a server must read.

Theory of operation: `strategies` builds valid batches; this module builds what surrounds and
fills them, each value together with the outcome the spec gives it, so a property compares the
target's answer with a model rather than with a golden response:

- `accept_fields(offered)`: an Accept value of media ranges with quality values, wildcards,
  case variants and q=0, and the forms MB-MULTI-1 / MB-STATUS-9 allow for it;
- `conditional_fields(etag, modified)`: any combination of If-Match, If-None-Match,
  If-Modified-Since and If-Unmodified-Since, each matching or not, and the status RFC 9110
  §13.2.2's order of evaluation gives a GET or HEAD;
- `prefer_fields()`: Prefer field lines with several preferences, batch-on-error anywhere
  among them or absent, in any case, token or quoted, and whether stop applies (MB-PROC-13);
  the other preferences include batch-on-error=stop as a parameter and in a quoted value,
  which ask for nothing;
- `name_spellings(name)`: the same field name in other cases;
- `target_spellings(path, query)`: a reference to `path` with dot segments in it and a query
  with percent-encoding, and the target it resolves to (RFC 3986 §5.2);
- `body_sizes()`: octet counts across orders of magnitude and on both sides of 64 KiB;
- `counts_around(limit)`: one under, at and one over a published limit.

Shrinking: lists shrink toward one member, quality values toward absent (q=1), conditional
fields toward none (200), spellings toward the canonical one, sizes toward 0.
"""

from __future__ import annotations

from hypothesis import strategies as st

from mixbatch_conformance.checks._shared.precondition_values import EPOCH, NO_SUCH_ETAG
from mixbatch_conformance.core.media_types import JSON_FORM, MULTIPART, XML_FORM

__all__ = [
    "EPOCH",
    "JSON_FORM",
    "MULTIPART",
    "NO_SUCH_ETAG",
    "SIZES",
    "XML_FORM",
    "accept_fields",
    "allowed_forms",
    "body_sizes",
    "conditional_fields",
    "counts_around",
    "expected_conditional_status",
    "name_spellings",
    "prefer_fields",
    "target_spellings",
]

#: Media ranges a client may send: the forms, their wildcards, and near misses that match none
#: (a structured suffix is not a match: MB-MULTI-1).
RANGES = (
    MULTIPART,
    "multipart/*",
    "*/*",
    XML_FORM,
    JSON_FORM,
    "application/*",
    "application/json",
    "text/xml",
    "image/png",
)
QUALITIES = (None, "1", "0.9", "0.5", "0.1", "0.001", "0")
#: Octet counts: powers of ten, and one under, at and one over 64 KiB (and 2 x 64 KiB).
SIZES = (0, 1, 10, 100, 1000, 10_000, 65_535, 65_536, 65_537, 100_000, 131_072)


def _matches(media_range: str, form: str) -> int:
    """How specifically `media_range` matches `form`: 3 exact, 2 type/*, 1 */*, 0 not at all."""
    r_type, _, r_sub = media_range.lower().partition("/")
    f_type, _, f_sub = form.partition("/")
    if (r_type, r_sub) == (f_type, f_sub):
        return 3
    if r_sub == "*" and r_type == f_type:
        return 2
    return 1 if (r_type, r_sub) == ("*", "*") else 0


def allowed_forms(members: list[tuple[str, float]], offered: tuple[str, ...]) -> set[str]:
    """The forms MB-MULTI-1 and MB-STATUS-9 allow for an Accept of `members` (range, q)."""
    if not members:
        return {MULTIPART}
    quality: dict[str, float] = {}
    for form in offered:
        best = max(((_matches(r, form), q) for r, q in members), default=(0, 0.0))
        quality[form] = best[1] if best[0] else 0.0
    top = max(quality.values())
    if top <= 0:
        return {"406"}
    # MB-MULTI-1: multipart/mixed "when Accept ... gives multipart/mixed a quality value at
    # least as high as any other representation it offers"; otherwise any form at the top.
    if quality[MULTIPART] >= top:
        return {MULTIPART}
    return {f for f, q in quality.items() if q == top}


def _case(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, text.upper(), text.title()])


@st.composite
def accept_fields(draw: st.DrawFn, offered: tuple[str, ...]) -> tuple[str, set[str]]:
    """An Accept value and the forms the spec allows for it (`"406"` for none)."""
    ranges = draw(st.lists(st.sampled_from(RANGES), min_size=1, max_size=4, unique=True))
    members: list[tuple[str, float]] = []
    written = []
    for r in ranges:
        q = draw(st.sampled_from(QUALITIES))
        spelled = draw(_case(r))
        written.append(spelled + (f";q={q}" if q is not None else ""))
        members.append((r, float(q) if q is not None else 1.0))
    return ", ".join(written), allowed_forms(members, offered)


def expected_conditional_status(fields: dict[str, str], etag: str, modified: str) -> int:
    """RFC 9110 §13.2.2 for a GET or HEAD of a resource with `etag` last modified `modified`
    (dates compare equal or not, the only two the strategy draws)."""
    if "If-Match" in fields:
        if fields["If-Match"] not in (etag, "*"):
            return 412
    elif "If-Unmodified-Since" in fields and fields["If-Unmodified-Since"] == EPOCH:
        return 412
    if "If-None-Match" in fields:
        if fields["If-None-Match"] in (etag, "*"):
            return 304
    elif "If-Modified-Since" in fields and fields["If-Modified-Since"] == modified:
        return 304
    return 200


@st.composite
def conditional_fields(
    draw: st.DrawFn, etag: str, modified: str
) -> tuple[tuple[tuple[str, str], ...], int]:
    """Conditional fields for a GET or HEAD part, and the status RFC 9110 gives them."""
    choices = {
        "If-Match": (etag, NO_SUCH_ETAG, "*"),
        "If-None-Match": (etag, NO_SUCH_ETAG, "*"),
        "If-Modified-Since": (modified, EPOCH),
        "If-Unmodified-Since": (modified, EPOCH),
    }
    names = draw(st.lists(st.sampled_from(sorted(choices)), max_size=4, unique=True))
    fields = {n: draw(st.sampled_from(choices[n])) for n in names}
    return tuple(fields.items()), expected_conditional_status(fields, etag, modified)


#: Preferences that are not batch-on-error, among them batch-on-error=stop as a parameter of
#: another preference and inside a quoted value (RFC 7240 §2: `preference = token [ BWS "="
#: BWS word ] *( OWS ";" [ OWS parameter ] )`), neither of which asks for stop.
OTHER_PREFERENCES = (
    "respond-async",
    "wait=10",
    "return=minimal",
    "handling=lenient",
    "mb-suite=1",
    "respond-async; batch-on-error=stop",
    "handling=lenient;batch-on-error=stop",
    'mb-suite="x, batch-on-error=stop"',
    'mb-suite="a; batch-on-error=stop"',
)


@st.composite
def prefer_fields(draw: st.DrawFn) -> tuple[tuple[str, ...], bool]:
    """Prefer field lines, and whether they ask for batch-on-error=stop (MB-PROC-13)."""
    others = draw(st.lists(st.sampled_from(OTHER_PREFERENCES), max_size=3, unique=True))
    stop = draw(st.booleans())
    members = list(others)
    if stop:
        name = draw(_case("batch-on-error"))
        value = draw(_case("stop"))
        quoted = draw(st.booleans())
        members.insert(
            draw(st.integers(0, len(members))),
            f"{name}={value}" if not quoted else f'{name}="{value}"',
        )
    if not members:
        return (), False
    lines = draw(st.integers(1, len(members)))
    cut = len(members) // lines or 1
    out = [", ".join(members[i : i + cut]) for i in range(0, len(members), cut)]
    return tuple(out), stop


def name_spellings(name: str) -> st.SearchStrategy[str]:
    """`name` as written, lower case, upper case, or with random letters upper-cased."""
    mixed = st.lists(st.booleans(), min_size=len(name), max_size=len(name)).map(
        lambda flips: "".join(
            c.upper() if f else c.lower() for c, f in zip(name, flips, strict=True)
        )
    )
    return st.one_of(st.just(name), st.just(name.lower()), st.just(name.upper()), mixed)


@st.composite
def target_spellings(draw: st.DrawFn, path: str) -> tuple[str, str]:
    """An absolute-path reference to `path` with dot segments and a percent-encoded query,
    and the origin-form target it resolves to (dot segments removed, the rest as written)."""
    parent, _, name = path.rpartition("/")
    detours = draw(st.lists(st.sampled_from(["mb-a", "mb-b", "."]), max_size=3))
    spelled = parent
    for d in detours:
        spelled += f"/{d}" + ("" if d == "." else "/..")
    spelled += f"/{name}"
    query = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["q", "Case", "x-y"]),
                st.sampled_from(["a", "A%20b", "%2F", "%c3%a9", "1.5", ""]),
            ),
            max_size=3,
        )
    )
    qs = "&".join(f"{k}={v}" for k, v in query)
    return spelled + (f"?{qs}" if qs else ""), path + (f"?{qs}" if qs else "")


def body_sizes(limit: int | None = None) -> st.SearchStrategy[int]:
    """Octet counts across orders of magnitude and around 64 KiB, within `limit`."""
    return st.sampled_from([n for n in SIZES if limit is None or n <= limit])


def counts_around(limit: int) -> st.SearchStrategy[int]:
    """One under, at and one over `limit` (and 1), each a count a server must judge."""
    return st.sampled_from(sorted({1, max(1, limit - 1), limit, limit + 1}))
