"""Planted violations of a chunked batch's trailer section read as its header section (spec 8.2,
7.4, 6.1, 10.1; RFC 9110 §6.5.1): a server whose HTTP stack hands trailer fields over with the
header fields once the content has been read.

- every trailer field appended to the header section, so a trailer Cookie or Authorization
  is inherited by the parts (MB-SUB-6);
- only the trailer fields a `Trailer` header field announced appended, or only those it did
  not announce (MB-SUB-6);
- a trailer Cookie inherited by the parts (MB-SUB-6);
- a trailer Prefer or Batch-Mode applied, so the batch runs under stop or atomically
  (MB-PROC-5);
- a trailer Accept choosing the form of the answer (MB-MULTI-1);
- a trailer Accept-Encoding coding the answer (MB-INTER-5).

The relay does not forward a request's trailer section; each plant edits what the reference
server receives from the trailer fields the client sent, on chunked batch requests only.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest

__all__ = ["PLANTS"]

CATCHER = "chunked-trailer-fields-not-read-as-header"


def _announced(req: RelayRequest) -> set[str]:
    """The field names the request's Trailer header fields list, lower-cased."""
    return {
        name.strip().lower()
        for n, v in req.headers
        if n.lower() == "trailer"
        for name in v.split(",")
        if name.strip()
    }


def _merged(keep: Callable[[RelayRequest, str], bool]) -> Callable[[RelayRequest], None]:
    """Append each trailer field `keep` admits to the batch request's header section."""

    def edit(req: RelayRequest) -> None:
        if is_batch(req) and req.trailers:
            req.headers = [*req.headers, *((n, v) for n, v in req.trailers if keep(req, n))]

    return edit


def _named(*names: str) -> Callable[[RelayRequest, str], bool]:
    wanted = {n.lower() for n in names}
    return lambda req, name: name.lower() in wanted


def _coding_from_trailer(req: RelayRequest) -> str | None:
    """gzip or deflate when a trailer Accept-Encoding of a batch names it."""
    if not is_batch(req):
        return None
    for name, value in req.trailers:
        if name.lower() == "accept-encoding":
            members = {m.split(";")[0].strip().lower() for m in value.split(",")}
            for coding in ("gzip", "deflate"):
                if coding in members:
                    return coding
    return None


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "trailer-fields-merged-into-header",
        "MB-SUB-6 a chunked batch's trailer fields merged into its header section",
        (CATCHER,),
        on_request=_merged(lambda req, name: True),
    ),
    P(
        "announced-trailer-fields-merged",
        "MB-SUB-6 the trailer fields a Trailer header field announced merged into the header",
        (CATCHER,),
        on_request=_merged(lambda req, name: name.lower() in _announced(req)),
    ),
    P(
        "unannounced-trailer-fields-merged",
        "MB-SUB-6 the trailer fields no Trailer header field announced merged into the header",
        (CATCHER,),
        on_request=_merged(lambda req, name: name.lower() not in _announced(req)),
    ),
    P(
        "trailer-cookie-inherited",
        "MB-SUB-6 a chunked batch's trailer Cookie inherited by its parts",
        (CATCHER,),
        on_request=_merged(_named("Cookie")),
    ),
    P(
        "trailer-prefer-applied",
        "MB-PROC-5 a chunked batch's trailer Prefer applied as its error policy",
        (CATCHER,),
        on_request=_merged(_named("Prefer")),
    ),
    P(
        "trailer-batch-mode-applied",
        "MB-PROC-5 a chunked batch's trailer Batch-Mode applied as its mode",
        (CATCHER,),
        on_request=_merged(_named("Batch-Mode")),
    ),
    P(
        "trailer-accept-applied",
        "MB-MULTI-1 a chunked batch's trailer Accept choosing the form of its answer",
        (CATCHER,),
        on_request=_merged(_named("Accept")),
    ),
    P(
        "trailer-accept-encoding-applied",
        "MB-INTER-5 a chunked batch's answer coded as its trailer Accept-Encoding asks",
        (CATCHER,),
        behaviour=Behaviour(compress=_coding_from_trailer),
    ),
)
