'use strict';
// RFC 3986 URI-reference validation, parsing and resolution (section 5.2).

const net = require('node:net');

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const SUB_DELIMS = "!$&'()*+,;=";
const HEX = /^[0-9A-Fa-f]{2}$/;

// Checks that every '%' starts a pct-encoded triplet and that each other
// character belongs to `extra` or is unreserved / sub-delim.
function charsOk(s, extra) {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      if (!HEX.test(s.substr(i + 1, 2))) return false;
      i += 2;
      continue;
    }
    if (UNRESERVED.test(c) || SUB_DELIMS.includes(c) || extra.includes(c)) continue;
    return false;
  }
  return true;
}

function validIPv6(s) {
  if (s.includes('%')) return false; // no zone identifiers in RFC 3986
  return net.isIPv6(s);
}

function validIPvFuture(s) {
  const m = /^[vV]([0-9A-Fa-f]+)\.(.+)$/.exec(s);
  if (!m) return false;
  for (const c of m[2]) {
    if (!(UNRESERVED.test(c) || SUB_DELIMS.includes(c) || c === ':')) return false;
  }
  return true;
}

// Parses the authority component; returns {userinfo, host, port} or null.
function parseAuthority(a) {
  let userinfo = null;
  let rest = a;
  const at = a.indexOf('@');
  if (at >= 0) {
    userinfo = a.slice(0, at);
    rest = a.slice(at + 1);
    if (!charsOk(userinfo, ':')) return null;
  }
  let host, port = null;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return null;
    const inner = rest.slice(1, close);
    if (!(validIPv6(inner) || validIPvFuture(inner))) return null;
    host = rest.slice(0, close + 1);
    const after = rest.slice(close + 1);
    if (after !== '') {
      if (after[0] !== ':') return null;
      port = after.slice(1);
    }
  } else {
    const colon = rest.indexOf(':');
    if (colon >= 0) {
      host = rest.slice(0, colon);
      port = rest.slice(colon + 1);
    } else {
      host = rest;
    }
    if (!charsOk(host, '')) return null; // reg-name or IPv4address
  }
  if (port !== null && !/^[0-9]*$/.test(port)) return null;
  return { userinfo, host, port };
}

// Parses a URI-reference strictly by the RFC 3986 grammar. Returns
// {scheme, authority, auth, path, query, fragment} (undefined for absent
// components) or null when the string is no URI-reference.
function parseReference(s) {
  // characters that can appear anywhere at all
  if (!charsOk(s, ':/?#[]@')) return null;
  const r = { scheme: undefined, authority: undefined, auth: undefined, path: '', query: undefined, fragment: undefined };
  let rest = s;
  const sm = /^([A-Za-z][A-Za-z0-9+.\-]*):/.exec(rest);
  if (sm) {
    r.scheme = sm[1];
    rest = rest.slice(sm[0].length);
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    r.fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    if (!charsOk(r.fragment, ':@/?')) return null;
  }
  const q = rest.indexOf('?');
  if (q >= 0) {
    r.query = rest.slice(q + 1);
    rest = rest.slice(0, q);
    if (!charsOk(r.query, ':@/?')) return null;
  }
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    r.authority = slash >= 0 ? rest.slice(2, slash) : rest.slice(2);
    r.path = slash >= 0 ? rest.slice(slash) : '';
    r.auth = parseAuthority(r.authority);
    if (!r.auth) return null;
  } else {
    r.path = rest;
    if (r.scheme === undefined && !r.path.startsWith('/')) {
      const firstSeg = r.path.split('/')[0];
      if (firstSeg.includes(':')) return null; // path-noscheme
    }
  }
  if (!charsOk(r.path, ':@/')) return null;
  return r;
}

function removeDotSegments(input) {
  const out = [];
  let inp = input;
  while (inp.length > 0) {
    if (inp.startsWith('../')) inp = inp.slice(3);
    else if (inp.startsWith('./')) inp = inp.slice(2);
    else if (inp.startsWith('/./')) inp = inp.slice(2);
    else if (inp === '/.') inp = '/';
    else if (inp.startsWith('/../')) { inp = inp.slice(3); out.pop(); }
    else if (inp === '/..') { inp = '/'; out.pop(); }
    else if (inp === '.' || inp === '..') inp = '';
    else {
      let i = inp.indexOf('/', inp.startsWith('/') ? 1 : 0);
      if (i < 0) i = inp.length;
      out.push(inp.slice(0, i));
      inp = inp.slice(i);
    }
  }
  return out.join('');
}

function merge(base, refPath) {
  if (base.authority !== undefined && base.path === '') return '/' + refPath;
  const i = base.path.lastIndexOf('/');
  return (i >= 0 ? base.path.slice(0, i + 1) : '') + refPath;
}

// RFC 3986 section 5.2.2 (strict).
function resolve(base, r) {
  const t = {};
  if (r.scheme !== undefined) {
    t.scheme = r.scheme; t.authority = r.authority; t.auth = r.auth;
    t.path = removeDotSegments(r.path); t.query = r.query;
  } else {
    if (r.authority !== undefined) {
      t.authority = r.authority; t.auth = r.auth;
      t.path = removeDotSegments(r.path); t.query = r.query;
    } else {
      if (r.path === '') {
        t.path = base.path;
        t.query = r.query !== undefined ? r.query : base.query;
      } else {
        if (r.path.startsWith('/')) t.path = removeDotSegments(r.path);
        else t.path = removeDotSegments(merge(base, r.path));
        t.query = r.query;
      }
      t.authority = base.authority; t.auth = base.auth;
    }
    t.scheme = base.scheme;
  }
  t.fragment = r.fragment;
  return t;
}

const UNRESERVED_CHARS = /[A-Za-z0-9\-._~]/;
// Decodes percent-encoded unreserved characters (RFC 3986 6.2.2.2).
function decodeUnreserved(path) {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (m, h) => {
    const c = String.fromCharCode(parseInt(h, 16));
    return UNRESERVED_CHARS.test(c) ? c : m;
  });
}

// Splits a Host field value into {host, port}; null when invalid/empty.
function parseHostField(v) {
  if (typeof v !== 'string' || v === '') return null;
  const a = parseAuthority(v);
  if (!a || a.userinfo !== null || a.host === '') return null;
  return a;
}

module.exports = { parseReference, resolve, removeDotSegments, decodeUnreserved, parseHostField, parseAuthority };
