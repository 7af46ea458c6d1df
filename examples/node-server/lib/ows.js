'use strict';
// Optional whitespace around the framing fields, before Node's HTTP parser sees it.
//
// RFC 9112 section 5 lets OWS (spaces and tabs) precede and follow every field value, and a
// recipient excludes it from the value. Node's parser (llhttp) does so for every field except
// two: a tab after a Content-Length or Transfer-Encoding value makes it refuse the request
// (HPE_INVALID_CONTENT_LENGTH, HPE_INVALID_TRANSFER_ENCODING) where a space is taken
// (nodejs/node#62192). So every connection reaches the parser through a stream that writes
// the tabs of those two field lines' values as spaces: the same number of octets, nothing else
// changed. Neither field reaches a resource as written (the echo leaves out the framing
// fields), and a tab anywhere inside either value is no more valid as a space.
//
// To rewrite header sections only, the stream follows the request framing (RFC 9112 section
// 6.3): no content, Content-Length content, or chunked content and its trailer section. When
// a request is framed in any way it does not follow (CONNECT, Upgrade, both or repeated framing
// fields, a coding other than chunked last, a bare LF, an obs-fold, a chunk-size line it does
// not read), it stops rewriting and passes the rest of the connection through as received:
// Node's parser then decides alone, as without this stream.

const { Duplex } = require('node:stream');

const CR = 0x0d, LF = 0x0a, SP = 0x20, HTAB = 0x09, COLON = 0x3a;
const MAX_LINE = 64 * 1024; // beyond Node's whole header limit
const MAX_VALUE = 4096;

// Follows one connection's request framing; feed(chunk) rewrites the chunk in place.
class FramingFollower {
  constructor() {
    this.state = 'start';
    this.line = '';       // request line, field name or chunk-size line read so far (latin1)
    this.value = '';      // the value of a framing field read so far
    this.kind = null;     // 'content-length' | 'transfer-encoding' | null: the current field
    this.remaining = 0;   // octets of content or chunk data still to skip
    this.prev = null;     // the last octet of the previous chunk
    this.resetHead();
  }

  resetHead() {
    this.method = '';
    this.lengths = [];
    this.codings = [];
    this.upgrade = false;
  }

  // The header section ended: where does the next one begin?
  endOfHead() {
    this.state = 'off';
    if (this.method === 'CONNECT' || this.upgrade) return;
    if (this.codings.length) {
      const list = this.codings.join(',').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s);
      if (this.lengths.length || list[list.length - 1] !== 'chunked') return;
      this.state = 'size';
      this.line = '';
    } else if (this.lengths.length === 1) {
      const v = this.lengths[0].trim();
      if (!/^[0-9]{1,15}$/.test(v)) return;
      this.remaining = parseInt(v, 10);
      this.state = this.remaining > 0 ? 'body' : 'start';
    } else if (this.lengths.length === 0) {
      this.state = 'start';
    }
  }

  feed(buf) {
    const stop = () => { this.state = 'off'; return buf; };
    let i = 0;
    while (i < buf.length) {
      const c = buf[i];
      switch (this.state) {
        case 'off':
          return buf;
        case 'start': // empty lines before a request line are skipped (RFC 9112 section 2.2)
          if (c === CR || c === LF) { i++; break; }
          this.resetHead();
          this.state = 'request-line';
          this.line = '';
          break;
        case 'request-line':
          if (c === LF) {
            if (!this.line.endsWith('\r')) return stop();
            this.method = this.line.split(' ')[0];
            this.state = 'field-start';
          } else if (this.line.length > MAX_LINE) {
            return stop();
          } else {
            this.line += String.fromCharCode(c);
          }
          i++;
          break;
        case 'field-start':
          if (c === CR) this.state = 'head-end';
          else if (c === LF || c === SP || c === HTAB) return stop(); // bare LF, obs-fold
          else { this.state = 'name'; this.line = ''; continue; }
          i++;
          break;
        case 'head-end':
          if (c !== LF) return stop();
          i++;
          this.endOfHead();
          break;
        case 'name':
          if (c === COLON) {
            const name = this.line.toLowerCase();
            this.kind = name === 'content-length' || name === 'transfer-encoding' ? name : null;
            if (name === 'upgrade') this.upgrade = true;
            this.value = '';
            this.state = 'value';
          } else if (c === CR || c === LF || this.line.length > MAX_LINE) {
            return stop();
          } else {
            this.line += String.fromCharCode(c);
          }
          i++;
          break;
        case 'value':
          if (c === CR) {
            this.state = 'value-end';
          } else if (c === LF) {
            return stop();
          } else if (this.kind) {
            if (c === HTAB) buf[i] = SP;
            if (this.value.length > MAX_VALUE) return stop();
            this.value += String.fromCharCode(buf[i]);
          }
          i++;
          break;
        case 'value-end':
          if (c !== LF) return stop();
          if (this.kind === 'content-length') this.lengths.push(this.value);
          else if (this.kind === 'transfer-encoding') this.codings.push(this.value);
          this.state = 'field-start';
          i++;
          break;
        case 'body': {
          const take = Math.min(this.remaining, buf.length - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = 'start';
          break;
        }
        case 'size': // chunk-size [ chunk-ext ] CRLF (RFC 9112 section 7.1)
          if (c === LF) {
            const m = /^([0-9A-Fa-f]{1,12})(;[^\r]*)?\r$/.exec(this.line);
            if (!m) return stop();
            this.remaining = parseInt(m[1], 16);
            this.state = this.remaining > 0 ? 'data' : 'trailer-start';
          } else if (this.line.length > MAX_LINE) {
            return stop();
          } else {
            this.line += String.fromCharCode(c);
          }
          i++;
          break;
        case 'data': {
          const take = Math.min(this.remaining, buf.length - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = 'data-cr';
          break;
        }
        case 'data-cr':
          if (c !== CR) return stop();
          this.state = 'data-lf';
          i++;
          break;
        case 'data-lf':
          if (c !== LF) return stop();
          this.state = 'size';
          this.line = '';
          i++;
          break;
        case 'trailer-start': // trailer section: field lines up to an empty line
          if (c === CR) this.state = 'trailer-end';
          else if (c === LF) return stop();
          else this.state = 'trailer-line';
          i++;
          break;
        case 'trailer-line':
          if (c === LF) {
            if ((i > 0 ? buf[i - 1] : this.prev) !== CR) return stop();
            this.state = 'trailer-start';
          }
          i++;
          break;
        case 'trailer-end':
          if (c !== LF) return stop();
          this.state = 'start';
          i++;
          break;
        default:
          return stop();
      }
    }
    if (buf.length) this.prev = buf[buf.length - 1];
    return buf;
  }
}

// A Duplex over a net.Socket that hands the HTTP server the received octets through a
// FramingFollower, and everything else (writes, end, destroy, timeouts) to the socket.
class FramingSocket extends Duplex {
  constructor(socket) {
    super({ allowHalfOpen: true });
    this.socket = socket;
    const follower = new FramingFollower();
    socket.on('data', (chunk) => { if (!this.push(follower.feed(chunk))) socket.pause(); });
    socket.on('end', () => this.push(null));
    socket.on('error', (e) => this.destroy(e));
    socket.on('close', () => this.destroy());
    socket.on('timeout', () => this.emit('timeout'));
  }
  _read() { this.socket.resume(); }
  _write(chunk, encoding, cb) { this.socket.write(chunk, encoding, cb); }
  _writev(chunks, cb) {
    this.socket.cork();
    chunks.forEach(({ chunk, encoding }, k) => this.socket.write(chunk, encoding, k === chunks.length - 1 ? cb : undefined));
    this.socket.uncork();
  }
  _final(cb) { this.socket.end(cb); }
  _destroy(err, cb) { this.socket.destroy(); cb(err); }
  // as net.Socket's: end, then close once everything written has gone out
  destroySoon() {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }
  setTimeout(ms, cb) { this.socket.setTimeout(ms); if (cb) this.once('timeout', cb); return this; }
  setNoDelay(v) { this.socket.setNoDelay(v); return this; }
  setKeepAlive(enable, delay) { this.socket.setKeepAlive(enable, delay); return this; }
  address() { return this.socket.address(); }
  get remoteAddress() { return this.socket.remoteAddress; }
  get remotePort() { return this.socket.remotePort; }
  get remoteFamily() { return this.socket.remoteFamily; }
  get localAddress() { return this.socket.localAddress; }
  get localPort() { return this.socket.localPort; }
}

// Makes `server` (an http.Server) read every connection through a FramingSocket.
function normalizeFramingOWS(server) {
  const listeners = server.listeners('connection');
  server.removeAllListeners('connection');
  server.on('connection', (socket) => {
    const wrapped = new FramingSocket(socket);
    for (const l of listeners) l.call(server, wrapped);
  });
}

module.exports = { normalizeFramingOWS, FramingFollower };
