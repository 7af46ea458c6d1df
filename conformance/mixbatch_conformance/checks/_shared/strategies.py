"""Hypothesis strategies that build VALID batches bottom-up from a target's resources.

Theory of operation: nothing is generated and then filtered for validity; each strategy
composes pieces that are valid by construction. A sub-request is drawn from the resources
the target names: GET or HEAD of `ok` and `not_found` (with an Accept choice and a
Content-Id form: relative, absolute-path, absolute-URI), and, when the target has an `echo`
resource, any of PUT, POST, PATCH, DELETE with arbitrary octets as content, with or without
a part Content-Length. A boundary is drawn from [A-Za-z0-9_-] (16 to 70 characters, as a
sender must use) or from the full bchars set (1 to 70, quoted when needed) that receivers
must accept. `batches` draws a list of 1 to `max_parts` sub-requests and a boundary, and the
composition is rejected only when the boundary happens to occur in a body (`assume`).

Shrinking: lists shrink toward one part, methods toward GET of `ok`, bodies toward empty,
boundaries toward the shortest allowed string, and optional fields toward absent.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from mixbatch_conformance.core.context import Context, SubRequest

__all__ = ["Batch", "batches", "boundaries", "sub_requests"]

SAFE_BCHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
ALL_BCHARS = SAFE_BCHARS + "'()+,./:=?"
REF_FORMS = ("absolute-path", "relative", "absolute-uri")


@dataclass(frozen=True)
class Batch:
    """A drawn batch: its sub-requests and the boundary to frame them with."""

    parts: tuple[SubRequest, ...]
    boundary: str

    @property
    def content_type(self) -> str:
        token = all(c in SAFE_BCHARS + "'+." for c in self.boundary)
        b = self.boundary if token else f'"{self.boundary}"'
        return f"multipart/mixed; boundary={b}"


def boundaries(sender_form_only: bool = False) -> st.SearchStrategy[str]:
    safe = st.text(SAFE_BCHARS, min_size=16, max_size=70)
    if sender_form_only:
        return safe
    inner = st.text(ALL_BCHARS + " ", min_size=0, max_size=69)
    last = st.sampled_from(ALL_BCHARS)
    return st.one_of(safe, st.builds(lambda a, b: a + b, inner, last))


def sub_requests(ctx: Context, *, writes: bool = True) -> st.SearchStrategy[SubRequest]:
    ok = ctx.target.resource("ok") or "/"
    nf = ctx.target.resource("not_found") or "/mixbatch-absent"
    reads = st.builds(
        lambda method, path, form, accept: SubRequest(
            method, ctx.ref(path, form), (("Accept", accept),) if accept else ()
        ),
        st.sampled_from(["GET", "HEAD"]),
        st.sampled_from([ok, nf]),
        st.sampled_from(REF_FORMS),
        st.sampled_from([None, "*/*", "application/json"]),
    )
    echo = ctx.target.resource("echo")
    if not writes or not echo:
        return reads
    write = st.builds(
        lambda method, body, ctype, with_length, extra: SubRequest(
            method,
            ctx.ref(echo),
            (("Content-Type", ctype), *extra),
            body,
            content_length=with_length,
        ),
        st.sampled_from(["PUT", "POST", "PATCH", "DELETE"]),
        st.binary(max_size=300),
        st.sampled_from(["application/octet-stream", "text/plain; charset=utf-8"]),
        st.booleans(),
        st.lists(
            st.tuples(
                st.sampled_from(["X-Mixbatch-Prop", "Accept-Language", "If-Match"]),
                st.text("abcdefghijklmnopqrstuvwxyz0123456789-*", min_size=1, max_size=12),
            ),
            max_size=2,
            unique_by=lambda t: t[0],
        ),
    )
    return st.one_of(reads, write)


def _collides(batch: Batch) -> bool:
    dash = b"--" + batch.boundary.encode("latin-1")
    for part in batch.parts:
        if dash in part.body or dash in part.target.encode("latin-1"):
            return True
        if not part.content_length and part.body.endswith(b"\r"):
            return True
    return False


@st.composite
def batches(
    draw: st.DrawFn,
    ctx: Context,
    *,
    max_parts: int = 8,
    writes: bool = True,
    sender_form_only: bool = False,
) -> Batch:
    parts = draw(st.lists(sub_requests(ctx, writes=writes), min_size=1, max_size=max_parts))
    boundary = draw(boundaries(sender_form_only))
    batch = Batch(tuple(parts), boundary)
    if _collides(batch):
        boundary = "mb-prop-" + "x" * 16
        batch = Batch(tuple(parts), boundary)
    return batch
