#!/usr/bin/env node
'use strict';
// An independent mixbatch server (spec/mixbatch.md, draft-02) using Node.js
// built-in modules only. Usage: node server.js [--port N] [--host H] [--endpoint /path]
// (--port 0: a free port, named on the first line printed)

const http = require('node:http');
const zlib = require('node:zlib');
const { route, KNOWN_METHODS } = require('./lib/resources');
const { validateParts, runBatch, parseEnvelope, SPEC_VERSION, JSON_TYPE } = require('./lib/batch');
const { boundaryError } = require('./lib/envelope');
const { parseMediaType, acceptQuality, batchOnError, problem, splitList, isToken } = require('./lib/httputil');
const { parseHostField, parseReference, decodeUnreserved, removeDotSegments } = require('./lib/uri');
const { normalizeFramingOWS } = require('./lib/ows');

// ---- configuration ----
const args = process.argv.slice(2);
function opt(name, def) {
  const i = args.indexOf('--' + name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
}
const PORT = parseInt(opt('port', '18190'), 10);
const HOST = opt('host', '127.0.0.1');
const ENDPOINT = opt('endpoint', '/x/batch');
const PREFIX = opt('prefix', '/r');
const LIMITS = {
  max_parts: parseInt(opt('max-parts', '10000'), 10),
  max_batch_bytes: parseInt(opt('max-batch-bytes', String(64 * 1024 * 1024)), 10),
  max_part_bytes: parseInt(opt('max-part-bytes', String(16 * 1024 * 1024)), 10),
  max_part_header_bytes: parseInt(opt('max-part-header-bytes', '8192'), 10),
  max_part_fields: parseInt(opt('max-part-fields', '100'), 10),
  max_batches_in_flight: parseInt(opt('max-batches-in-flight', '8'), 10),
};
const BATCH_TIMEOUT_MS = parseInt(opt('batch-timeout-ms', '8000'), 10);
const OFFER_JSON = opt('json', 'on') !== 'off';
const PROFILES = ['core', 'collection-get', 'limits', 'error-policy', 'conditional'];
if (OFFER_JSON) PROFILES.splice(1, 0, 'json');
const REPRESENTATIONS = OFFER_JSON ? ['multipart/mixed', JSON_TYPE] : ['multipart/mixed'];
const ENDPOINT_METHODS = ['POST', 'OPTIONS'];
const CODINGS = ['gzip', 'x-gzip', 'deflate', 'br', 'identity'];

let inFlight = 0;

function isBatchPath(p) {
  return p === ENDPOINT;
}

// ---- responses ----
function sendProblem(res, status, slug, title, extra, headers, opts) {
  const doc = problem(status, slug, title, extra);
  const body = Buffer.from(JSON.stringify(doc), 'utf8');
  const h = [['Content-Type', 'application/problem+json'], ['Content-Length', String(body.length)], ...(headers || [])];
  if (opts && opts.close) h.push(['Connection', 'close']);
  res.writeHead(status, h.flat());
  res.end(res.req && res.req.method === 'HEAD' ? undefined : body);
}

function problemResponse(status, slug, title, extra) {
  const doc = problem(status, slug, title, extra);
  return { status, headers: [['Content-Type', 'application/problem+json']], body: Buffer.from(JSON.stringify(doc), 'utf8') };
}

function envelopeProblem(res, e) {
  const slug = e.status === 413 || e.status === 431 ? 'limit-exceeded' : 'malformed-batch';
  const extra = { detail: e.detail, requirement: e.requirement, part_index: e.part_index, byte_offset: e.byte_offset };
  if (e.limit) { extra.limit = e.limit; extra.value = e.value; }
  sendProblem(res, e.status, slug, e.title, extra);
}

function sendResponse(res, method, resp) {
  const hdrs = resp.headers.filter(([n]) => n.toLowerCase() !== 'content-length');
  const body = resp.body || Buffer.alloc(0);
  const noBody = resp.status === 204 || resp.status === 304;
  if (!noBody) hdrs.push(['Content-Length', String(body.length)]);
  res.writeHead(resp.status, hdrs.flat());
  res.end(method === 'HEAD' || noBody ? undefined : body);
}

// Reads the whole request content, up to `max` octets. Resolves with a Buffer,
// or {tooLarge: true} once more than `max` octets arrived.
function readBody(req, max) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let done = false;
    req.on('data', (c) => {
      if (done) return;
      size += c.length;
      if (size > max) { done = true; resolve({ tooLarge: true }); return; }
      chunks.push(c);
    });
    req.on('end', () => { if (!done) { done = true; resolve(Buffer.concat(chunks)); } });
    req.on('error', (e) => { if (!done) { done = true; reject(e); } });
    req.on('aborted', () => { if (!done) { done = true; reject(new Error('aborted')); } });
  });
}

function decodeContent(buf, codings, max) {
  let out = buf;
  for (const c of codings.slice().reverse()) {
    const o = { maxOutputLength: max + 1 };
    if (c === 'gzip' || c === 'x-gzip') out = zlib.gunzipSync(out, o);
    else if (c === 'deflate') {
      try { out = zlib.inflateSync(out, o); } catch (e) {
        if (e.code === 'ERR_BUFFER_TOO_LARGE') throw e;
        out = zlib.inflateRawSync(out, o);
      }
    } else if (c === 'br') out = zlib.brotliDecompressSync(out, { maxOutputLength: max + 1 });
  }
  return out;
}

// After an early refusal: discard what the client still sends for a bounded while, then close.
// The while starts once the refusal is written: answers owed to requests pipelined ahead of
// this one go out first, however long they take (MB-PIPE-1).
function drainAndClose(req, res) {
  req.on('data', () => {});
  req.resume();
  res.on('finish', () => {
    if (req.complete && req.socket) { req.socket.end(); return; }
    const t = setTimeout(() => { if (req.socket) req.socket.destroy(); }, 2000);
    t.unref();
  });
}

function headerLines(req, name) {
  const l = name.toLowerCase();
  const out = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === l) out.push(req.rawHeaders[i + 1]);
  }
  return out;
}

// The request-target (RFC 9112 section 3.2): origin-form, or absolute-form, whose authority
// then stands in for the Host field's (section 3.2.2: a server MUST accept the absolute-form).
// Returns {path, query, originForm, absolute, authority, auth}; null for the asterisk-form;
// {error} for an absolute-form that is not an http(s) URI with an authority.
function requestTarget(req) {
  const url = req.url;
  if (url.startsWith('/')) {
    const q = url.indexOf('?');
    return {
      path: q >= 0 ? url.slice(0, q) : url,
      query: q >= 0 ? url.slice(q + 1) : undefined,
      originForm: url,
      absolute: false,
      authority: req.headers.host || '',
    };
  }
  if (url === '*') return null;
  const ref = parseReference(url);
  if (!ref || ref.scheme === undefined || !['http', 'https'].includes(ref.scheme.toLowerCase()) ||
      ref.authority === undefined || ref.fragment !== undefined || ref.auth.userinfo !== null || ref.auth.host === '') {
    return { error: `The request-target ${JSON.stringify(url.slice(0, 200))} is neither origin-form nor an http absolute-form.` };
  }
  const path = ref.path === '' ? '/' : ref.path;
  return {
    path,
    query: ref.query,
    originForm: path + (ref.query !== undefined ? '?' + ref.query : ''),
    absolute: true,
    authority: ref.authority,
    auth: ref.auth,
  };
}

function rawHeaderPairs(req) {
  const out = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) out.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
  return out;
}

// ---- in-process dispatch (standalone requests and sub-requests alike) ----
const ctx = { prefix: PREFIX, problemResponse };
async function dispatch(r) {
  return route(r, ctx);
}

function capabilities() {
  return {
    spec_version: SPEC_VERSION,
    endpoint: ENDPOINT,
    limits: Object.assign({}, LIMITS),
    profiles: PROFILES,
    representations: REPRESENTATIONS,
    preferences: ['batch-on-error=stop'],
  };
}

// ---- the batch endpoint ----
async function handleBatch(req, res, started, target) {
  const allowHdr = [['Allow', ENDPOINT_METHODS.join(', ')]];
  if (req.method === 'OPTIONS') {
    const body = Buffer.from(JSON.stringify(capabilities()), 'utf8');
    res.writeHead(200, [['Content-Type', 'application/vnd.mixbatch.capabilities+json'], ['Accept-Post', 'multipart/mixed'],
      ['Allow', ENDPOINT_METHODS.join(', ')], ['Content-Length', String(body.length)]].flat());
    res.end(body);
    return;
  }
  if (req.method !== 'POST') {
    const known = KNOWN_METHODS.has(req.method);
    sendProblem(res, known ? 405 : 501, known ? 'method-not-allowed' : 'method-not-implemented',
      known ? 'Method not allowed on the batch endpoint' : 'Method not implemented',
      { requirement: 'MB-METHOD-2', detail: `The batch endpoint answers ${ENDPOINT_METHODS.join(' and ')}, not ${req.method}.` }, allowHdr);
    return;
  }

  // Host: the base of target resolution (MB-PART-5), unless the request-target is in
  // absolute-form, whose authority replaces it (RFC 9112 section 3.2.2)
  const hostLines = headerLines(req, 'host');
  const hostAuth = hostLines.length === 1 ? parseHostField(hostLines[0]) : null;
  if (!hostAuth) {
    sendProblem(res, 400, 'bad-host', 'Missing or invalid Host', { detail: 'The batch request needs exactly one valid, non-empty Host field.' });
    return;
  }
  const authority = target.absolute ? target.authority : hostLines[0];

  // media type (MB-WIRE-2, MB-WIRE-4)
  const ctLines = headerLines(req, 'content-type');
  const mt = ctLines.length === 1 ? parseMediaType(ctLines[0]) : { error: 'type' };
  if (mt.error === 'type' || mt.type !== 'multipart' || mt.subtype !== 'mixed') {
    sendProblem(res, 415, 'unsupported-media-type', 'Batch content must be multipart/mixed',
      { requirement: 'MB-WIRE-2', detail: `The batch request's Content-Type is ${ctLines.length ? JSON.stringify(ctLines.join(', ')) : 'absent'}; a batch is multipart/mixed.`, part_index: null, byte_offset: null },
      [['Accept-Post', 'multipart/mixed']]);
    return;
  }
  let boundary;
  if (mt.error === 'params') {
    sendProblem(res, 400, 'malformed-batch', 'Malformed Content-Type parameters',
      { requirement: 'MB-WIRE-4', detail: 'The Content-Type parameters do not follow RFC 9110 5.6.6, so no boundary can be trusted.', part_index: null, byte_offset: null });
    return;
  }
  const bparams = mt.params.filter(([n]) => n === 'boundary');
  if (bparams.length > 1) {
    sendProblem(res, 400, 'malformed-batch', 'Repeated boundary parameter', { requirement: 'MB-WIRE-4', detail: 'The Content-Type carries more than one boundary parameter.', part_index: null, byte_offset: null });
    return;
  }
  boundary = bparams.length ? bparams[0][1] : undefined;
  const be = boundaryError(boundary);
  if (be) {
    sendProblem(res, 400, 'malformed-batch', 'Invalid boundary', { requirement: 'MB-WIRE-4', detail: be, part_index: null, byte_offset: null });
    return;
  }

  // content coding (MB-INTER-6)
  const ceLines = headerLines(req, 'content-encoding');
  const codings = ceLines.length ? splitList(ceLines.join(',')).map((s) => s.trim().toLowerCase()).filter((s) => s && s !== 'identity') : [];
  const unknown = codings.find((c) => !CODINGS.includes(c));
  if (unknown) {
    sendProblem(res, 415, 'unsupported-content-coding', 'Unsupported content coding',
      { requirement: 'MB-WIRE-2', detail: `The batch content is coded with ${unknown}, which this server does not decode (see MB-INTER-6).`, part_index: null, byte_offset: null },
      [['Accept-Encoding', 'gzip, deflate, br'], ['Accept-Post', 'multipart/mixed']]);
    return;
  }

  // Batch-Mode (MB-PROC-7/12/17): this server implements no mode.
  const modeLines = headerLines(req, 'batch-mode');
  if (modeLines.length) {
    const modes = splitList(modeLines.join(',')).map((s) => s.trim()).filter((s) => s);
    const atomic = modes.includes('atomic');
    sendProblem(res, 501, 'mode-not-implemented', 'Batch mode not implemented',
      { requirement: atomic ? 'MB-PROC-7' : 'MB-PROC-12', detail: `This server implements no Batch-Mode; the request asks for ${JSON.stringify(modeLines.join(', '))}.`, part_index: null, byte_offset: null });
    return;
  }

  // representation (MB-MULTI-1, MB-STATUS-9)
  const acceptLines = headerLines(req, 'accept');
  const accept = acceptLines.length ? acceptLines.join(', ') : undefined;
  const qMulti = acceptQuality(accept, 'multipart/mixed');
  const qJson = OFFER_JSON ? acceptQuality(accept, JSON_TYPE) : 0;
  if (qMulti <= 0 && qJson <= 0) {
    sendProblem(res, 406, 'not-acceptable', 'No acceptable batch representation',
      { requirement: 'MB-STATUS-9', detail: `Accept ${JSON.stringify(accept)} admits none of ${REPRESENTATIONS.join(', ')}.`, part_index: null, byte_offset: null },
      [['Vary', 'Accept']]);
    return;
  }
  const repr = qMulti >= qJson ? 'multipart' : 'json';

  // declared size (MB-STATUS-3, max_batch_bytes)
  const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : null;
  if (codings.length === 0 && declared !== null && declared > LIMITS.max_batch_bytes) {
    sendProblem(res, 413, 'limit-exceeded', 'Batch too large',
      { requirement: 'MB-STATUS-3', detail: `The batch content is ${declared} octets, over the limit of ${LIMITS.max_batch_bytes}; no part ran.`, part_index: null, byte_offset: null, limit: 'max_batch_bytes', value: LIMITS.max_batch_bytes },
      null, { close: true });
    drainAndClose(req, res);
    return;
  }

  if (shuttingDown) {
    sendProblem(res, 503, 'shutting-down', 'Server shutting down',
      { detail: 'The server is stopping and takes no new batch; no part ran.', part_index: null, byte_offset: null },
      [['Retry-After', '1'], ['Connection', 'close']]);
    return;
  }

  // in-flight budget (MB-LIMIT-6)
  if (inFlight >= LIMITS.max_batches_in_flight) {
    sendProblem(res, 503, 'busy', 'Too many batches in flight',
      { requirement: 'MB-LIMIT-6', detail: `The server holds ${LIMITS.max_batches_in_flight} batches already; no part ran.`, part_index: null, byte_offset: null, limit: 'max_batches_in_flight', value: LIMITS.max_batches_in_flight },
      [['Retry-After', '1']]);
    return;
  }
  inFlight++;
  let released = false;
  const release = () => { if (!released) { released = true; inFlight--; } };
  res.on('close', release);
  res.on('finish', release);

  const readMax = codings.length ? LIMITS.max_batch_bytes * 4 + 1024 : LIMITS.max_batch_bytes;
  let raw;
  try {
    raw = await readBody(req, readMax);
  } catch (e) {
    release();
    return; // the client went away
  }
  const tooLarge = () => {
    release();
    sendProblem(res, 413, 'limit-exceeded', 'Batch too large',
      { requirement: 'MB-STATUS-3', detail: `The batch content exceeds ${LIMITS.max_batch_bytes} octets; no part ran.`, part_index: null, byte_offset: null, limit: 'max_batch_bytes', value: LIMITS.max_batch_bytes },
      null, { close: true });
    drainAndClose(req, res);
  };
  if (raw.tooLarge) { tooLarge(); return; }
  let content = raw;
  if (codings.length) {
    try {
      content = decodeContent(raw, codings, LIMITS.max_batch_bytes);
    } catch (e) {
      if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) { tooLarge(); return; }
      release();
      sendProblem(res, 400, 'malformed-content-coding', 'Content coding cannot be decoded',
        { detail: `The batch content does not decode as ${codings.join(', ')}.`, part_index: null, byte_offset: null });
      return;
    }
  }
  if (content.length > LIMITS.max_batch_bytes) { tooLarge(); return; }

  // envelope (section 3) and parts, all validated before any part runs (MB-PROC-1)
  const env = parseEnvelope(content, boundary, LIMITS);
  if (env.error) { release(); envelopeProblem(res, env.error); return; }
  const base = {
    scheme: 'http',
    authority,
    auth: target.absolute ? target.auth : hostAuth,
    path: target.path,
    query: target.query,
  };
  const v = validateParts(env.parts, base, (p) => isBatchPath(removeDotSegments(p)));
  if (v.error) { release(); envelopeProblem(res, v.error); return; }

  // error policy (MB-PROC-5/6/11/13)
  const policy = batchOnError(headerLines(req, 'prefer'));
  const stopOnError = policy === 'stop';

  // time budget counted from the start of reception (MB-SEC-1)
  const deadline = started + BATCH_TIMEOUT_MS;
  if (Date.now() >= deadline) {
    release();
    sendProblem(res, 503, 'batch-timeout', 'Batch time budget exhausted before any part ran',
      { requirement: 'MB-STATUS-12', detail: 'The batch took its whole time budget to arrive; no part ran.', part_index: null, byte_offset: null },
      [['Retry-After', '1']]);
    return;
  }

  // credentials inherited by sub-requests (MB-SUB-5): Authorization and Cookie only
  const inherit = rawHeaderPairs(req).filter(([n]) => ['authorization', 'cookie'].includes(n.toLowerCase()));

  await runBatch({
    res, subs: v.subs, repr, stopOnError,
    preferenceApplied: stopOnError ? 'batch-on-error=stop' : null,
    inherit, authority, dispatch, deadline,
    chunked: req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1),
    shouldStop: () => shuttingDown,
  });
}

// ---- the server ----
const server = http.createServer({ keepAlive: true, requestTimeout: 120000 }, async (req, res) => {
  // Node delivers a pipelined request while the one ahead of it is still being answered.
  // Requests on one connection are processed one after the other, in the order received:
  // RFC 9112 9.3.2 allows parallel processing only when every request is safe, and a batch is
  // a POST (spec 11, MB-PIPE-1).
  await turnOf(req, res);
  const started = Date.now();
  try {
    const target = requestTarget(req);
    if (target && target.error) {
      sendProblem(res, 400, 'bad-request-target', 'Invalid request-target', { detail: target.error });
      return;
    }
    const path = target ? removeDotSegments(decodeUnreserved(target.path)) : req.url;
    if (isBatchPath(path)) {
      await handleBatch(req, res, started, target);
      return;
    }
    const body = await readBody(req, 32 * 1024 * 1024);
    if (body.tooLarge) {
      sendResponse(res, req.method, { status: 413, headers: [['Content-Type', 'text/plain'], ['Connection', 'close']], body: Buffer.from('Content too large.\n') });
      drainAndClose(req, res);
      return;
    }
    const r = {
      method: req.method,
      target: target ? target.originForm : req.url,
      authority: target ? target.authority : req.headers.host || '',
      headers: rawHeaderPairs(req),
      body,
    };
    const resp = await dispatch(r);
    sendResponse(res, req.method, resp);
  } catch (e) {
    if (!res.headersSent) {
      sendProblem(res, 500, 'internal-error', 'Internal server error', { detail: String(e && e.message || e) });
    } else {
      res.destroy();
    }
  }
});

// Waits until every request delivered earlier on the same connection has been answered.
function turnOf(req, res) {
  const socket = req.socket;
  const ahead = socket.mbTurn || Promise.resolve();
  let done;
  socket.mbTurn = new Promise((resolve) => { done = resolve; });
  res.on('finish', done);
  res.on('close', done);
  return ahead;
}

// A tab after a Content-Length or Transfer-Encoding value is OWS, which Node's parser
// refuses: every connection reaches it through lib/ows.js, which writes those tabs as spaces.
normalizeFramingOWS(server);

// Methods node's parser does not know never reach the handler; answer them 501.
server.on('clientError', (e, socket) => {
  if (!socket.writable) return socket.destroy();
  let status = 400, title = 'Bad request';
  if (e.code === 'HPE_INVALID_METHOD') { status = 501; title = 'Method not implemented'; }
  else if (e.code === 'HPE_HEADER_OVERFLOW') { status = 431; title = 'Request header fields too large'; }
  const doc = Buffer.from(JSON.stringify(problem(status, 'bad-request', title, { detail: String(e.code || e.message) })), 'utf8');
  const head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
    (status === 501 ? `Allow: ${ENDPOINT_METHODS.join(', ')}\r\n` : '') +
    `Content-Length: ${doc.length}\r\nConnection: close\r\n\r\n`;
  refuseAfterPending(socket, Buffer.concat([Buffer.from(head, 'latin1'), doc]));
});

// A request the parser cannot read may arrive while requests pipelined ahead of it are still
// being answered; their answers go first (MB-PIPE-1, RFC 9112 9.3.2), then the refusal, then
// the connection closes. Each socket keeps the requests it has delivered and not yet answered.
// A parser error met inside the content of one of them (malformed chunked framing) is that
// request's own fault, and is answered at once.
server.on('request', (req, res) => {
  const socket = req.socket;
  if (!socket.mbPending) socket.mbPending = new Set();
  socket.mbPending.add(req);
  res.on('close', () => {
    socket.mbPending.delete(req);
    if (socket.mbPending.size === 0 && socket.mbRefusal) {
      const refusal = socket.mbRefusal;
      socket.mbRefusal = null;
      if (socket.writable) socket.end(refusal); else socket.destroy();
    }
  });
});

function refuseAfterPending(socket, refusal) {
  const pending = socket.mbPending ? [...socket.mbPending] : [];
  // A request whose content the parser failed in (malformed chunked framing) is the last one
  // delivered and the only one not read whole: the refusal is its answer, so it is no longer
  // owed one of its own, and the refusal waits for the answers owed to the requests ahead.
  const owed = pending.filter((req) => req.complete);
  for (const req of pending) {
    if (!req.complete) socket.mbPending.delete(req);
  }
  if (owed.length > 0) socket.mbRefusal = refusal;
  else socket.end(refusal);
}

// CONNECT requests are never a batch; answer them without tunnelling, after the answers owed to
// the requests pipelined ahead (MB-PIPE-1), and close: what follows a CONNECT is not read.
server.on('connect', (req, socket) => {
  const doc = Buffer.from(JSON.stringify(problem(405, 'method-not-allowed', 'CONNECT is not supported', { requirement: 'MB-METHOD-2' })), 'utf8');
  refuseAfterPending(socket, Buffer.concat([Buffer.from(`HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/problem+json\r\nAllow: ${ENDPOINT_METHODS.join(', ')}\r\nContent-Length: ${doc.length}\r\nConnection: close\r\n\r\n`, 'latin1'), doc]));
});

// The first line on stdout names the address listened on, in the Go server's words: with
// --port 0, the port the system chose (tests/independent_plants/run_plants.py waits for it).
server.listen(PORT, HOST, () => {
  const { address, port } = server.address();
  const host = address.includes(':') ? `[${address}]` : address;
  process.stdout.write(`mbserver listening on http://${host}:${port}\n`);
});

// On SIGTERM / SIGINT: stop accepting, let running batches end with an abort
// part at their next part boundary (MB-STATUS-6), then exit.
let shuttingDown = false;
function shutdown() {
  if (shuttingDown) return;
  shuttingDown = true;
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
