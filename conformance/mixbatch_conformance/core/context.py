"""What a check gets to work with: the target, a way to send bytes, and batch composition.

Theory of operation: checks build requests from `SubRequest` values with `compose_batch`
(the suite's own writer, independent of the reference codec), send them with
`Context.send`, and read responses with `Context.read_batch`, which applies the strict
validator. Every exchange goes through the Judge so that the report holds the real bytes.
Target resources are resolved to paths once; `ref` turns a path into the Content-Id form
the check wants (relative to the batch endpoint, absolute path, or absolute URI).

A check's plainly framed requests (`transport.connections.keeps`) share kept connections, as
real clients' do, so that state a server wrongly carries from one request to the next on a
connection shows in the check that judges the value it corrupts. The connections belong to
the Judge that sent on them: a check's never serve another's, and `release` (the runner calls
it when the check ends) closes them. `--fresh-connections` sends each request on its own.

The context is also the run's cleanup registry: every member the target reports as created
inside the declared sandbox (201 with Location, alone or as a batch part) is recorded, and
`clean_up` deletes them when each check ends, so that every check, and the run, leaves the
sandbox as it found it (target.schema.json, sandbox: "The suite deletes every member it creates
and touches no other member"). A response that is not HTTP at all, or none where the server closed the connection on
a request it had whole, is a broken expectation with its octets kept, never a silent "no
response".
"""

from __future__ import annotations

import posixpath
import re
import ssl
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.json_text import is_json_integer, loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.media_types import MULTISTATUS_MEDIA_TYPES
from mixbatch_conformance.core.schemas import problem_error
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.core.validator import (
    Envelope,
    directive_names,
    list_members,
    parse_media_type,
    read_multipart,
)
from mixbatch_conformance.core.variant_probe import PROBE_FIELDS, VALUE_PROBE_ACCEPT, probe_answer
from mixbatch_conformance.core.variants import (
    ALONE_VARIANTS,
    BATCH_VARIANTS,
    VALUE_VARIANTS,
    rewrite,
    spellings,
    variant_for,
)
from mixbatch_conformance.transport import h2
from mixbatch_conformance.transport.connections import KeptConnections, keeps
from mixbatch_conformance.transport.http import (
    Exchange,
    Response,
    TargetUnreachable,
    build_request,
    first_line,
    in_turn,
    pipeline,
    split_url,
)
from mixbatch_conformance.transport.tls import client_context
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__ = [
    "BATCH_BOUNDARY",
    "Context",
    "SubRequest",
    "compose_batch",
    "json_object",
    "problem_of",
]

CRLF = b"\r\n"
#: A response part that reports a creation (spec 3.3: Http-Status-Code carries the status).
_CREATED_PART = re.compile(rb"(?im)^Http-Status-Code:[ \t]*201\b")


@dataclass(frozen=True)
class SubRequest:
    """One request part, as the suite means to write it."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    content_length: bool = True

    @property
    def content_id(self) -> str:
        return f"<{self.target}>"


#: The boundary of the batches `Context.batch` writes unless told another.
BATCH_BOUNDARY = "mb-suite-0123456789abcdef"


def compose_batch(
    parts: list[SubRequest] | tuple[SubRequest, ...],
    boundary: str,
    *,
    preamble: bytes = b"",
    epilogue: bytes = b"",
    padding: bytes = b"",
) -> bytes:
    """Write a multipart/mixed body with CRLF framing (MB-WIRE-7).

    `preamble`, `epilogue` and `padding` let a check send what receivers must accept
    (MB-WIRE-9, MB-WIRE-11) but senders must not write.
    """
    dash = b"--" + boundary.encode("latin-1")
    out = bytearray()
    if preamble:
        out += preamble + CRLF
    for i, part in enumerate(parts):
        out += (CRLF if i else b"") + dash + padding + CRLF
        out += f"Http-Method: {part.method}\r\nContent-Id: {part.content_id}\r\n".encode("latin-1")
        for name, value in part.headers:
            out += f"{name}: {value}\r\n".encode("latin-1")
        if part.content_length and (part.body or part.method in ("POST", "PUT", "PATCH")):
            out += f"Content-Length: {len(part.body)}\r\n".encode("latin-1")
        out += CRLF + part.body
    out += CRLF + dash + b"--" + padding
    if epilogue:
        out += CRLF + epilogue
    return bytes(out)


def json_object(data: bytes) -> dict[str, Any] | None:
    """`data` read as a JSON object; None when it is not JSON or not an object."""
    try:
        doc = loads_json_text(data)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def problem_of(resp: Response) -> dict[str, Any] | None:
    """The problem+json document of a response, or None when it is not one."""
    if resp.media_type != "application/problem+json":
        return None
    return json_object(resp.body)


def _path_of(target: str) -> str:
    """The path of a request-target in origin-form or absolute-form (RFC 9112 §3.2)."""
    return urlsplit(target).path if "://" in target else target.split("?")[0]


@dataclass
class Context:
    """Per-run state shared by checks: target, run settings, derived addresses, capabilities."""

    target: Target
    #: What this run was asked to do (tier, seed, baseline, intermediary, ...); frozen.
    settings: RunSettings = field(default_factory=RunSettings)
    #: Learned during the run: the target's capabilities document (see fetch_capabilities).
    capabilities: dict[str, Any] | None = None
    capabilities_fetched: bool = False
    #: Paths of sandbox members the target reported created by the running check, oldest first.
    created: list[str] = field(default_factory=list)
    #: Members a cleanup after an earlier check could not delete, with the reason.
    leftovers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        host, port, base = split_url(self.target.base_url)
        self.scheme = urlsplit(self.target.base_url).scheme.lower()
        self.host = host
        self.port = port
        self.authority = host if port == DEFAULT_PORTS[self.scheme] else f"{host}:{port}"
        self.base_path = base.rstrip("/")
        self.timeout = self.settings.timeout_s
        #: The TLS client context of an https target (None for http).
        self.tls: ssl.SSLContext | None = (
            client_context(insecure=self.settings.insecure, ca_file=self.settings.ca_file)
            if self.scheme == "https"
            else None
        )
        #: --http2: the target's requests go as HTTP/2 streams, offering only h2 over TLS.
        self.h2_tls: ssl.SSLContext | None = (
            h2.client_context(insecure=self.settings.insecure, ca_file=self.settings.ca_file)
            if self.scheme == "https" and self.settings.http2
            else None
        )
        baseline = self.settings.baseline_url or self.target.base_url
        b_host, b_port, _ = split_url(baseline)
        b_scheme = urlsplit(baseline).scheme.lower()
        b_authority = b_host if b_port == DEFAULT_PORTS[b_scheme] else f"{b_host}:{b_port}"
        self.baseline = (b_host, b_port, b_authority)
        self.baseline_tls = self.tls if b_scheme == "https" else None
        #: The kept connections of each Judge that sent, by id(judge), then by origin.
        self._kept: dict[int, dict[tuple[str, int], KeptConnections]] = {}
        #: What closes them: at `release`, or when the Judge is collected, whichever is first.
        self._closers: dict[int, weakref.finalize[[int], Judge]] = {}
        self._kept_lock = threading.Lock()
        #: Request variants the target was seen to answer as the request written (learned).
        #: None: the target has nothing the probe could be sent to.
        self._variant_taken: dict[tuple[str, bool], bool | None] = {}
        self._variant_lock = threading.Lock()

    # -- addresses -------------------------------------------------------------------------
    def path(self, path: str) -> str:
        """A target path (as configured) under the base URL's path."""
        return self.base_path + path if not path.startswith(self.base_path + "/") else path

    @property
    def batch_path(self) -> str:
        return self.path(self.target.batch_endpoint)

    def ref(self, path: str, form: str = "absolute-path") -> str:
        """A Content-Id reference to `path` in one of three forms."""
        full = self.path(path)
        if form == "absolute-path":
            return full
        if form == "relative":
            base_dir = posixpath.dirname(self.batch_path) or "/"
            return posixpath.relpath(full, base_dir) if full != base_dir else "."
        if form == "absolute-uri":
            return f"{self.scheme}://{self.authority}{full}"
        raise ValueError(f"unknown reference form {form!r}")

    def resource(self, judge: Judge, name: str) -> str:
        """A named target resource's path, or N/A when the target names none."""
        value = self.target.resource(name)
        if not value:
            judge.not_applicable(f"the target config names no {name!r} resource")
        return value

    # -- traffic ---------------------------------------------------------------------------
    def timeout_for(self, judge: Judge) -> float:
        """Seconds each read of `judge`'s exchanges may wait: the run's per-exchange timeout,
        or the longer wait its check asked for (`Judge.wait_s`)."""
        return max(self.timeout, judge.wait_s)

    def _pipeline(self, requests: list[bytes], timeout: float | None = None) -> list[Exchange]:
        """Send requests to the target over HTTP/1.1, or over HTTP/2 with --http2."""
        wait = self.timeout if timeout is None else timeout
        if self.settings.http2:
            return h2.pipeline(self.host, self.port, requests, wait, self.h2_tls)
        return pipeline(self.host, self.port, requests, wait, self.tls)

    def _one(
        self,
        judge: Judge,
        request: bytes,
        origin: tuple[str, int, ssl.SSLContext | None] | None = None,
        *,
        as_written: bool = False,
    ) -> Exchange:
        """Send one request to the target (or `origin`): on the judge's kept connection when
        its framing is plain, else on a connection of its own; over HTTP/2 with --http2."""
        plain = keeps(request)
        wait = self.timeout_for(judge)
        if origin is None:
            if self.settings.http2:
                return h2.pipeline(self.host, self.port, [request], wait, self.h2_tls)[0]
            origin = (self.host, self.port, self.tls)
            if not as_written:
                request = self._variant(judge, request)
        host, port, tls = origin
        # A request in a variant rides the connection it would have ridden as written.
        if self.settings.fresh_connections or not plain:
            return pipeline(host, port, [request], wait, tls)[0]
        return self._connections(judge, host, port, tls).exchange(request, wait)

    def _variant(self, judge: Judge, request: bytes) -> bytes:
        """`request` as the run's request variants would send it (core.variants).

        Only a request sent direct is rewritten: through an intermediary the rewrite would
        test the intermediary. A batch request goes in `BATCH_VARIANTS`, any other request in
        `ALONE_VARIANTS`. Each variant is
        first learned from the target, for batches and for other requests apart
        (`_variant_taken_by_target`): one the target does not answer as it answers the
        request written is not sent, since that fault is its own check's to judge, not every
        check's."""
        mode = self.settings.request_variants
        if mode == "off" or self.settings.via is not None:
            return request
        line = first_line(request).split(b" ")
        if len(line) != 3:
            return request
        batch = line[1].split(b"?")[0] == self.batch_path.encode("latin-1")
        position = judge.variant_position
        judge.variant_position += 1
        chosen = variant_for(
            self.settings.seed, judge.check_id or judge.default_requirement, position
        )
        if mode != "mixed":
            chosen = (mode, chosen[1] if chosen else position % 2 == 1)
        if chosen is None or chosen[0] not in (BATCH_VARIANTS if batch else ALONE_VARIANTS):
            return request
        variant, flip = chosen
        rewritten = rewrite(variant, request, self.scheme, self.authority, flip=flip)
        if rewritten is None or not self._variant_taken_by_target(variant, batch=batch):
            return request
        what = "batch request" if batch else "request"
        judge.note(f"{what} {position + 1} sent in the {variant} variant")
        return rewritten

    def variants_not_taken(self) -> tuple[str, ...]:
        """The variants learned not taken, each with its kind: "whitespace (alone)"."""
        with self._variant_lock:
            refused = [k for k, taken in self._variant_taken.items() if taken is False]
        return tuple(f"{v} ({'batch' if batch else 'alone'})" for v, batch in sorted(refused))

    def _variant_taken_by_target(self, variant: str, *, batch: bool) -> bool:
        """Whether the target answers a one-part batch (`batch`), or else a request alone, in
        `variant` as it answers it written."""
        with self._variant_lock:
            key = (variant, batch)
            if key not in self._variant_taken:
                self._variant_taken[key] = self._learn_variant(variant, batch)
            return self._variant_taken[key] is True

    def variant_probe(self, batch: bool, variant: str | None = None) -> bytes | None:
        """The probe (core.variant_probe) of `variant` as written: a one-part batch (`batch`)
        or a GET alone, of the echo resource where the target declares one, else of `ok`;
        None when a request alone has neither to go to. A value variant's probe also carries
        a list to respell (`VALUE_PROBE_ACCEPT`)."""
        echo, ok = self.target.resource("echo"), self.target.resource("ok")
        probed = f"{self.path(echo)}?mb-variant-probe" if echo else self.path(ok) if ok else None
        fields = list(PROBE_FIELDS)
        if variant in VALUE_VARIANTS:
            fields.append(("Accept", VALUE_PROBE_ACCEPT[batch]))
        if batch:
            part = SubRequest("GET", probed) if probed else SubRequest("OPTIONS", "/")
            boundary = "mb-variant-probe-5c81e0a7"
            head = [("Content-Type", f"multipart/mixed; boundary={boundary}"), *fields]
            body = compose_batch([part], boundary)
            return self.raw_request("POST", self.batch_path, head, body)
        return self.raw_request("GET", probed, fields) if probed else None

    def _learn_variant(self, variant: str, batch: bool) -> bool | None:
        """Send the probe as written and in `variant`; None when it cannot be sent so. A
        value variant of a batch is also learned from the GET of the echo alone: the batch's
        own fields reach no part (MB-SUB-6), and the echo shows what the target's HTTP stack
        made of them (a line lost, an empty element kept)."""
        taken = self._probe_agrees(variant, batch)
        if taken and batch and variant in VALUE_VARIANTS and self.target.resource("echo"):
            return self._probe_agrees(variant, False) is not False
        return taken

    def _probe_agrees(self, variant: str, batch: bool) -> bool | None:
        written = self.variant_probe(batch, variant)
        if written is None:
            return None
        # Both cases of the case variants: either is a spelling the variant sends.
        probes = [written, *spellings(variant, written, self.scheme, self.authority)]
        if len(probes) == 1:
            return None
        try:
            answers = [
                pipeline(self.host, self.port, [r], self.timeout, self.tls)[0] for r in probes
            ]
        except (TargetUnreachable, OSError):
            return None
        volatile = tuple(self.target.volatile_headers)
        lists = variant in VALUE_VARIANTS
        seen = [probe_answer(ex.response, volatile, lists=lists) for ex in answers]
        return seen[0] is not None and all(s == seen[0] for s in seen[1:])

    def _connections(
        self, judge: Judge, host: str, port: int, tls: ssl.SSLContext | None
    ) -> KeptConnections:
        key = id(judge)
        with self._kept_lock:
            mine = self._kept.get(key)
            if mine is None:
                mine = self._kept[key] = {}
                # A judge the runner does not release (a property's example, a capabilities
                # fetch) closes its connections when it is collected. A finalizer runs once,
                # so a released judge's id, reused by a later one, closes nothing of it.
                self._closers[key] = weakref.finalize(judge, self._release_key, key)
            kept = mine.get((host, port))
            if kept is None:
                kept = mine[(host, port)] = KeptConnections(host, port, self.timeout, tls)
            return kept

    def release(self, judge: Judge) -> None:
        """Close the connections `judge` kept (its check has ended)."""
        with self._kept_lock:
            closer = self._closers.get(id(judge))
        if closer is not None:
            closer()

    def _release_key(self, key: int) -> None:
        with self._kept_lock:
            mine = self._kept.pop(key, {})
            self._closers.pop(key, None)
        for kept in mine.values():
            kept.close()

    def raw_request(
        self,
        method: str,
        path: str,
        headers: list[tuple[str, str]] | tuple[tuple[str, str], ...] = (),
        body: bytes | None = None,
        *,
        credentials: bool = True,
        authority: str | None = None,
    ) -> bytes:
        names = {n.lower() for n, _ in headers}
        extra = [
            (n, v) for n, v in self.target.credentials if credentials and n.lower() not in names
        ]
        return build_request(method, path, authority or self.authority, [*headers, *extra], body)

    def send(self, judge: Judge, request: bytes, *, as_written: bool = False) -> Response:
        """Send one request. Octets that are not an HTTP/1.1 response, and a connection
        closed or reset without an answer after the whole request was written, are broken
        expectations (a FAIL under the check's requirement); no connection, or silence until
        the timeout, is a SETUP-ERROR or a TIMEOUT."""
        ex = judge.record(self._one(judge, request, as_written=as_written))
        return self._answer(judge, ex)

    def send_within(self, judge: Judge, request: bytes, wait: float) -> Exchange:
        """Send one request on a connection of its own and wait `wait` seconds at most for its
        answer: for a request the target may rightly take long over, whose missing answer is
        the caller's to read (the exchange then holds no response and says why)."""
        return self.send_many_within(judge, [request], wait)[0]

    def send_many(self, judge: Judge, requests: list[bytes]) -> list[Exchange]:
        return self._judged(judge, self._pipeline(requests, self.timeout_for(judge)))

    def send_many_within(self, judge: Judge, requests: list[bytes], wait: float) -> list[Exchange]:
        """`requests` pipelined on a connection of their own, each read waiting `wait` seconds
        at most: for answers the target may rightly take long over, or whose end it may fail to
        mark, whose missing answer is the caller's to read (the exchange then holds no response
        and says why)."""
        try:
            sent = self._pipeline(requests, wait)
        except TimeoutError as exc:
            sent = [Exchange(r, None, f"TimeoutError: {exc}") for r in requests]
        # Silence within `wait` is the caller's to read, not a silent target (Judge.record ends
        # a check on an exchange that timed out).
        quiet = [
            Exchange(ex.request, None, f"no answer within {wait:g} s", raw=ex.raw)
            if ex.response is None and (ex.error or "").startswith("TimeoutError")
            else ex
            for ex in sent
        ]
        return self._judged(judge, quiet)

    def send_in_turn(self, judge: Judge, requests: list[bytes]) -> list[Exchange]:
        """Send `requests` on one HTTP/1.1 connection of their own, each once the answer before
        it was read, every octet after an answer read as the next (`transport.http.in_turn`);
        unlike the kept connections of `send`, nothing an answer left over is set aside."""
        wait = self.timeout_for(judge)
        return self._judged(judge, in_turn(self.host, self.port, requests, wait, self.tls))

    def _judged(self, judge: Judge, exchanges: list[Exchange]) -> list[Exchange]:
        """`exchanges` recorded, each answer judged as every answer the suite receives is."""
        for ex in exchanges:
            judge.record(ex)
            if ex.response is not None:
                self._note_created(ex.request, ex.response)
                self._judge_head(judge, ex.request, ex.response)
                self._judge_problem(judge, ex.request, ex.response)
                self._judge_batch_fields(judge, ex.request, ex.response)
        return exchanges

    def _judge_head(self, judge: Judge, request: bytes, resp: Response) -> None:
        """Every response is HTTP/1.1 as RFC 9112 and RFC 9110 give a sender to write it.

        The client reads on where a recipient may (transport.http), and keeps what the sender
        broke in `Response.violations`; each is a broken expectation under the requirement
        that the request be answered with a status, as for octets that are not HTTP at all
        (`_not_http`). RFC 9110 §2.2: "A sender MUST NOT generate protocol elements that do
        not match the grammar defined by the corresponding ABNF rules". Through an
        intermediary (--via) the head is the intermediary's, which the server did not write."""
        if self.settings.via is not None:
            return
        for violation in resp.violations:
            judge.expect_true(
                "response is HTTP/1.1 as a sender writes it",
                False,
                violation,
                "the grammar of RFC 9112 and RFC 9110",
                _answering_requirement(request, self.batch_path),
            )

    def _judge_problem(self, judge: Judge, request: bytes, resp: Response) -> None:
        """Every problem document answering a batch request is one the problem schema allows.

        MB-STATUS-4: "A server MUST give each 4xx or 5xx response it makes to a batch request
        an `application/problem+json` body (RFC 9457) ...; the document MUST be one the problem
        schema ([`spec/schemas/problem.schema.json`]) admits", and spec 5.3: "'A batch
        request' here is every request to a batch endpoint, whatever its method or content, and
        a collection retrieval". Every response the suite receives goes through here, so no refusal's document escapes the schema, whichever check asked;
        only a broken document is recorded. Through an intermediary (--via) the answer may be
        the intermediary's own, which MB-STATUS-4 does not bind. A response to `HEAD` has no
        content (RFC 9110 section 9.3.2: "the server MUST NOT send content in the response"),
        so it carries no document to judge."""
        if (
            self.settings.via is not None
            or resp.status < 400
            or resp.media_type != "application/problem+json"
        ):
            return
        end = request.find(b"\r\n\r\n")
        head = request if end < 0 else request[:end]
        method, target = _request_line(request)
        path = _path_of(target or "/")
        if method == "HEAD":
            return
        if path != self.batch_path and not self._retrieval(method, path, head):
            return
        error = problem_error(json_object(resp.body) if resp.body else None)
        if error is not None:
            judge.expect_true(
                f"problem document of the {resp.status} answering {method} {path}",
                False,
                error,
                "a document valid against problem.schema.json",
                "MB-STATUS-4",
            )

    def _judge_batch_fields(self, judge: Judge, request: bytes, resp: Response) -> None:
        """Every batch response carries the header fields the spec asks of every one.

        Spec 2.4: a batch response is "the outer response carrying their responses": a 200
        multipart/mixed answer or a 207 form answering a POST to the batch endpoint, over any
        HTTP version, in any mode, under any request variant. MB-INTER-4 (SHOULD): "include
        `Cache-Control: no-transform` ... in batch requests and batch responses"; MB-MULTI-10
        (SHOULD): "A server that offers more than one representation of batch results SHOULD
        send `Vary: Accept` in its batch responses", and `Vary: *` does not meet it. Only a
        departure is recorded, as for problem documents, whichever check asked. Through an
        intermediary (--via) the header section may be the intermediary's."""
        if self.settings.via is not None or not _batch_response(request, resp, self.batch_path):
            return
        cache = resp.get_all("Cache-Control")
        if "no-transform" not in directive_names(cache):
            judge.expect_true(
                f"Cache-Control of the {resp.status} {resp.media_type} batch response",
                False,
                repr(cache),
                "no-transform (SHOULD)",
                "MB-INTER-4",
            )
        if not any(self.target.claims(form) for form in ("xml", "json")):
            return
        vary = [m.lower() for m in list_members(resp.get_all("Vary"))]
        if "accept" not in vary:
            judge.expect_true(
                f"Vary of the {resp.status} {resp.media_type} batch response",
                False,
                repr(resp.get_all("Vary")),
                "Vary naming Accept (SHOULD)",
                "MB-MULTI-10",
            )

    def _retrieval(self, method: str, path: str, head: bytes) -> bool:
        """A GET of a declared collection whose Accept names multipart/mixed.

        MB-TEST-8: "A server that declares the `collection` or `empty_collection` role MUST
        answer a `GET` of that resource with `Accept: multipart/mixed` as a collection
        retrieval"; no requirement makes a GET of the sandbox collection one."""
        if method != "GET" or b"multipart/mixed" not in head.lower():
            return False
        names = ("collection", "empty_collection")
        declared = {self.path(c) for c in map(self.target.resource, names) if c}
        return path in declared

    def _answer(self, judge: Judge, ex: Exchange) -> Response:
        if ex.too_large:
            # No answer to a request the suite sends is that large: what it holds is not read,
            # so the check is not judged on it, and the run goes on.
            judge.setup_error(f"the answer is larger than the suite reads: {ex.error}")
        if ex.response is None:
            if ex.raw:
                self._not_http(judge, ex)
            if ex.unanswered:
                judge.require_true(
                    "an answer to the request",
                    False,
                    f"none: {ex.error}, after the whole request was written",
                    "a response (RFC 9112 section 9.3: a server answers every request it "
                    "receives on a connection, in order)",
                )
            judge.setup_error(f"no response: {ex.error}")
        self._note_created(ex.request, ex.response)
        self._judge_head(judge, ex.request, ex.response)
        self._judge_problem(judge, ex.request, ex.response)
        self._judge_batch_fields(judge, ex.request, ex.response)
        return ex.response

    def _not_http(self, judge: Judge, ex: Exchange) -> None:
        """Octets came back that are not an HTTP/1.1 response: the request got no status.

        A batch must be answered with a status (MB-STATUS-1: "A well-formed batch that was
        processed is answered 200"; MB-STATUS-2: a malformed one 400); a declared test
        resource must answer GET with its status (MB-TEST-1)."""
        method, target = _request_line(ex.request)
        began = re.match(rb"HTTP/1\.[01] 20[07] ", ex.raw) is not None
        if began and ex.cut_short and method == "POST" and _path_of(target) == self.batch_path:
            # MB-STATUS-6: "A server that must stop after its batch response has begun MUST
            # finish the part it is writing if it can, then write a final part with
            # `Batch-Outcome: aborted` ... and then the close delimiter": a batch answer whose
            # status line was written and whose message then broke off has neither.
            judge.expect_true(
                "batch response ended",
                False,
                "broken off after its status line, with no abort part or close delimiter",
                "an abort part and the close delimiter when a server stops after its batch "
                "response has begun",
                "MB-STATUS-6",
            )
        judge.require_true(
            "response is HTTP/1.1",
            False,
            f"{len(ex.raw)} octets that are not an HTTP/1.1 response ({ex.error}): {ex.raw[:60]!r}",
            "an HTTP/1.1 status line (RFC 9112 section 4)",
            _answering_requirement(ex.request, self.batch_path),
        )

    # -- cleanup ---------------------------------------------------------------------------
    def _sandbox_prefix(self) -> str | None:
        coll = self.target.resource("sandbox_collection")
        return self.path(coll).rstrip("/") + "/" if coll else None

    def _note_created(self, request: bytes, resp: Response) -> None:
        """Record a member the response says was created in the sandbox (alone or in parts)."""
        prefix = self._sandbox_prefix()
        if prefix is None:
            return
        line = first_line(request).decode("latin-1", "replace").split(" ")
        target = line[1] if len(line) > 1 else "/"
        path = urlsplit(target).path + (f"?{urlsplit(target).query}" if "?" in target else "")
        if resp.status == 201:
            # A PUT that created its own target may name no Location: the target is the member.
            self._remember(prefix, path, resp.get("Location") or path)
        # A body without "201" names no created part; looking for the octets first spares a
        # line-anchored, caseless scan of answers tens of MiB long.
        created = b"201" in resp.body and _CREATED_PART.search(resp.body)
        if resp.media_type == "multipart/mixed" and created:
            try:
                _, params = parse_media_type(resp.get("Content-Type") or "")
                env = read_multipart(resp.body, params.get("boundary", ""))
            except ValueError:
                return
            for part in env.parts:
                if (part.get("Http-Status-Code") or "").strip() == "201":
                    # Without Location, the echoed Content-Id names the part's target
                    # (MB-RESP-3), which a PUT created.
                    echoed = (part.get("Content-Id") or "").strip().removeprefix("<")
                    named = part.get("Location") or echoed.removesuffix(">")
                    self._remember(prefix, self.batch_path, named)

    def _remember(self, prefix: str, base: str, location: str) -> None:
        if not location:
            return
        url = urlsplit(urljoin(f"{self.scheme}://{self.authority}{base}", location.strip()))
        if url.netloc and url.netloc.lower() != self.authority.lower():
            return
        path = url.path + (f"?{url.query}" if url.query else "")
        # Only members of the sandbox: the suite touches nothing else.
        if path.startswith(prefix) and path not in self.created:
            self.created.append(path)

    def clean_up(self) -> list[str]:
        """DELETE every member recorded as created; return those that are still there.

        A member a check already deleted answers 404 or 410, which counts as gone."""
        left: list[str] = []
        for path in reversed(self.created):
            request = self.raw_request("DELETE", path)
            try:
                ex = self._pipeline([request])[0]
            except (TargetUnreachable, OSError) as exc:
                left.append(f"{path} (DELETE failed: {exc})")
                continue
            status = ex.response.status if ex.response is not None else None
            if status is None or not (200 <= status < 300 or status in (404, 410)):
                left.append(f"{path} (DELETE answered {status or ex.error})")
        self.created.clear()
        return left

    def alone(self, judge: Judge, sub: SubRequest) -> Response:
        """Send a sub-request as a standalone request to the path it resolves to.

        It goes to the baseline (the origin under --via) but names the target's authority in
        Host, as the batch did, so that a handler sees the same request either way."""
        path = sub.target if sub.target.startswith("/") else self.resolve(sub.target)
        headers = list(sub.headers)
        body: bytes | None = (
            sub.body if (sub.body or sub.method in ("POST", "PUT", "PATCH")) else None
        )
        request = self.raw_request(sub.method, path, headers, body)
        origin = (self.baseline[0], self.baseline[1], self.baseline_tls)
        ex = judge.record(self._one(judge, request, origin))
        return self._answer(judge, ex)

    def resolve(self, ref: str) -> str:
        if ref.startswith(("http://", "https://")):
            return "/" + ref.split("/", 3)[3] if ref.count("/") >= 3 else "/"
        base_dir = posixpath.dirname(self.batch_path)
        return posixpath.normpath(posixpath.join(base_dir, ref))

    def batch(
        self,
        judge: Judge,
        parts: list[SubRequest] | tuple[SubRequest, ...],
        *,
        boundary: str = BATCH_BOUNDARY,
        headers: tuple[tuple[str, str], ...] = (),
        **compose: bytes,
    ) -> Response:
        body = compose_batch(parts, boundary, **compose)
        head = [("Content-Type", f"multipart/mixed; boundary={boundary}"), *headers]
        return self.send(judge, self.raw_request("POST", self.batch_path, head, body))

    def read_batch(self, judge: Judge, resp: Response, expect_status: int = 200) -> Envelope:
        """Judge a batch response's status and media type, then read its parts strictly."""
        if 500 <= resp.status < 600 and expect_status < 500 and _holds_sub_responses(resp):
            # MB-STATUS-5: "A server MUST choose the top-level status of a batch without regard
            # to the statuses of its parts: a part that fails with a 4xx or 5xx status is
            # reported in that part, and the batch is still answered as processed." A 5xx
            # carrying response parts is a processed batch answered as a failed one.
            judge.require(
                "top-level status of a batch answered with its response parts",
                resp.status,
                {expect_status},
                "MB-STATUS-5",
            )
        judge.require("top-level status", resp.status, {expect_status}, "MB-STATUS-1")
        ctype = resp.get("Content-Type") or ""
        judge.require("response media type", resp.media_type, {"multipart/mixed"}, "MB-MULTI-1")
        _, params = judge.media_type("response Content-Type", ctype, "MB-WIRE-3")
        boundary = params.get("boundary", "")
        judge.require_true(
            "response boundary parameter",
            bool(boundary),
            f"Content-Type {ctype!r}",
            "a boundary parameter",
            "MB-WIRE-3",
        )
        env = read_multipart(resp.body, boundary)
        for finding in env.findings:
            judge.expect_true(
                "response framing",
                False,
                f"{finding.message} at octet {finding.offset}",
                "framing as the ABNF requires",
                finding.sender,
            )
        if not env.parts and (resp.chunked or resp.get("Content-Length") is not None):
            # MB-RESP-1: "exactly one part per request part, in request order"; a processed
            # batch has a part at least (MB-WIRE-18). Spec 5.4 lets an answer be "cut short
            # without the close delimiter, when the server cannot write the abort part", but
            # an answer its own framing ends (a Content-Length met, the last chunk) was not
            # cut short: the server ended it, holding no part, where it could have written one.
            judge.expect_true(
                "response parts",
                False,
                f"none in {len(resp.body)} octets of content",
                "one part per request part",
                "MB-RESP-1",
            )
        if env.findings:
            judge.require_true(
                "response is readable",
                not env.fatal,
                f"{len(env.fatal)} fatal framing findings",
                "no fatal framing findings",
                env.fatal[0].sender if env.fatal else "MB-WIRE-7",
            )
        return env

    # -- discovery -------------------------------------------------------------------------
    def fetch_capabilities(self, judge: Judge | None = None) -> dict[str, Any] | None:
        """OPTIONS on the batch endpoint, cached; None when the target offers no document."""
        if self.capabilities_fetched:
            return self.capabilities
        self.capabilities_fetched = True
        j = judge or Judge("MB-LIMIT-2")
        try:
            resp = self.send(j, self.raw_request("OPTIONS", self.batch_path))
        except Exception:
            return None
        if resp.status == 200 and "json" in resp.media_type:
            try:
                doc = loads_json_text(resp.body)
            except ValueError:
                doc = None
            if isinstance(doc, dict):
                self.capabilities = doc
        return self.capabilities

    def limit(self, name: str) -> int | None:
        """A published limit. MB-LIMIT-1 has a server publish its limits "in the capabilities
        document when it offers the `limits` profile, and otherwise in its documentation": for
        a target that claims the profile the document's value binds it, whatever its
        description says; otherwise the description's value (what its documentation gives),
        else the document's when it offers one."""
        published = self._capabilities_limit(name)
        if self.target.claims("limits") and published is not None:
            return published
        if name in self.target.limits:
            return self.target.limits[name]
        return published

    def _capabilities_limit(self, name: str) -> int | None:
        caps = self.fetch_capabilities()
        if caps and isinstance(caps.get("limits"), dict):
            value = caps["limits"].get(name)
            # The schema's "integer" is JSON Schema's (100.0 as well as 100, never `true`).
            if is_json_integer(value):
                return int(value)
        return None


def _request_line(request: bytes) -> tuple[str, str]:
    """The method and the target of `request`'s first line ("" for a part it lacks)."""
    line = first_line(request).decode("latin-1", "replace").split(" ")
    return line[0], line[1] if len(line) > 1 else ""


def _answering_requirement(request: bytes, batch_path: str) -> str:
    """The requirement that `request` be answered with a status: a batch's (MB-STATUS-1: "A
    well-formed batch that was processed is answered 200"; MB-STATUS-2: a malformed one 400),
    else a declared test resource's (MB-TEST-1)."""
    return "MB-STATUS-1" if _path_of(_request_line(request)[1]) == batch_path else "MB-TEST-1"


def _batch_response(request: bytes, resp: Response, batch_path: str) -> bool:
    """Whether `resp` answers a POST to the batch endpoint with its sub-responses: a 200
    multipart/mixed answer (MB-STATUS-1) or a 207 form (MB-MULTI-2)."""
    method, target = _request_line(request)
    if method != "POST" or _path_of(target) != batch_path:
        return False
    if resp.status == 200:
        return resp.media_type == "multipart/mixed"
    return resp.status == 207 and resp.media_type in MULTISTATUS_MEDIA_TYPES


def _holds_sub_responses(resp: Response) -> bool:
    """Whether `resp` is a multipart body with at least one part carrying Http-Status-Code:
    the answer of a batch that was processed, whatever its top-level status."""
    if resp.media_type != "multipart/mixed":
        return False
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
        parts = read_multipart(resp.body, params.get("boundary", "")).parts
    except ValueError:
        return False
    return any(part.get("Http-Status-Code") is not None for part in parts)
