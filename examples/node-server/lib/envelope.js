'use strict';
// Strict multipart/mixed envelope parser for mixbatch batch requests
// (spec section 3.1 framing, 3.2 request part header sections).

const CR = 0x0d, LF = 0x0a, SP = 0x20, HT = 0x09, DASH = 0x2d;

const BCHARS = /^[0-9A-Za-z'()+_,\-.\/:=? ]+$/;

// Validates a boundary parameter value (MB-WIRE-3/4). Returns an error string or null.
function boundaryError(b) {
  if (b === undefined) return 'The Content-Type has no boundary parameter.';
  if (b.length === 0) return 'The boundary parameter is empty.';
  if (b.length > 70) return `The boundary is ${b.length} characters long; at most 70 are allowed.`;
  if (!BCHARS.test(b)) return 'The boundary contains a character outside bchars (RFC 2046 5.1.1).';
  if (b.endsWith(' ')) return 'The boundary ends in a space.';
  return null;
}

function err(status, requirement, partIndex, offset, title, detail, extra) {
  return Object.assign({ status, requirement, part_index: partIndex, byte_offset: offset, title, detail }, extra || {});
}

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// Validates one field line (without its CRLF) as an RFC 9112 field-line.
// Returns {name, value} or null.
function parseFieldLine(line) {
  const colon = line.indexOf(':');
  if (colon <= 0) return null;
  const name = line.slice(0, colon);
  if (!FIELD_NAME.test(name)) return null; // also catches whitespace before ':' and obs-fold
  const raw = line.slice(colon + 1);
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === HT || c === SP) continue;
    if (c >= 0x21 && c <= 0x7e) continue;
    if (c >= 0x80 && c <= 0xff) continue;
    return null;
  }
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  return { name, value };
}

// Parses the content into parts. limits: {max_parts, max_part_bytes,
// max_part_header_bytes, max_part_fields}. Returns {parts} or {error}.
function parseEnvelope(buf, boundary, limits) {
  const dash = Buffer.from('--' + boundary, 'latin1');
  const dlen = dash.length;
  const n = buf.length;

  // ---- locate the first delimiter line ----
  let p = -1;
  let from = 0;
  while (true) {
    const i = buf.indexOf(dash, from);
    if (i < 0) break;
    if (i === 0) { p = 0; break; }
    if (buf[i - 1] === LF) {
      if (i >= 2 && buf[i - 2] === CR) { p = i; break; }
      return { error: err(400, 'MB-WIRE-8', 0, i, 'Bare LF before a delimiter line',
        `The delimiter line at byte ${i} follows a bare LF; lines end with CRLF.`) };
    }
    from = i + 1;
  }
  if (p < 0) {
    return { error: err(400, 'MB-WIRE-18', 0, 0, 'Batch without parts',
      'The content holds no delimiter line, so the batch has no parts.') };
  }

  const parts = [];
  // p: offset of a delimiter line's first '-'
  while (true) {
    const index = parts.length;
    let q = p + dlen;
    let isClose = false;
    if (q + 1 < n + 1 && buf[q] === DASH && buf[q + 1] === DASH) { isClose = true; q += 2; }
    while (q < n && (buf[q] === SP || buf[q] === HT)) q++;
    if (isClose) {
      if (index === 0) {
        return { error: err(400, 'MB-WIRE-18', 0, p, 'Batch without parts',
          'The first delimiter line is the close delimiter, so the batch has no parts.') };
      }
      if (q === n) break; // content ends with the close delimiter
      if (buf[q] === CR && q + 1 < n && buf[q + 1] === LF) break; // epilogue follows, ignored
      if (buf[q] === LF || buf[q] === CR) {
        return { error: err(400, 'MB-WIRE-8', index, p, 'Bare line terminator after the close delimiter',
          `The close delimiter line at byte ${p} does not end with CRLF.`) };
      }
      return { error: err(400, 'MB-WIRE-19', index, p, 'Text after the close delimiter',
        `The close delimiter line at byte ${p} carries text after the boundary.`) };
    }
    if (q >= n) {
      return { error: err(400, 'MB-WIRE-13', index, n, 'Missing close delimiter',
        'The content ends without the close delimiter.') };
    }
    if (buf[q] === CR && q + 1 < n && buf[q + 1] === LF) {
      q += 2;
    } else if (buf[q] === LF || buf[q] === CR) {
      return { error: err(400, 'MB-WIRE-8', index, p, 'Bare line terminator on a delimiter line',
        `The delimiter line at byte ${p} does not end with CRLF.`) };
    } else {
      return { error: err(400, 'MB-WIRE-19', index, p, 'Text after the boundary',
        `The delimiter line at byte ${p} carries text after the boundary.`) };
    }
    if (index >= limits.max_parts) {
      return { error: err(413, 'MB-STATUS-3', index, p, 'Too many parts',
        `Part ${index} would exceed the limit of ${limits.max_parts} parts per batch; no part ran.`,
        { limit: 'max_parts', value: limits.max_parts }) };
    }

    // ---- part header section ----
    const hstart = q;
    const fields = [];
    let headerBytes = 0;
    let bodyStart = -1;
    let nextDelim = -1; // offset of the next delimiter's first '-'
    while (true) {
      if (q >= n) {
        return { error: err(400, 'MB-WIRE-13', index, n, 'Missing close delimiter',
          'The content ends inside a part header section, without the close delimiter.') };
      }
      const lf = buf.indexOf(LF, q);
      // the empty line
      if (buf[q] === CR && q + 1 < n && buf[q + 1] === LF) {
        const after = q + 2;
        if (buf.compare(dash, 0, dlen, after, Math.min(after + dlen, n)) === 0 && after + dlen <= n) {
          // header section followed directly by the next delimiter (MB-WIRE-21)
          bodyStart = q; nextDelim = after;
        } else {
          bodyStart = after;
        }
        break;
      }
      const lineEnd = lf < 0 ? n : lf;
      // bare CR inside the line
      const crAt = buf.indexOf(CR, q);
      if (crAt >= 0 && crAt < lineEnd - 1) {
        return { error: err(400, 'MB-WIRE-8', index, q, 'Bare CR in a part header section',
          `The header line at byte ${q} of part ${index} contains a bare CR; part header lines end with CRLF.`) };
      }
      if (lf < 0) {
        return { error: err(400, 'MB-WIRE-13', index, n, 'Missing close delimiter',
          'The content ends inside a part header section, without the close delimiter.') };
      }
      if (lf === q || buf[lf - 1] !== CR) {
        const shown = JSON.stringify(buf.subarray(q, lf + 1).toString('latin1'));
        return { error: err(400, 'MB-WIRE-8', index, q, 'Bare LF in a part header section',
          `The header line at byte ${q} of part ${index} ends with a bare LF (${shown}); part header lines end with CRLF.`) };
      }
      const lineBytes = lf + 1 - q;
      headerBytes += lineBytes;
      if (headerBytes > limits.max_part_header_bytes) {
        return { error: err(431, 'MB-STATUS-3', index, hstart, 'Part header section too large',
          `The header section of part ${index} exceeds ${limits.max_part_header_bytes} octets; no part ran.`,
          { limit: 'max_part_header_bytes', value: limits.max_part_header_bytes }) };
      }
      if (fields.length + 1 > limits.max_part_fields) {
        return { error: err(431, 'MB-LIMIT-5', index, hstart, 'Too many fields in a part header section',
          `The header section of part ${index} has more than ${limits.max_part_fields} field lines; no part ran.`,
          { limit: 'max_part_fields', value: limits.max_part_fields }) };
      }
      const line = buf.subarray(q, lf - 1).toString('latin1');
      if (buf.compare(dash, 0, dlen, q, Math.min(q + dlen, n)) === 0 && q + dlen <= n) {
        return { error: err(400, 'MB-PART-11', index, q, 'Delimiter inside a part header section',
          `The line at byte ${q} starts with the boundary but lies inside the header section of part ${index}; a header section ends with an empty line or CRLF before the delimiter.`) };
      }
      const f = parseFieldLine(line);
      if (!f) {
        return { error: err(400, 'MB-PART-11', index, q, 'Invalid part header line',
          `The header line at byte ${q} of part ${index} is not a valid field-line (${JSON.stringify(line.slice(0, 80))}).`) };
      }
      f.offset = q;
      fields.push(f);
      q = lf + 1;
    }

    // ---- part body ----
    let bodyEnd;
    if (nextDelim >= 0) {
      bodyEnd = bodyStart; // no body
    } else {
      let s = bodyStart;
      while (true) {
        const i = buf.indexOf(dash, s);
        if (i < 0) {
          return { error: err(400, 'MB-WIRE-13', index, n, 'Missing close delimiter',
            'The content ends without the close delimiter.') };
        }
        if (buf[i - 1] === LF) {
          if (buf[i - 2] === CR && i - 2 >= bodyStart) { nextDelim = i; bodyEnd = i - 2; break; }
          return { error: err(400, 'MB-WIRE-8', index + 1, i, 'Bare LF before a delimiter line',
            `The line at byte ${i} starts with the boundary after a bare LF; delimiter lines follow CRLF.`) };
        }
        s = i + 1;
      }
    }
    const body = buf.subarray(bodyStart, bodyEnd);
    if (body.length > limits.max_part_bytes) {
      return { error: err(413, 'MB-STATUS-3', index, hstart, 'Part too large',
        `The body of part ${index} is ${body.length} octets, over the limit of ${limits.max_part_bytes}; no part ran.`,
        { limit: 'max_part_bytes', value: limits.max_part_bytes }) };
    }
    // Content-Length check (MB-WIRE-16/17/20)
    const cls = fields.filter((f) => f.name.toLowerCase() === 'content-length');
    if (cls.length > 1) {
      return { error: err(400, 'MB-WIRE-20', index, cls[1].offset, 'Repeated Content-Length',
        `Part ${index} carries more than one Content-Length field line.`) };
    }
    if (cls.length === 1) {
      const v = cls[0].value;
      if (!/^[0-9]+$/.test(v)) {
        return { error: err(400, 'MB-WIRE-20', index, cls[0].offset, 'Invalid Content-Length',
          `The Content-Length of part ${index} is not 1*DIGIT (${JSON.stringify(v)}).`) };
      }
      // MB-WIRE-22: leading zeros are digits of the numeral, not of the number.
      const digits = v.replace(/^0+(?=[0-9])/, '');
      const declared = digits.length > 15 ? Infinity : parseInt(digits, 10);
      if (declared !== body.length) {
        return { error: err(400, 'MB-WIRE-17', index, cls[0].offset, 'Content-Length mismatch',
          `Part ${index} declares Content-Length ${v} but its body has ${body.length} octets before the next delimiter.`) };
      }
    }
    parts.push({ index, headerStart: hstart, fields, body });
    p = nextDelim;
  }
  return { parts };
}

module.exports = { parseEnvelope, boundaryError, parseFieldLine };
