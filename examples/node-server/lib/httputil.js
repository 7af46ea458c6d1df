'use strict';
// Small HTTP helpers: tokens, media types, Accept, Prefer, problem documents.

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function isToken(s) { return TOKEN.test(s); }

function asciiLower(s) { return s.replace(/[A-Z]/g, (c) => c.toLowerCase()); }

// Reads a quoted-string starting at s[i] === '"'. Returns [value, nextIndex] or null.
function readQuoted(s, i) {
  let out = '';
  i++;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') return [out, i + 1];
    if (c === '\\') {
      if (i + 1 >= s.length) return null;
      const n = s.charCodeAt(i + 1);
      if (!(n === 9 || (n >= 0x20 && n !== 0x7f))) return null;
      out += s[i + 1];
      i += 2;
      continue;
    }
    const code = s.charCodeAt(i);
    // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
    if (!(code === 9 || code === 0x20 || code === 0x21 || (code >= 0x23 && code <= 0x5b) ||
          (code >= 0x5d && code <= 0x7e) || (code >= 0x80 && code <= 0xff))) return null;
    out += c;
    i++;
  }
  return null;
}

function readToken(s, i) {
  let j = i;
  while (j < s.length && TCHAR.test(s[j])) j++;
  return [s.slice(i, j), j];
}

function skipOWS(s, i) {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  return i;
}

// Parses a media type with parameters by RFC 9110 8.3.1 / 5.6.6 strictly.
// Returns {type, subtype, params: [[nameLower, value]]} or {error: 'type'|'params'}.
function parseMediaType(v) {
  if (v === undefined || v === null) return { error: 'type' };
  let s = v.replace(/^[ \t]+|[ \t]+$/g, '');
  let [type, i] = readToken(s, 0);
  if (!type || s[i] !== '/') return { error: 'type' };
  let subtype;
  [subtype, i] = readToken(s, i + 1);
  if (!subtype) return { error: 'type' };
  const params = [];
  const res = { type: asciiLower(type), subtype: asciiLower(subtype), params };
  while (i < s.length) {
    i = skipOWS(s, i);
    if (i >= s.length) break;
    if (s[i] !== ';') { res.error = 'params'; return res; }
    i = skipOWS(s, i + 1);
    if (i >= s.length || s[i] === ';') continue; // empty parameter
    let name;
    [name, i] = readToken(s, i);
    if (!name || s[i] !== '=') { res.error = 'params'; return res; }
    i++;
    let value;
    if (s[i] === '"') {
      const q = readQuoted(s, i);
      if (!q) { res.error = 'params'; return res; }
      [value, i] = q;
    } else {
      [value, i] = readToken(s, i);
      if (!value) { res.error = 'params'; return res; }
    }
    params.push([asciiLower(name), value]);
  }
  return res;
}

// Splits a field value into top-level comma-separated elements, keeping quoted strings.
function splitList(s) {
  const out = [];
  let cur = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') {
      const start = i;
      i++;
      while (i < s.length && s[i] !== '"') { if (s[i] === '\\') i++; i++; }
      i++;
      cur += s.slice(start, i);
      continue;
    }
    if (c === ',') { out.push(cur); cur = ''; i++; continue; }
    cur += c;
    i++;
  }
  out.push(cur);
  return out;
}

// Splits one list element at its semicolons, keeping quoted strings whole (RFC 9110 5.6.4:
// a `;` inside one is text, not a parameter's end).
function splitParams(el) {
  const out = [];
  let cur = '';
  for (let i = 0; i < el.length; i++) {
    const c = el[i];
    if (c === '"') {
      const start = i;
      i++;
      while (i < el.length && el[i] !== '"') { if (el[i] === '\\') i++; i++; }
      cur += el.slice(start, i + 1);
      continue;
    }
    if (c === ';') { out.push(cur); cur = ''; continue; }
    cur += c;
  }
  out.push(cur);
  return out;
}

// Parses an Accept field into [{type, subtype, q}]. Unparseable elements are ignored.
function parseAccept(v) {
  const out = [];
  for (const raw of splitList(v)) {
    const el = raw.trim();
    if (!el) continue;
    // An element whose parameters do not parse is no media range (spec 6.1): never a form.
    if (parseMediaType(el).error === 'params') continue;
    const semi = splitParams(el);
    const mt = semi[0].trim().toLowerCase();
    const m = /^([^\/\s]+)\/([^\/\s]+)$/.exec(mt);
    if (!m) continue;
    let q = 1;
    for (const p of semi.slice(1)) {
      const kv = p.trim().split('=');
      if (kv.length === 2 && kv[0].trim().toLowerCase() === 'q') {
        const n = parseFloat(kv[1].trim());
        if (!Number.isNaN(n)) q = Math.max(0, Math.min(1, n));
      }
    }
    out.push({ type: m[1], subtype: m[2], q });
  }
  return out;
}

// Quality for a concrete media type under an Accept field value (RFC 9110 12.5.1):
// the most specific matching range decides. An absent Accept, or one holding no element
// (empty, or only empty list elements such as ",", RFC 9110 5.6.1), gives 1 (spec 6.1).
function acceptQuality(acceptValue, mediaType) {
  if (acceptValue === undefined || splitList(acceptValue).every((e) => e.trim() === '')) return 1;
  const [t, st] = mediaType.toLowerCase().split('/');
  let best = null;
  let bestSpec = -1;
  for (const r of parseAccept(weighedOnly(acceptValue))) {
    let spec = -1;
    if (r.type === t && r.subtype === st) spec = 2;
    else if (r.type === t && r.subtype === '*') spec = 1;
    else if (r.type === '*' && r.subtype === '*') spec = 0;
    if (spec > bestSpec) { bestSpec = spec; best = r.q; }
    else if (spec === bestSpec && spec >= 0 && r.q > best) best = r.q;
  }
  return best === null ? 0 : best;
}

// Finds the first batch-on-error preference in the combined Prefer field.
// Returns 'stop', 'continue' or null.
function batchOnError(preferLines) {
  if (!preferLines || preferLines.length === 0) return null;
  const combined = preferLines.join(', ');
  for (const el of splitList(combined)) {
    // the preference itself is what precedes the first top-level ';'
    let i = skipOWS(el, 0);
    let name;
    [name, i] = readToken(el, i);
    if (!name) continue;
    if (asciiLower(name) !== 'batch-on-error') continue;
    // first instance decides
    i = skipOWS(el, i);
    if (el[i] !== '=') return null;
    i = skipOWS(el, i + 1);
    let value;
    if (el[i] === '"') {
      const q = readQuoted(el, i);
      if (!q) return null;
      [value, i] = q;
    } else {
      [value, i] = readToken(el, i);
    }
    i = skipOWS(el, i);
    if (i < el.length && el[i] !== ';') return null;
    const lv = asciiLower(value);
    if (lv === 'stop' || lv === 'continue') return lv;
    return null;
  }
  return null;
}

const PROBLEM_BASE = 'https://mixbatch.dev/problems/';

function problem(status, slug, title, extra) {
  const doc = { type: PROBLEM_BASE + slug, title, status };
  if (extra) {
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) doc[k] = v;
  }
  return doc;
}

// HTTP-date helpers (RFC 9110 5.6.7): IMF-fixdate, rfc850 and asctime.
function parseHttpDate(s) {
  if (typeof s !== 'string') return null;
  s = s.trim();
  let m = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(s);
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  if (m) return Date.UTC(+m[4], months.indexOf(m[3]), +m[2], +m[5], +m[6], +m[7]);
  m = /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(s);
  if (m) {
    let y = +m[4];
    const now = new Date().getUTCFullYear();
    y += 1900;
    while (y < now - 50) y += 100;
    return Date.UTC(y, months.indexOf(m[3]), +m[2], +m[5], +m[6], +m[7]);
  }
  m = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(s);
  if (m) return Date.UTC(+m[7], months.indexOf(m[2]), +m[3].trim(), +m[4], +m[5], +m[6]);
  return null;
}

function httpDate(ms) { return new Date(ms).toUTCString(); }

// RFC 9110 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

// The Accept value without its elements whose weight is no qvalue: spec 6.1 makes such an
// element one that does not follow the grammar, skipped like any other (a quoted weight
// among them).
function weighedOnly(v) {
  return splitList(v).filter((el) => splitParams(el).slice(1).every((p) => {
    const kv = p.trim().split('=');
    return kv.length !== 2 || kv[0].trim().toLowerCase() !== 'q' || QVALUE.test(kv[1].trim());
  })).join(',');
}

// An HTTP-date that names a day its month does not have (31 Feb) is no HTTP-date (spec 7.6):
// Date.UTC rolls it into the next month, so the day written must be the day read (a leap
// second, :60, is read as the next minute, so its day is that of the second before).
function checkedHttpDate(s) {
  const ms = parseHttpDate(s);
  if (ms === null) return null;
  const text = String(s).trim();
  const m = /^\w+, (\d{2})[ -]|^\w+ \w{3} ([ \d]\d) /.exec(text);
  const day = new Date(/:60\b/.test(text) ? ms - 1000 : ms).getUTCDate();
  return m && +(m[1] || m[2]).trim() === day ? ms : null;
}

module.exports = {
  isToken, asciiLower, readQuoted, parseMediaType, splitList, parseAccept, acceptQuality,
  batchOnError, problem, parseHttpDate: checkedHttpDate, httpDate,
};
