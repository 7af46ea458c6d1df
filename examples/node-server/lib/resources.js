'use strict';
// The resources this server exposes, reachable both standalone and as
// sub-requests through one router (MB-SUB-1: same routing and checks).
//
// A request is {method, target, authority, headers: [[name, value]], body: Buffer}.
// A response is {status, headers: [[name, value]], body: Buffer}.

const crypto = require('node:crypto');
const { isUtf8 } = require('node:buffer');
const { acceptQuality, httpDate, parseHttpDate } = require('./httputil');
const { decodeUnreserved, removeDotSegments } = require('./uri');

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

const MAX_DELAY_MS = 20000;
const MAX_RANDOM = 8 * 1024 * 1024;
const MAX_SANDBOX_DOC = 1024 * 1024;

// The date preconditions: sent on several lines, such a field is one list of dates (RFC 9110
// 5.3), no HTTP-date, so it is read as the list and ignored (13.1.3, 13.1.4).
const DATE_FIELDS = new Set(['if-modified-since', 'if-unmodified-since']);
function header(req, name) {
  const l = name.toLowerCase();
  if (DATE_FIELDS.has(l)) {
    const all = headerAll(req, name);
    return all.length ? all.join(', ') : undefined;
  }
  for (const [n, v] of req.headers) if (n.toLowerCase() === l) return v;
  return undefined;
}
function headerAll(req, name) {
  const l = name.toLowerCase();
  return req.headers.filter(([n]) => n.toLowerCase() === l).map(([, v]) => v);
}

function text(status, s, extra) {
  return { status, headers: [['Content-Type', 'text/plain; charset=utf-8'], ...(extra || [])], body: Buffer.from(s, 'utf8') };
}
function json(status, obj, extra) {
  return { status, headers: [['Content-Type', 'application/json'], ...(extra || [])], body: Buffer.from(JSON.stringify(obj), 'utf8') };
}

function methodNotAllowed(req, allow) {
  if (!KNOWN_METHODS.has(req.method)) {
    return text(501, `Method ${req.method} is not implemented.\n`, [['Allow', allow.join(', ')]]);
  }
  return text(405, `Method ${req.method} is not allowed here.\n`, [['Allow', allow.join(', ')]]);
}

// ---- conditional requests (RFC 9110 13.2.2) ----
function parseEtagList(v) {
  const out = [];
  const re = /\s*(W\/)?("[^"]*")\s*(,|$)/y;
  let s = v.trim();
  if (s === '*') return '*';
  let i = 0;
  re.lastIndex = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) { // skip a malformed element
      const c = s.indexOf(',', i);
      if (c < 0) break;
      i = c + 1;
      continue;
    }
    out.push({ weak: !!m[1], tag: m[2] });
    i = re.lastIndex;
  }
  return out;
}
function splitEtag(etag) {
  const weak = etag.startsWith('W/');
  return { weak, tag: weak ? etag.slice(2) : etag };
}
// Evaluates preconditions for a resource with {etag, lastModified(ms)} (or
// null when it does not exist). Returns null (proceed), 304 or 412.
function evaluatePreconditions(req, rep) {
  const safe = req.method === 'GET' || req.method === 'HEAD';
  const im = headerAll(req, 'If-Match');
  const inm = headerAll(req, 'If-None-Match');
  const ims = header(req, 'If-Modified-Since');
  const ius = header(req, 'If-Unmodified-Since');
  const cur = rep && rep.etag ? splitEtag(rep.etag) : null;
  if (im.length) {
    const list = parseEtagList(im.join(', '));
    let ok;
    if (list === '*') ok = !!rep;
    else ok = !!cur && !cur.weak && list.some((e) => !e.weak && e.tag === cur.tag);
    if (!ok) return 412;
  } else if (ius !== undefined && rep && rep.lastModified !== undefined) {
    const d = parseHttpDate(ius);
    if (d !== null && Math.floor(rep.lastModified / 1000) * 1000 > d) return 412;
  }
  if (inm.length) {
    const list = parseEtagList(inm.join(', '));
    let match;
    if (list === '*') match = !!rep;
    else match = !!cur && list.some((e) => e.tag === cur.tag);
    if (match) return safe ? 304 : 412;
  } else if (safe && req.method !== 'POST' && ims !== undefined && rep && rep.lastModified !== undefined) {
    const d = parseHttpDate(ims);
    if (d !== null && Math.floor(rep.lastModified / 1000) * 1000 <= d) return 304;
  }
  return null;
}

function notModified(rep, extra) {
  const h = [];
  if (rep.etag) h.push(['ETag', rep.etag]);
  if (rep.lastModified !== undefined) h.push(['Last-Modified', httpDate(rep.lastModified)]);
  return { status: 304, headers: h.concat(extra || []), body: Buffer.alloc(0) };
}

// ---- fixed resources ----
const START = Date.UTC(2026, 0, 15, 9, 30, 0);

const ITEMS = [
  { id: '1', doc: { id: 1, name: 'alpha', kind: 'item' }, lastModified: START },
  { id: '2', doc: { id: 2, name: 'beta', kind: 'item' }, lastModified: START + 60000 },
  { id: '3', doc: { id: 3, name: 'gamma', kind: 'item' }, lastModified: START + 120000 },
];
for (const it of ITEMS) {
  it.body = Buffer.from(JSON.stringify(it.doc), 'utf8');
  it.etag = '"' + crypto.createHash('sha256').update(it.body).digest('hex').slice(0, 16) + '"';
}

const ETAG_BODY = Buffer.from('This representation has a strong entity tag and a modification date.\n', 'utf8');
const ETAG_REP = { etag: '"etag-res-v1"', lastModified: START };

function memberResponse(req, rep, contentType, body) {
  const pre = evaluatePreconditions(req, rep);
  if (pre === 304) return notModified(rep);
  if (pre === 412) return text(412, 'Precondition failed.\n');
  return {
    status: 200,
    headers: [['Content-Type', contentType], ['ETag', rep.etag], ['Last-Modified', httpDate(rep.lastModified)]],
    body,
  };
}

// Collection retrieval (collection-get profile, spec 4.2).
function collectionResponse(req, ctx, basePath, members) {
  const accept = header(req, 'Accept');
  const qMulti = acceptQuality(accept, 'multipart/mixed');
  const qJson = acceptQuality(accept, 'application/json');
  const lastModified = members.length ? Math.max(...members.map((m) => m.lastModified)) : START;
  const listing = Buffer.from(JSON.stringify(members.map((m) => `${basePath}/${m.id}`)), 'utf8');
  if (qMulti > 0 && qMulti >= qJson) {
    if (req.body.length > 0 && req.method === 'GET') {
      return ctx.problemResponse(400, 'content-on-get', 'Content on a GET collection retrieval', {
        requirement: 'MB-METHOD-3',
        detail: `The GET collection retrieval of ${basePath} carries ${req.body.length} octets of content.`,
      });
    }
    // Every octet is a function of the collection's state: the boundary is
    // derived from the members, so the aggregate ETag can be strong.
    const h = crypto.createHash('sha256');
    for (const m of members) h.update(m.id + '\0' + m.etag + '\0' + m.lastModified + '\0').update(m.body);
    const boundary = 'coll-' + h.digest('base64url').slice(0, 24);
    const chunks = [];
    for (const m of members) {
      const head = `--${boundary}\r\nHttp-Status-Code: 200\r\nContent-Id: <${basePath}/${m.id}>\r\n` +
        `Content-Type: application/json\r\nETag: ${m.etag}\r\nLast-Modified: ${httpDate(m.lastModified)}\r\n` +
        `Content-Length: ${m.body.length}\r\n\r\n`;
      chunks.push(Buffer.from(head, 'latin1'), m.body, Buffer.from('\r\n', 'latin1'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
    const body = members.length ? Buffer.concat(chunks) : Buffer.alloc(0);
    const etag = '"' + crypto.createHash('sha256').update(body).update(members.length ? 'm' : 'empty').digest('hex').slice(0, 24) + '"';
    const rep = { etag, lastModified };
    const vary = [['Vary', 'Accept']];
    const pre = evaluatePreconditions(req, rep);
    if (pre === 304) return notModified(rep, vary);
    if (pre === 412) {
      const r = ctx.problemResponse(412, 'precondition-failed', 'Precondition failed',
        { detail: `A precondition on the collection ${basePath} failed.` });
      r.headers.push(['ETag', etag], ['Vary', 'Accept']);
      return r;
    }
    if (members.length === 0) {
      return { status: 204, headers: [['ETag', etag], ['Last-Modified', httpDate(lastModified)], ['Vary', 'Accept']], body: Buffer.alloc(0) };
    }
    return {
      status: 200,
      headers: [['Content-Type', `multipart/mixed; boundary=${boundary}`], ['ETag', etag],
        ['Last-Modified', httpDate(lastModified)], ['Vary', 'Accept'], ['Cache-Control', 'no-transform']],
      body,
    };
  }
  const etag = 'W/"' + crypto.createHash('sha256').update(listing).digest('hex').slice(0, 24) + '"';
  if (qJson === 0 && accept !== undefined && accept.trim() !== '') {
    const r = ctx.problemResponse(406, 'not-acceptable', 'Not acceptable',
      { detail: `The collection ${basePath} is available as multipart/mixed and application/json.` });
    r.headers.push(['Vary', 'Accept']);
    return r;
  }
  const rep = { etag, lastModified };
  const pre = evaluatePreconditions(req, rep);
  if (pre === 304) return notModified(rep, [['Vary', 'Accept']]);
  if (pre === 412) return text(412, 'Precondition failed.\n', [['Vary', 'Accept']]);
  return { status: 200, headers: [['Content-Type', 'application/json'], ['ETag', etag], ['Last-Modified', httpDate(lastModified)], ['Vary', 'Accept']], body: listing };
}

// ---- sandbox ----
const sandbox = new Map(); // id -> {body, contentType, etag, lastModified}
let sandboxVersion = 0;
const SANDBOX_ID = /^[A-Za-z0-9_-]{1,64}$/;

function storeMember(id, req) {
  const ct = header(req, 'Content-Type') || 'application/octet-stream';
  sandboxVersion++;
  const m = {
    body: Buffer.from(req.body),
    contentType: ct,
    etag: '"s' + sandboxVersion + '-' + crypto.createHash('sha256').update(req.body).digest('hex').slice(0, 12) + '"',
    lastModified: Math.max(Date.now(), (sandbox.get(id) || { lastModified: 0 }).lastModified + 1000),
  };
  sandbox.set(id, m);
  return m;
}

function sandboxCollection(req, ctx, base) {
  if (req.method === 'POST') {
    // The POST's target is the collection, which always has a current representation (its
    // listing, without an entity tag): If-None-Match: * and an If-Match naming any tag are
    // false, If-Match: * is true (RFC 9110 13.1.1, 13.1.2; MB-PROC-9).
    if (evaluatePreconditions(req, {})) return text(412, 'Precondition failed.\n');
    if (req.body.length > MAX_SANDBOX_DOC) return text(413, 'Member document too large.\n');
    let id;
    do { id = crypto.randomBytes(9).toString('base64url'); } while (sandbox.has(id));
    const m = storeMember(id, req);
    const loc = `${base}/${id}`;
    return { status: 201, headers: [['Location', loc], ['Content-Type', m.contentType], ['ETag', m.etag]], body: Buffer.from(m.body) };
  }
  if (req.method === 'GET' || req.method === 'HEAD') {
    return json(200, [...sandbox.keys()].map((k) => `${base}/${k}`));
  }
  return methodNotAllowed(req, ['GET', 'HEAD', 'POST']);
}

function sandboxMember(req, ctx, base, id) {
  if (!SANDBOX_ID.test(id)) return text(404, 'No such member.\n');
  const m = sandbox.get(id);
  const rep = m ? { etag: m.etag, lastModified: m.lastModified } : null;
  switch (req.method) {
    case 'GET':
    case 'HEAD': {
      if (!m) return text(404, 'No such member.\n');
      return memberResponse(req, rep, m.contentType, m.body);
    }
    case 'PUT': {
      const pre = evaluatePreconditions(req, rep);
      if (pre) return text(412, 'Precondition failed.\n');
      if (req.body.length > MAX_SANDBOX_DOC) return text(413, 'Member document too large.\n');
      const nm = storeMember(id, req);
      if (m) return { status: 204, headers: [['ETag', nm.etag]], body: Buffer.alloc(0) };
      return { status: 201, headers: [['Location', `${base}/${id}`], ['ETag', nm.etag]], body: Buffer.alloc(0) };
    }
    case 'DELETE': {
      if (!m) return text(404, 'No such member.\n');
      const pre = evaluatePreconditions(req, rep);
      if (pre) return text(412, 'Precondition failed.\n');
      sandbox.delete(id);
      return { status: 204, headers: [], body: Buffer.alloc(0) };
    }
    default:
      return methodNotAllowed(req, ['GET', 'HEAD', 'PUT', 'DELETE']);
  }
}

// ---- echo ----
const FRAMING = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);
function echo(req) {
  const out = {
    method: req.method,
    target: req.target,
    authority: req.authority,
    headers: req.headers.filter(([n]) => !FRAMING.has(n.toLowerCase())),
  };
  if (isUtf8(req.body)) out.body = req.body.toString('utf8');
  else out.body_base64 = req.body.toString('base64');
  return json(200, out);
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

// Routes a request. `ctx` carries {isBatchEndpoint(path), batch(req) , problemResponse}.
async function route(req, ctx) {
  const q = req.target.indexOf('?');
  const rawPath = q >= 0 ? req.target.slice(0, q) : req.target;
  const path = removeDotSegments(decodeUnreserved(rawPath)) || '/';
  const P = ctx.prefix; // resource prefix, e.g. /r
  let m;

  if (path === P + '/echo') {
    return echo(req);
  }
  if (path === P + '/ok') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    return text(200, 'OK\n');
  }
  if (path === P + '/etag') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    return memberResponse(req, ETAG_REP, 'text/plain; charset=utf-8', ETAG_BODY);
  }
  if ((m = new RegExp('^' + P + '/status/([^/]*)$').exec(path))) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    const code = /^[0-9]{3}$/.test(m[1]) ? parseInt(m[1], 10) : NaN;
    if (!(code >= 200 && code <= 599)) return text(400, 'The status must be three digits from 200 to 599.\n');
    if (code === 204 || code === 304) return { status: code, headers: [], body: Buffer.alloc(0) };
    return text(code, `Status ${code}\n`);
  }
  if ((m = new RegExp('^' + P + '/delay/([^/]*)$').exec(path))) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    if (!/^[0-9]{1,9}$/.test(m[1])) return text(400, 'The delay must be a whole number of milliseconds.\n');
    const ms = parseInt(m[1], 10);
    if (ms > MAX_DELAY_MS) return text(400, `The largest delay is ${MAX_DELAY_MS} ms.\n`);
    const start = Date.now();
    await sleep(ms);
    while (Date.now() - start < ms) await sleep(1);
    return text(200, `Delayed ${ms} ms\n`);
  }
  if ((m = new RegExp('^' + P + '/random/([^/]*)$').exec(path))) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    if (!/^[0-9]{1,9}$/.test(m[1])) return text(400, 'The count must be a whole number of octets.\n');
    const count = parseInt(m[1], 10);
    if (count > MAX_RANDOM) return text(400, `The largest count is ${MAX_RANDOM} octets.\n`);
    return { status: 200, headers: [['Content-Type', 'application/octet-stream']], body: crypto.randomBytes(count) };
  }
  if (path === P + '/items') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    return collectionResponse(req, ctx, P + '/items', ITEMS);
  }
  if ((m = new RegExp('^' + P + '/items/([^/]+)$').exec(path))) {
    const it = ITEMS.find((x) => x.id === m[1]);
    if (!it) return text(404, 'No such item.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    return memberResponse(req, it, 'application/json', it.body);
  }
  if (path === P + '/empty') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    return collectionResponse(req, ctx, P + '/empty', []);
  }
  if (path === P + '/sandbox') return sandboxCollection(req, ctx, P + '/sandbox');
  if ((m = new RegExp('^' + P + '/sandbox/([^/]*)$').exec(path))) return sandboxMember(req, ctx, P + '/sandbox', m[1]);
  if (path === '/') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, ['GET', 'HEAD']);
    return text(200, 'mixbatch Node.js example server; see README.md.\n');
  }
  return text(404, 'Not found.\n');
}

module.exports = { route, KNOWN_METHODS, MAX_DELAY_MS, MAX_RANDOM, header, headerAll };
