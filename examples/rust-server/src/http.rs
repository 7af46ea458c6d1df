//! A small HTTP/1.1 server codec (RFC 9112) over a TcpStream: request line, header
//! section, Content-Length and chunked content with trailers, Expect: 100-continue,
//! keep-alive and HTTP/1.0, and responses framed by Content-Length, chunked or close.

use crate::fields::{is_field_value, is_token, trim_ows};
use crate::limits;
use crate::uri;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Framing {
    None,
    Length(usize),
    Chunked,
}

#[derive(Debug, Clone)]
pub struct Head {
    pub method: String,
    /// origin-form path and query (for absolute-form: taken from the URI).
    pub target: String,
    pub asterisk: bool,
    pub scheme: String,
    pub authority: String,
    pub minor: u8,
    pub headers: Vec<(String, Vec<u8>)>,
    pub framing: Framing,
    pub keep_alive: bool,
    pub expect_continue: bool,
    pub started: Instant,
}

/// A request the HTTP layer refuses before any resource sees it; the connection closes.
#[derive(Debug)]
pub struct HttpError {
    pub status: u16,
    pub detail: String,
}

fn herr(status: u16, detail: &str) -> HttpError {
    HttpError { status, detail: detail.to_string() }
}

#[derive(Debug)]
pub enum BodyError {
    TooLarge,
    Bad(String),
    Io,
}

pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    continue_sent: bool,
}

impl Conn {
    pub fn new(stream: TcpStream) -> Conn {
        Conn { stream, buf: vec![0; 64 * 1024], start: 0, end: 0, continue_sent: false }
    }

    fn fill(&mut self) -> io::Result<usize> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let n = self.buf.len();
            self.buf.resize(n * 2, 0);
        }
        let n = self.stream.read(&mut self.buf[self.end..])?;
        self.end += n;
        Ok(n)
    }

    /// Waits for the first octet of the next request; false at end of stream.
    pub fn wait_request(&mut self) -> bool {
        while self.start == self.end {
            match self.fill() {
                Ok(0) | Err(_) => return false,
                Ok(_) => {}
            }
        }
        true
    }

    /// A line without its terminator (CRLF, or a bare LF, which RFC 9112 §2.2 lets a
    /// recipient accept); a bare CR is an error.
    fn read_line(&mut self, max: usize) -> Result<Vec<u8>, HttpError> {
        let mut scanned = 0;
        loop {
            if let Some(p) = self.buf[self.start + scanned..self.end].iter().position(|&c| c == b'\n') {
                let lf = self.start + scanned + p;
                let mut line = self.buf[self.start..lf].to_vec();
                self.start = lf + 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if line.contains(&b'\r') {
                    return Err(herr(400, "A bare CR in the message head."));
                }
                if line.len() > max {
                    return Err(herr(431, "A line of the message head is too long."));
                }
                return Ok(line);
            }
            scanned = self.end - self.start;
            if scanned > max + 2 {
                return Err(herr(431, "A line of the message head is too long."));
            }
            match self.fill() {
                Ok(0) => return Err(herr(400, "The connection closed inside the message head.")),
                Err(_) => return Err(herr(408, "The message head did not arrive in time.")),
                Ok(_) => {}
            }
        }
    }

    pub fn read_head(&mut self, started: Instant) -> Result<Head, HttpError> {
        self.continue_sent = false;
        // RFC 9112 §2.2: ignore empty lines before the request line.
        let mut line = self.read_line(limits::MAX_REQUEST_LINE)?;
        let mut blank = 0;
        while line.is_empty() {
            blank += 1;
            if blank > 4 {
                return Err(herr(400, "Empty lines instead of a request line."));
            }
            line = self.read_line(limits::MAX_REQUEST_LINE)?;
        }
        let parts: Vec<&[u8]> = line.split(|&c| c == b' ').collect();
        if parts.len() != 3 {
            return Err(herr(400, "The request line is not method SP target SP version."));
        }
        let (method, target, version) = (parts[0], parts[1], parts[2]);
        if !is_token(method) || target.is_empty() {
            return Err(herr(400, "Invalid method or empty request target."));
        }
        let minor = match version {
            v if v.len() == 8 && v.starts_with(b"HTTP/") && v[5].is_ascii_digit() && v[6] == b'.' && v[7].is_ascii_digit() => {
                if v[5] != b'1' {
                    return Err(herr(505, "Only HTTP/1.x is supported."));
                }
                v[7] - b'0'
            }
            _ => return Err(herr(400, "Invalid HTTP version.")),
        };
        let method = String::from_utf8_lossy(method).into_owned();

        let mut headers: Vec<(String, Vec<u8>)> = Vec::new();
        let mut total = line.len();
        loop {
            let l = self.read_line(limits::MAX_HEAD_BYTES)?;
            if l.is_empty() {
                break;
            }
            total += l.len() + 2;
            if total > limits::MAX_HEAD_BYTES || headers.len() >= 256 {
                return Err(herr(431, "The request header section is too large."));
            }
            if l[0] == b' ' || l[0] == b'\t' {
                return Err(herr(400, "Obsolete line folding in the header section."));
            }
            let colon = l.iter().position(|&c| c == b':').ok_or_else(|| herr(400, "A header line without a colon."))?;
            let name = &l[..colon];
            if !is_token(name) {
                return Err(herr(400, "An invalid field name (or whitespace before the colon)."));
            }
            let value = trim_ows(&l[colon + 1..]);
            if !is_field_value(value) {
                return Err(herr(400, "A field value with an invalid octet."));
            }
            headers.push((String::from_utf8_lossy(name).into_owned(), value.to_vec()));
        }

        // Host (RFC 9112 §3.2)
        let hosts: Vec<&Vec<u8>> = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("host")).map(|(_, v)| v).collect();
        if hosts.len() > 1 {
            return Err(herr(400, "More than one Host field."));
        }
        if minor >= 1 && hosts.is_empty() {
            return Err(herr(400, "An HTTP/1.1 request without Host."));
        }
        let host = hosts.first().map(|h| h.to_vec()).unwrap_or_default();
        if !host.is_empty() && (!uri::valid_authority(&host) || host.contains(&b'@')) {
            return Err(herr(400, "An invalid Host field value."));
        }

        // request-target forms (RFC 9112 §3.2)
        let mut scheme = "http".to_string();
        let mut authority = String::from_utf8_lossy(&host).into_owned();
        let mut asterisk = false;
        let t = target;
        let origin_target;
        if t[0] == b'/' {
            if !valid_origin_form(t) {
                return Err(herr(400, "An invalid request target."));
            }
            origin_target = String::from_utf8_lossy(t).into_owned();
        } else if t == b"*" {
            if method != "OPTIONS" {
                return Err(herr(400, "The asterisk form is only for OPTIONS."));
            }
            asterisk = true;
            origin_target = "*".to_string();
        } else if method == "CONNECT" {
            return Err(herr(501, "CONNECT is not implemented."));
        } else {
            let u = uri::parse_ref(t).ok_or_else(|| herr(400, "An invalid request target."))?;
            let s = u.scheme.clone().unwrap_or_default().to_ascii_lowercase();
            if (s != "http" && s != "https") || u.authority.is_none() || u.fragment.is_some() {
                return Err(herr(400, "An invalid absolute-form request target."));
            }
            let a = u.authority.clone().unwrap();
            if a.contains('@') || a.is_empty() {
                return Err(herr(400, "An invalid authority in the request target."));
            }
            scheme = s;
            authority = a;
            origin_target = uri::origin_form(&u);
        }

        // framing (RFC 9112 §6)
        let te = crate::fields::joined(&headers, "transfer-encoding");
        let cls: Vec<&Vec<u8>> = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("content-length")).map(|(_, v)| v).collect();
        let framing = if let Some(te) = te {
            if minor == 0 {
                return Err(herr(400, "Transfer-Encoding in an HTTP/1.0 request."));
            }
            if !cls.is_empty() {
                return Err(herr(400, "Both Transfer-Encoding and Content-Length."));
            }
            let codings: Vec<Vec<u8>> = te.split(|&c| c == b',').map(|c| trim_ows(c).to_ascii_lowercase()).filter(|c| !c.is_empty()).collect();
            match codings.last() {
                Some(last) if last == b"chunked" => {}
                _ => return Err(herr(400, "Transfer-Encoding whose final coding is not chunked.")),
            }
            if codings.len() > 1 {
                return Err(herr(501, "A transfer coding other than chunked."));
            }
            Framing::Chunked
        } else if !cls.is_empty() {
            let mut n: Option<usize> = None;
            for v in cls {
                for el in v.split(|&c| c == b',') {
                    let el = trim_ows(el);
                    if el.is_empty() || el.len() > 18 || !el.iter().all(|c| c.is_ascii_digit()) {
                        return Err(herr(400, "An invalid Content-Length."));
                    }
                    let x: usize = std::str::from_utf8(el).unwrap().parse().map_err(|_| herr(400, "An invalid Content-Length."))?;
                    if n.map_or(false, |m| m != x) {
                        return Err(herr(400, "Conflicting Content-Length values."));
                    }
                    n = Some(x);
                }
            }
            match n {
                Some(0) => Framing::None,
                Some(x) => Framing::Length(x),
                None => Framing::None,
            }
        } else {
            Framing::None
        };

        let conn_tokens: Vec<Vec<u8>> = crate::fields::joined(&headers, "connection")
            .map(|v| v.split(|&c| c == b',').map(|t| trim_ows(t).to_ascii_lowercase()).collect())
            .unwrap_or_default();
        let keep_alive = if minor >= 1 {
            !conn_tokens.iter().any(|t| t == b"close")
        } else {
            conn_tokens.iter().any(|t| t == b"keep-alive")
        };
        let mut expect_continue = false;
        if let Some(e) = crate::fields::joined(&headers, "expect") {
            if e.eq_ignore_ascii_case(b"100-continue") {
                expect_continue = minor >= 1;
            } else {
                return Err(herr(417, "Only the 100-continue expectation is supported."));
            }
        }
        Ok(Head { method, target: origin_target, asterisk, scheme, authority, minor, headers, framing, keep_alive, expect_continue, started })
    }

    /// Sends 100 (Continue) once when the client asked for it and content is expected.
    pub fn send_continue(&mut self, head: &Head) -> io::Result<()> {
        if head.expect_continue && head.framing != Framing::None && !self.continue_sent {
            self.continue_sent = true;
            self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        Ok(())
    }

    fn take(&mut self, n: usize, sink: &mut Option<&mut Vec<u8>>) -> Result<(), BodyError> {
        let mut left = n;
        while left > 0 {
            if self.start == self.end {
                match self.fill() {
                    Ok(0) => return Err(BodyError::Bad("The content ended early.".into())),
                    Err(_) => return Err(BodyError::Io),
                    Ok(_) => {}
                }
            }
            let k = left.min(self.end - self.start);
            if let Some(s) = sink.as_mut() {
                s.extend_from_slice(&self.buf[self.start..self.start + k]);
            }
            self.start += k;
            left -= k;
        }
        Ok(())
    }

    fn body_line(&mut self) -> Result<Vec<u8>, BodyError> {
        self.read_line(4096).map_err(|e| if e.status == 408 { BodyError::Io } else { BodyError::Bad(e.detail) })
    }

    /// Reads (or, without a sink, discards) the content, never more than `max` octets
    /// (MB-INTER-5: chunked content counts like Content-Length content).
    fn content(&mut self, framing: Framing, max: usize, mut sink: Option<&mut Vec<u8>>) -> Result<(), BodyError> {
        match framing {
            Framing::None => Ok(()),
            Framing::Length(n) => {
                if n > max {
                    return Err(BodyError::TooLarge);
                }
                self.take(n, &mut sink)
            }
            Framing::Chunked => {
                let mut total = 0usize;
                loop {
                    let line = self.body_line()?;
                    let size_part = line.split(|&c| c == b';').next().unwrap_or(b"");
                    let size_part = trim_ows(size_part);
                    if size_part.is_empty() || size_part.len() > 15 || !size_part.iter().all(|c| c.is_ascii_hexdigit()) {
                        return Err(BodyError::Bad("An invalid chunk size.".into()));
                    }
                    let size = usize::from_str_radix(std::str::from_utf8(size_part).unwrap(), 16).map_err(|_| BodyError::Bad("An invalid chunk size.".into()))?;
                    if size == 0 {
                        // trailer section (RFC 9112 §7.1.2), read and discarded
                        let mut tbytes = 0;
                        loop {
                            let t = self.body_line()?;
                            if t.is_empty() {
                                break;
                            }
                            tbytes += t.len();
                            if tbytes > limits::MAX_HEAD_BYTES {
                                return Err(BodyError::Bad("The trailer section is too large.".into()));
                            }
                            if t[0] == b' ' || t[0] == b'\t' || !t.contains(&b':') {
                                return Err(BodyError::Bad("An invalid trailer field.".into()));
                            }
                        }
                        return Ok(());
                    }
                    total = total.saturating_add(size);
                    if total > max {
                        return Err(BodyError::TooLarge);
                    }
                    self.take(size, &mut sink)?;
                    // Exactly CRLF ends chunk data (RFC 9112 §7.1, spec 10.1): the line reader
                    // would take a bare LF, which is broken framing here.
                    let mut end = Vec::with_capacity(2);
                    self.take(2, &mut Some(&mut end))?;
                    if end != b"\r\n" {
                        return Err(BodyError::Bad("A chunk is not followed by CRLF.".into()));
                    }
                }
            }
        }
    }

    pub fn read_body(&mut self, head: &Head, max: usize) -> Result<Vec<u8>, BodyError> {
        let mut v = Vec::new();
        if let Framing::Length(n) = head.framing {
            if n <= max {
                v.reserve(n);
            }
        }
        self.content(head.framing, max, Some(&mut v))?;
        Ok(v)
    }

    /// Discards the content of a refused request so the connection can answer the next
    /// one; false when it is too long (or unreadable) and the connection must close.
    pub fn discard_body(&mut self, head: &Head) -> bool {
        if head.expect_continue && head.framing != Framing::None && !self.continue_sent {
            return false; // the client may never send it
        }
        self.content(head.framing, limits::MAX_DISCARD, None).is_ok()
    }

    pub fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.stream.write_all(data)
    }
}

fn valid_origin_form(t: &[u8]) -> bool {
    let (path, query) = match t.iter().position(|&c| c == b'?') {
        Some(q) => (&t[..q], Some(&t[q + 1..])),
        None => (t, None),
    };
    // absolute-path = 1*( "/" segment ), query = *( pchar / "/" / "?" )
    let ok = |s: &[u8], extra: &[u8]| -> bool {
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            if c == b'%' {
                if i + 2 >= s.len() || !s[i + 1].is_ascii_hexdigit() || !s[i + 2].is_ascii_hexdigit() {
                    return false;
                }
                i += 3;
                continue;
            }
            if !(c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&c) || extra.contains(&c)) {
                return false;
            }
            i += 1;
        }
        true
    };
    ok(path, b"/") && query.map_or(true, |q| ok(q, b"/?"))
}

pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        207 => "Multi-Status",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        417 => "Expectation Failed",
        421 => "Misdirected Request",
        422 => "Unprocessable Content",
        424 => "Failed Dependency",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// The status line and header section of a response, with Date, and Connection: close
/// when the connection ends after it (or keep-alive for a persistent HTTP/1.0 one).
pub fn head_bytes(minor: u8, status: u16, headers: &[(String, Vec<u8>)], close: bool) -> Vec<u8> {
    let mut o = Vec::with_capacity(256);
    o.extend_from_slice(format!("HTTP/1.1 {} {}\r\n", status, reason(status)).as_bytes());
    o.extend_from_slice(format!("Date: {}\r\n", crate::date::format(crate::date::now_secs())).as_bytes());
    for (n, v) in headers {
        o.extend_from_slice(n.as_bytes());
        o.extend_from_slice(b": ");
        o.extend_from_slice(v);
        o.extend_from_slice(b"\r\n");
    }
    if close {
        o.extend_from_slice(b"Connection: close\r\n");
    } else if minor == 0 {
        o.extend_from_slice(b"Connection: keep-alive\r\n");
    }
    o.extend_from_slice(b"\r\n");
    o
}

/// A whole response framed by Content-Length (none for 1xx, 204 and 304).
pub fn send(conn: &mut Conn, minor: u8, head_request: bool, status: u16, headers: &[(String, Vec<u8>)], body: &[u8], close: bool) -> io::Result<()> {
    let mut h: Vec<(String, Vec<u8>)> = headers.iter().filter(|(n, _)| !n.eq_ignore_ascii_case("content-length")).cloned().collect();
    let bodiless = status == 204 || status == 304 || status < 200;
    if !bodiless {
        h.push(("Content-Length".into(), body.len().to_string().into_bytes()));
    }
    let mut out = head_bytes(minor, status, &h, close);
    if !head_request && !bodiless {
        out.extend_from_slice(body);
    }
    conn.write_all(&out)?;
    conn.stream.flush()
}

/// A streamed response body: chunked for HTTP/1.1, close-delimited for HTTP/1.0.
pub struct BodyOut<'a> {
    pub conn: &'a mut Conn,
    pub chunked: bool,
    pub failed: bool,
}

impl<'a> BodyOut<'a> {
    pub fn write(&mut self, data: &[u8]) {
        if data.is_empty() || self.failed {
            return;
        }
        let r = if self.chunked {
            let mut o = format!("{:x}\r\n", data.len()).into_bytes();
            o.extend_from_slice(data);
            o.extend_from_slice(b"\r\n");
            self.conn.write_all(&o)
        } else {
            self.conn.write_all(data)
        };
        if r.is_err() {
            self.failed = true;
        }
    }

    pub fn finish(&mut self, trailers: &[(String, String)]) {
        if self.failed {
            return;
        }
        if self.chunked {
            let mut o = b"0\r\n".to_vec();
            for (n, v) in trailers {
                o.extend_from_slice(format!("{}: {}\r\n", n, v).as_bytes());
            }
            o.extend_from_slice(b"\r\n");
            if self.conn.write_all(&o).is_err() {
                self.failed = true;
            }
        }
        let _ = self.conn.stream.flush();
    }
}
