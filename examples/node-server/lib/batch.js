'use strict';
// The batch endpoint: envelope checks, sub-request execution and the
// multipart/mixed (200) and JSON (207) batch representations.

const crypto = require('node:crypto');
const { isUtf8 } = require('node:buffer');
const { parseEnvelope } = require('./envelope');
const { parseReference, resolve, decodeUnreserved, parseHostField } = require('./uri');
const { isToken } = require('./httputil');

const SPEC_VERSION = 'draft-02';
const JSON_TYPE = 'application/vnd.mixbatch.multistatus+json';

// MB-PART-9
const FORBIDDEN = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade',
  'expect', 'host', 'trailer', 'content-transfer-encoding', 'http-status-code']);
// MB-RESP-4
const DROP_FROM_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding',
  'upgrade', 'trailer', 'content-length']);

function perr(status, requirement, partIndex, offset, title, detail) {
  return { status, requirement, part_index: partIndex, byte_offset: offset, title, detail };
}

// Validates request part header sections and targets (MB-PART-2/4/10, MB-SUB-2/3/4/8).
// base: {scheme, authority, auth, path, query}; endpointPath: the batch endpoint's path.
// Returns {subs} or {error}.
function validateParts(parts, base, isBatchPath) {
  const subs = [];
  for (const part of parts) {
    const i = part.index;
    let methodField = null, cidField = null;
    const other = [];
    for (const f of part.fields) {
      const ln = f.name.toLowerCase();
      if (ln === 'http-method') {
        if (methodField) return { error: perr(400, 'MB-PART-2', i, f.offset, 'Repeated Http-Method', `Part ${i} carries more than one Http-Method field.`) };
        methodField = f;
      } else if (ln === 'content-id') {
        if (cidField) return { error: perr(400, 'MB-PART-4', i, f.offset, 'Repeated Content-Id', `Part ${i} carries more than one Content-Id field.`) };
        cidField = f;
      } else if (FORBIDDEN.has(ln)) {
        return { error: perr(400, 'MB-PART-10', i, f.offset, 'Forbidden field in a request part', `Part ${i} carries the field ${f.name}, which MB-PART-9 forbids in request parts.`) };
      } else {
        other.push(f);
      }
    }
    if (!methodField) return { error: perr(400, 'MB-PART-2', i, part.headerStart, 'Missing Http-Method', `Part ${i} has no Http-Method field.`) };
    if (!isToken(methodField.value)) return { error: perr(400, 'MB-PART-2', i, methodField.offset, 'Invalid Http-Method', `The Http-Method of part ${i} is not a method token (${JSON.stringify(methodField.value)}).`) };
    if (!cidField) return { error: perr(400, 'MB-PART-4', i, part.headerStart, 'Missing Content-Id', `Part ${i} has no Content-Id field.`) };
    const cv = cidField.value;
    if (cv.length < 2 || cv[0] !== '<' || cv[cv.length - 1] !== '>') {
      return { error: perr(400, 'MB-PART-4', i, cidField.offset, 'Malformed Content-Id', `The Content-Id of part ${i} is not "<" URI-reference ">" (${JSON.stringify(cv.slice(0, 200))}).`) };
    }
    const refText = cv.slice(1, -1);
    const ref = parseReference(refText);
    if (!ref) {
      return { error: perr(400, 'MB-PART-4', i, cidField.offset, 'Malformed Content-Id', `The Content-Id of part ${i} does not hold a URI reference (${JSON.stringify(cv.slice(0, 200))}).`) };
    }
    const method = methodField.value;
    if (method === 'CONNECT' || method === 'TRACE') {
      return { error: perr(400, 'MB-SUB-3', i, methodField.offset, 'Forbidden method in a part', `Part ${i} uses the method ${method}, which a batch does not carry.`) };
    }
    if (refText === '*') {
      return { error: perr(400, 'MB-SUB-8', i, cidField.offset, 'Asterisk target', `Part ${i} targets <*>, which names no resource in a batch.`) };
    }
    // same origin only (MB-SUB-2)
    const originErr = (why) => ({ error: perr(400, 'MB-SUB-2', i, cidField.offset, 'Target outside the batch origin', `The target of part ${i} ${why}.`) });
    if (ref.fragment !== undefined) return originErr('has a fragment');
    if (ref.scheme === undefined && ref.authority !== undefined) return originErr('is a network-path reference');
    if (ref.scheme !== undefined) {
      if (ref.scheme.toLowerCase() !== base.scheme) return originErr(`has the scheme ${ref.scheme}, not ${base.scheme}`);
      if (ref.authority === undefined) return originErr('is an absolute URI without an authority');
      if (ref.auth.userinfo !== null) return originErr('carries userinfo');
      if (ref.auth.host.toLowerCase() !== base.auth.host.toLowerCase()) return originErr(`names the host ${ref.auth.host}`);
      const defPort = base.scheme === 'https' ? 443 : 80;
      const rp = ref.auth.port === null || ref.auth.port === '' ? defPort : parseInt(ref.auth.port, 10);
      const bp = base.auth.port === null || base.auth.port === '' ? defPort : parseInt(base.auth.port, 10);
      if (rp !== bp) return originErr(`names the port ${ref.auth.port}`);
    }
    const t = resolve(base, ref);
    const path = t.path === '' ? '/' : t.path;
    const target = path + (t.query !== undefined ? '?' + t.query : '');
    if (isBatchPath(decodeUnreserved(path))) {
      return { error: perr(400, 'MB-SUB-4', i, cidField.offset, 'Nested batch', `The target of part ${i} (${target}) is a batch endpoint; batches do not nest.`) };
    }
    subs.push({
      index: i,
      method,
      contentIdValue: cv,
      contentIdRef: refText,
      target,
      fields: other.map((f) => [f.name, f.value]),
      body: part.body,
    });
  }
  return { subs };
}

function randomBoundary() {
  return 'mb-' + crypto.randomBytes(24).toString('base64url');
}

// Does `body` collide with the boundary (MB-WIRE-6)?
function collides(body, boundary) {
  const dash = Buffer.from('--' + boundary, 'latin1');
  let i = body.indexOf(dash);
  while (i >= 0) {
    if (i === 0 || body[i - 1] === 0x0a) return true;
    i = body.indexOf(dash, i + 1);
  }
  return false;
}

function summaryOf(results) {
  const s = { ok: 0, failed: 0, skipped: 0, rolled_back: 0 };
  for (const r of results) {
    if (r.outcome === 'skipped') s.skipped++;
    else if (r.outcome === 'rolled-back') s.rolled_back++;
    else if (r.outcome === null) { if (r.status < 400) s.ok++; else s.failed++; }
  }
  return s;
}

// Writes a multipart batch response progressively.
class MultipartWriter {
  constructor(res, headers, boundary) {
    this.res = res;
    this.headers = headers;
    this.boundary = boundary;
    this.started = false;
  }
  start() {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, this.headers);
  }
  writePart(headerLines, body) {
    this.start();
    let head = `--${this.boundary}\r\n`;
    for (const [n, v] of headerLines) head += `${n}: ${v}\r\n`;
    head += `Content-Length: ${body.length}\r\n\r\n`;
    this.res.write(Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n', 'latin1')]));
  }
  finish(trailers) {
    this.start();
    this.res.write(Buffer.from(`--${this.boundary}--\r\n`, 'latin1'));
    if (trailers) this.res.addTrailers(trailers);
    this.res.end();
  }
}

function partHeaderLines(r) {
  const lines = [];
  if (r.status !== null) lines.push(['Http-Status-Code', String(r.status)]);
  lines.push(['Content-Id', r.contentIdValue]);
  if (r.outcome) lines.push(['Batch-Outcome', r.outcome]);
  for (const h of r.headers) lines.push(h);
  return lines;
}

function jsonEntry(r) {
  const e = {
    index: r.index,
    href: r.href,
    content_id: r.contentIdRef,
    status: r.status,
    outcome: r.outcome,
    headers: r.headers,
  };
  if (isUtf8(r.body)) e.body = r.body.toString('utf8');
  else e.body_base64 = r.body.toString('base64');
  return e;
}

function sanitizeValue(v) {
  // never write CR, LF or NUL into a part header (MB-SEC-3)
  return String(v).replace(/[\r\n\0]/g, ' ');
}

// Runs the validated sub-requests and writes the batch response.
// opts: {res, subs, repr ('multipart'|'json'), stopOnError, preferenceApplied,
//        inherit: [[name, value]], authority, dispatch(req) -> Promise<resp>,
//        deadline (ms epoch), chunked (false for an HTTP/1.0 client), shouldStop()}
// A multipart response is written part by part: chunked, with a Batch-Summary trailer, over
// HTTP/1.1; over HTTP/1.0, which has neither chunked coding nor trailers, delimited by the
// close of the connection (RFC 9112 6.3), without the trailer (MB-STATUS-8 is a MAY).
async function runBatch(opts) {
  const { res, subs, repr, stopOnError, authority, dispatch, deadline } = opts;
  const baseHeaders = [['Cache-Control', 'no-transform'], ['Vary', 'Accept']];
  if (opts.preferenceApplied) baseHeaders.push(['Preference-Applied', opts.preferenceApplied]);
  const results = [];
  let writer = null;
  let boundary = null;
  if (repr === 'multipart') {
    boundary = randomBoundary();
    const headers = [['Content-Type', `multipart/mixed; boundary=${boundary}`], ...baseHeaders];
    if (opts.chunked) headers.push(['Trailer', 'Batch-Summary']);
    writer = new MultipartWriter(res, headers.flat(), boundary);
    writer.start();
  }
  let aborted = null; // {partIndex, status, reason}
  let stopped = false;
  let closed = false;
  res.on('close', () => { closed = true; });

  for (const sub of subs) {
    if (closed) return;
    let r;
    const base = { index: sub.index, contentIdValue: sub.contentIdValue, contentIdRef: sub.contentIdRef, href: sub.target };
    if (stopped) {
      r = Object.assign(base, { status: null, outcome: 'skipped', headers: [], body: Buffer.alloc(0) });
    } else {
      const remaining = deadline - Date.now();
      if (remaining <= 0) { aborted = { partIndex: sub.index, reason: 'The batch ran out of its time budget.' }; break; }
      if (opts.shouldStop && opts.shouldStop()) { aborted = { partIndex: sub.index, reason: 'The server is shutting down.' }; break; }
      // sub-request header fields: the part's own, then inherited credentials (MB-SUB-5/6)
      const headers = sub.fields.slice();
      const partHas = (name) => sub.fields.some(([hn]) => hn.toLowerCase() === name);
      for (const [n, v] of opts.inherit) {
        if (!partHas(n.toLowerCase())) headers.push([n, v]);
      }
      const req = { method: sub.method, target: sub.target, authority, headers, body: sub.body };
      let timer;
      const timeout = new Promise((resolveT) => { timer = setTimeout(() => resolveT(null), remaining); });
      let resp;
      try {
        resp = await Promise.race([dispatch(req), timeout]);
      } catch (e) {
        resp = { status: 500, headers: [['Content-Type', 'text/plain; charset=utf-8']], body: Buffer.from('Internal error while handling the sub-request.\n') };
      } finally {
        clearTimeout(timer);
      }
      if (resp === null) { aborted = { partIndex: sub.index, reason: 'The batch ran out of its time budget while this part ran.' }; break; }
      let body = resp.body || Buffer.alloc(0);
      if (sub.method === 'HEAD' || resp.status === 204 || resp.status === 304) body = Buffer.alloc(0);
      const hdrs = resp.headers
        .filter(([n]) => !DROP_FROM_RESPONSE.has(n.toLowerCase()))
        .map(([n, v]) => [n, sanitizeValue(v)]);
      r = Object.assign(base, { status: resp.status, outcome: null, headers: hdrs, body });
      if (stopOnError && resp.status >= 400) stopped = true;
    }
    if (writer) {
      if (collides(r.body, boundary)) {
        aborted = { partIndex: r.index, status: 500, reason: 'A response body contains the response boundary.' };
        break;
      }
      writer.writePart(partHeaderLines(r), r.body);
    }
    results.push(r);
  }

  let abortDoc = null;
  if (aborted) {
    abortDoc = {
      type: 'https://mixbatch.dev/problems/batch-aborted',
      title: 'Batch aborted',
      status: aborted.status || 503,
      detail: `${aborted.reason} Parts from ${aborted.partIndex} on have no response part and an unknown outcome.`,
      requirement: 'MB-STATUS-6',
      part_index: aborted.partIndex,
    };
  }
  if (closed) return;

  if (writer) {
    if (abortDoc) {
      const body = Buffer.from(JSON.stringify(abortDoc), 'utf8');
      writer.writePart([['Batch-Outcome', 'aborted'], ['Content-Type', 'application/problem+json']], body);
    }
    const s = summaryOf(results);
    writer.finish(opts.chunked ? { 'Batch-Summary': `ok=${s.ok}, failed=${s.failed}, skipped=${s.skipped}, rolled-back=${s.rolled_back}` } : null);
    return;
  }

  // JSON form (207)
  const doc = { spec_version: SPEC_VERSION, summary: summaryOf(results), responses: results.map(jsonEntry) };
  if (abortDoc) {
    doc.responses.push({
      index: abortDoc.part_index, href: null, content_id: null, status: null, outcome: 'aborted',
      headers: [['Content-Type', 'application/problem+json']], body: JSON.stringify(abortDoc),
    });
  }
  const body = Buffer.from(JSON.stringify(doc), 'utf8');
  res.writeHead(207, [['Content-Type', JSON_TYPE], ...baseHeaders, ['Content-Length', String(body.length)]].flat());
  res.end(body);
}

module.exports = { validateParts, runBatch, parseEnvelope, SPEC_VERSION, JSON_TYPE, parseHostField };
