//! The multipart/mixed envelope: the boundary parameter (MB-WIRE-2..4), the strict request
//! parser of spec section 3 with its limits (MB-STATUS-3, MB-LIMIT-5), and the writer of
//! response parts (MB-RESP-1..5, MB-WIRE-6/7/15).
//!
//! Faults are reported as problem documents with `part_index` and `byte_offset` following
//! the conventions of spec 5.3.

use crate::fields::{is_field_value, is_token, trim_ows};
use crate::limits::Limits;
use crate::problem::Problem;
use crate::uri;
use std::ops::Range;

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub value: Vec<u8>,
    /// Offset of the field line's first octet in the content.
    pub offset: usize,
}

#[derive(Debug, Clone)]
pub struct ReqPart {
    pub header_offset: usize,
    /// Every field line of the part header section, in order.
    pub fields: Vec<Field>,
    pub method: String,
    /// The Content-Id field value (OWS removed), "<" URI-reference ">".
    pub content_id: Vec<u8>,
    pub content_id_offset: usize,
    pub body: Range<usize>,
}

impl ReqPart {
    /// The URI reference between the angle brackets, exactly as written (MB-PART-6).
    pub fn target_ref(&self) -> &[u8] {
        &self.content_id[1..self.content_id.len() - 1]
    }
    /// The sub-request's own header fields: all but Http-Method and Content-Id (MB-PART-8).
    pub fn sub_fields(&self) -> Vec<(String, Vec<u8>)> {
        self.fields
            .iter()
            .filter(|f| !f.name.eq_ignore_ascii_case("http-method") && !f.name.eq_ignore_ascii_case("content-id"))
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect()
    }
}

fn malformed(title: &str, detail: String, req: &'static str, part: usize, off: usize) -> Problem {
    Problem::new(400, "malformed-batch", title, detail).req(req).at(Some(part), Some(off))
}

fn is_bchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"'()+_,-./:=? ".contains(&c)
}

/// Reads the top-level Content-Type: 415 when it is not multipart/mixed (MB-WIRE-2),
/// 400 when its parameters or boundary are invalid (MB-WIRE-4).
pub fn boundary_from(content_type: Option<&[u8]>) -> Result<Vec<u8>, Problem> {
    let unsupported = || {
        Problem::new(
            415,
            "unsupported-media-type",
            "Unsupported Media Type",
            "A batch request's content is multipart/mixed.".into(),
        )
        .req("MB-WIRE-2")
    };
    let ct = match content_type {
        Some(ct) => ct,
        None => return Err(unsupported()),
    };
    let essence = trim_ows(ct.split(|&c| c == b';').next().unwrap_or(b""));
    if !essence.eq_ignore_ascii_case(b"multipart/mixed") {
        return Err(unsupported());
    }
    let bad = |detail: &str| Problem::new(400, "malformed-batch", "Invalid boundary parameter", detail.to_string()).req("MB-WIRE-4");
    let mt = crate::fields::parse_media_type(ct).ok_or_else(|| bad("The Content-Type parameters do not follow RFC 9110 section 5.6.6."))?;
    let bs: Vec<&Vec<u8>> = mt.params.iter().filter(|(n, _)| n == "boundary").map(|(_, v)| v).collect();
    match bs.len() {
        0 => return Err(bad("The Content-Type has no boundary parameter.")),
        1 => {}
        _ => return Err(bad("The Content-Type has more than one boundary parameter.")),
    }
    let b = bs[0].clone();
    if b.is_empty() {
        return Err(bad("The boundary is empty."));
    }
    if b.len() > 70 {
        return Err(bad("The boundary is longer than 70 characters."));
    }
    if !b.iter().all(|&c| is_bchar(c)) {
        return Err(bad("The boundary holds a character outside bchars."));
    }
    if b.last() == Some(&b' ') {
        return Err(bad("The boundary ends in a space."));
    }
    Ok(b)
}

pub fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from >= hay.len() {
        return None;
    }
    let first = needle[0];
    let mut i = from;
    while i + needle.len() <= hay.len() {
        match hay[i..hay.len() - needle.len() + 1].iter().position(|&c| c == first) {
            None => return None,
            Some(p) => {
                let at = i + p;
                if &hay[at..at + needle.len()] == needle {
                    return Some(at);
                }
                i = at + 1;
            }
        }
    }
    None
}

const FORBIDDEN: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "transfer-encoding",
    "upgrade",
    "expect",
    "host",
    "trailer",
    "content-transfer-encoding",
    "http-status-code",
];

/// Parses and validates a whole batch request content (MB-PROC-1: nothing runs before this
/// has succeeded). Target resolution and the origin checks are the caller's (they need
/// the batch request's context).
pub fn parse_request(content: &[u8], boundary: &[u8], lim: &Limits) -> Result<Vec<ReqPart>, Problem> {
    let len = content.len();
    let mut dash = b"--".to_vec();
    dash.extend_from_slice(boundary);

    // The first delimiter line: at the start of the content or after a CRLF (MB-WIRE-9);
    // after a bare LF it is a delimiter line with a bare LF (MB-WIRE-8); after a bare CR
    // it is preamble content.
    let mut delim = None;
    let mut from = 0;
    while let Some(p) = find(content, &dash, from) {
        if p == 0 || (p >= 2 && &content[p - 2..p] == b"\r\n") {
            delim = Some(p);
            break;
        }
        if content[p - 1] == b'\n' {
            return Err(malformed(
                "Bare LF before a delimiter line",
                format!("The delimiter line at byte {} follows a bare LF; lines end with CRLF.", p),
                "MB-WIRE-8",
                0,
                p,
            ));
        }
        from = p + 1;
    }
    let mut delim = match delim {
        Some(p) => p,
        None => {
            return Err(malformed(
                "Missing close delimiter",
                "The content holds no delimiter line; it ends without the close delimiter.".into(),
                "MB-WIRE-13",
                0,
                len,
            ))
        }
    };

    let mut parts: Vec<ReqPart> = Vec::new();
    loop {
        let k = parts.len();
        // ---- the delimiter line at `delim` (MB-WIRE-8, MB-WIRE-11, MB-WIRE-19) ----
        let mut q = delim + dash.len();
        let close = content[q..].starts_with(b"--");
        if close {
            q += 2;
        }
        while q < len && (content[q] == b' ' || content[q] == b'\t') {
            q += 1;
        }
        if q == len {
            if close {
                if k == 0 {
                    return Err(malformed("Batch without parts", "The first delimiter line is the close delimiter; a batch has at least one part.".into(), "MB-WIRE-18", 0, delim));
                }
                return Ok(parts);
            }
            return Err(malformed("Missing close delimiter", format!("The content ends after the delimiter line at byte {} without the close delimiter.", delim), "MB-WIRE-13", k, len));
        }
        if content[q..].starts_with(b"\r\n") {
            q += 2;
        } else if content[q] == b'\n' || content[q] == b'\r' {
            return Err(malformed("Bare line terminator on a delimiter line", format!("The delimiter line at byte {} does not end with CRLF.", delim), "MB-WIRE-8", k, delim));
        } else {
            return Err(malformed("Text after the boundary", format!("The delimiter line at byte {} carries text after the boundary.", delim), "MB-WIRE-19", k, delim));
        }
        if close {
            if k == 0 {
                return Err(malformed("Batch without parts", "The first delimiter line is the close delimiter; a batch has at least one part.".into(), "MB-WIRE-18", 0, delim));
            }
            return Ok(parts); // the epilogue is ignored (MB-WIRE-9)
        }
        if k >= lim.max_parts {
            return Err(Problem::new(413, "limit-exceeded", "Too many parts", format!("Part {} would exceed the limit of {} parts per batch; no part ran.", k, lim.max_parts))
                .req("MB-STATUS-3")
                .at(Some(k), Some(delim))
                .limit("max_parts", lim.max_parts as u64));
        }

        // ---- the part header section ----
        let hs = q;
        let mut pos = hs;
        let mut fields: Vec<Field> = Vec::new();
        let body_start;
        let mut next_delim: Option<usize> = None;
        loop {
            if content[pos..].starts_with(b"\r\n") {
                if content[pos + 2..].starts_with(&dash) {
                    // no empty line: the CRLF begins the next delimiter (MB-WIRE-21)
                    body_start = pos;
                    next_delim = Some(pos + 2);
                } else {
                    body_start = pos + 2;
                }
                break;
            }
            if pos >= len {
                return Err(malformed("Missing close delimiter", "The content ends inside a part header section.".into(), "MB-WIRE-13", k, len));
            }
            if content[pos..].starts_with(&dash) {
                return Err(malformed("Delimiter inside a part header section", format!("The line at byte {} starts with the boundary but the header section has not ended with an empty line.", pos), "MB-PART-11", k, pos));
            }
            let window_end = len.min(hs + lim.max_part_header_bytes + 2);
            let term = content[pos..window_end].iter().position(|&c| c == b'\r' || c == b'\n').map(|p| p + pos);
            let e = match term {
                Some(e) => e,
                None if window_end < len => {
                    return Err(header_too_large(k, hs, lim));
                }
                None => {
                    return Err(malformed("Missing close delimiter", "The content ends inside a part header line.".into(), "MB-WIRE-13", k, len));
                }
            };
            if content[e] == b'\n' {
                return Err(malformed("Bare LF in a part header section", format!("The header line at byte {} of part {} ends with a bare LF; part header lines end with CRLF.", pos, k), "MB-WIRE-8", k, pos));
            }
            if content.get(e + 1) != Some(&b'\n') {
                return Err(malformed("Bare CR in a part header section", format!("The header line at byte {} of part {} ends with a bare CR; part header lines end with CRLF.", pos, k), "MB-WIRE-8", k, pos));
            }
            // limits on the section (MB-STATUS-3, MB-LIMIT-5)
            if e + 2 - hs > lim.max_part_header_bytes {
                return Err(header_too_large(k, hs, lim));
            }
            if fields.len() + 1 > lim.max_part_fields {
                return Err(Problem::new(431, "limit-exceeded", "Too many part header fields", format!("The header section of part {} has more than {} field lines; no part ran.", k, lim.max_part_fields))
                    .req("MB-LIMIT-5")
                    .at(Some(k), Some(hs))
                    .limit("max_part_fields", lim.max_part_fields as u64));
            }
            let line = &content[pos..e];
            // field-line = field-name ":" OWS field-value OWS (MB-PART-11)
            if line.first().map_or(false, |&c| c == b' ' || c == b'\t') {
                return Err(malformed("Folded part header line", format!("The line at byte {} continues the previous field (obs-fold); part header fields are never folded.", pos), "MB-PART-11", k, pos));
            }
            let colon = match line.iter().position(|&c| c == b':') {
                Some(c) => c,
                None => return Err(malformed("Invalid part header line", format!("The line at byte {} is not a field line: it has no colon.", pos), "MB-PART-11", k, pos)),
            };
            let name = &line[..colon];
            if !is_token(name) {
                return Err(malformed("Invalid part header field name", format!("The field name at byte {} is not a token (empty, or whitespace before the colon).", pos), "MB-PART-11", k, pos));
            }
            let value = trim_ows(&line[colon + 1..]);
            if !is_field_value(value) {
                return Err(malformed("Invalid part header field value", format!("The field value at byte {} holds an octet a field value does not allow.", pos), "MB-PART-11", k, pos));
            }
            fields.push(Field { name: String::from_utf8_lossy(name).into_owned(), value: value.to_vec(), offset: pos });
            pos = e + 2;
        }

        // ---- the fields mixbatch reads (MB-PART-2, MB-PART-4, MB-PART-10, MB-WIRE-20) ----
        let mut method: Option<String> = None;
        let mut cid: Option<(Vec<u8>, usize)> = None;
        let mut clen: Option<(usize, usize)> = None;
        for f in &fields {
            let lname = f.name.to_ascii_lowercase();
            match lname.as_str() {
                "http-method" => {
                    if method.is_some() {
                        return Err(malformed("Repeated Http-Method", format!("Part {} carries a second Http-Method field at byte {}.", k, f.offset), "MB-PART-2", k, f.offset));
                    }
                    if !is_token(&f.value) {
                        return Err(malformed("Invalid Http-Method", format!("The Http-Method value at byte {} is not a method token.", f.offset), "MB-PART-2", k, f.offset));
                    }
                    method = Some(String::from_utf8_lossy(&f.value).into_owned());
                }
                "content-id" => {
                    if cid.is_some() {
                        return Err(malformed("Repeated Content-Id", format!("Part {} carries a second Content-Id field at byte {}.", k, f.offset), "MB-PART-4", k, f.offset));
                    }
                    let v = &f.value;
                    let ok = v.len() >= 2 && v[0] == b'<' && v[v.len() - 1] == b'>' && uri::parse_ref(&v[1..v.len() - 1]).is_some();
                    if !ok {
                        return Err(malformed("Invalid Content-Id", format!("The Content-Id at byte {} is not \"<\" URI-reference \">\".", f.offset), "MB-PART-4", k, f.offset));
                    }
                    cid = Some((v.clone(), f.offset));
                }
                "content-length" => {
                    if clen.is_some() {
                        return Err(malformed("Repeated Content-Length", format!("Part {} carries a second Content-Length field at byte {}.", k, f.offset), "MB-WIRE-20", k, f.offset));
                    }
                    if f.value.is_empty() || !f.value.iter().all(|c| c.is_ascii_digit()) {
                        return Err(malformed("Invalid Content-Length", format!("The Content-Length at byte {} is not 1*DIGIT.", f.offset), "MB-WIRE-20", k, f.offset));
                    }
                    let t = std::str::from_utf8(&f.value).unwrap().trim_start_matches('0');
                    let n = if t.is_empty() { 0 } else if t.len() > 15 { usize::MAX } else { t.parse().unwrap_or(usize::MAX) };
                    clen = Some((n, f.offset));
                }
                other if FORBIDDEN.contains(&other) => {
                    return Err(malformed("Forbidden field in a request part", format!("Part {} carries the field {} at byte {}, which a request part must not carry.", k, f.name, f.offset), "MB-PART-10", k, f.offset));
                }
                _ => {}
            }
        }
        let method = match method {
            Some(m) => m,
            None => return Err(malformed("Missing Http-Method", format!("Part {} has no Http-Method field.", k), "MB-PART-2", k, hs)),
        };
        let (content_id, content_id_offset) = match cid {
            Some(c) => c,
            None => return Err(malformed("Missing Content-Id", format!("Part {} has no Content-Id field.", k), "MB-PART-4", k, hs)),
        };
        if let Some((n, _)) = clen {
            if n > lim.max_part_bytes {
                return Err(part_too_large(k, hs, lim));
            }
        }

        // ---- the body: up to the next CRLF dash-boundary (MB-WIRE-8, MB-WIRE-17) ----
        let dpos = match next_delim {
            Some(d) => d,
            None => {
                let mut from = body_start;
                loop {
                    match find(content, &dash, from) {
                        None => {
                            if len - body_start > lim.max_part_bytes {
                                return Err(part_too_large(k, hs, lim));
                            }
                            return Err(malformed("Missing close delimiter", "The content ends inside a part body without the close delimiter.".into(), "MB-WIRE-13", k, len));
                        }
                        Some(p) => {
                            if p >= body_start + 2 && &content[p - 2..p] == b"\r\n" {
                                break p;
                            }
                            if p > body_start && content[p - 1] == b'\n' {
                                return Err(malformed("Bare LF before a delimiter line", format!("The line at byte {} starts with the boundary after a bare LF.", p), "MB-WIRE-8", k + 1, p));
                            }
                            from = p + 1;
                        }
                    }
                }
            }
        };
        let body_end = if next_delim.is_some() { body_start } else { dpos - 2 };
        if body_end - body_start > lim.max_part_bytes {
            return Err(part_too_large(k, hs, lim));
        }
        if let Some((n, off)) = clen {
            if n != body_end - body_start {
                return Err(malformed("Content-Length mismatch", format!("Part {} declares Content-Length {} but its body has {} octets.", k, n, body_end - body_start), "MB-WIRE-17", k, off));
            }
        }
        parts.push(ReqPart { header_offset: hs, fields, method, content_id, content_id_offset, body: body_start..body_end });
        delim = dpos;
    }
}

fn header_too_large(k: usize, hs: usize, lim: &Limits) -> Problem {
    Problem::new(431, "limit-exceeded", "Part header section too large", format!("The header section of part {} exceeds {} octets; no part ran.", k, lim.max_part_header_bytes))
        .req("MB-STATUS-3")
        .at(Some(k), Some(hs))
        .limit("max_part_header_bytes", lim.max_part_header_bytes as u64)
}

fn part_too_large(k: usize, hs: usize, lim: &Limits) -> Problem {
    Problem::new(413, "limit-exceeded", "Part too large", format!("The body of part {} exceeds {} octets; no part ran.", k, lim.max_part_bytes))
        .req("MB-STATUS-3")
        .at(Some(k), Some(hs))
        .limit("max_part_bytes", lim.max_part_bytes as u64)
}

// ---------------------------------------------------------------------------------------
// Writing

/// One answered part, the same information for every representation (MB-MULTI-5).
#[derive(Debug, Clone)]
pub struct PartResult {
    pub index: usize,
    /// The resolved target in origin-form (XML and JSON href).
    pub href: Option<String>,
    /// The request part's Content-Id field value ("<...>"), echoed octet for octet
    /// (MB-RESP-3); None for the abort report.
    pub content_id: Option<Vec<u8>>,
    pub status: Option<u16>,
    pub outcome: Option<&'static str>,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

/// True when the dash-boundary occurs at the start of `body` or after any LF in it
/// (MB-WIRE-6).
pub fn collides(body: &[u8], boundary: &[u8]) -> bool {
    let mut dash = b"--".to_vec();
    dash.extend_from_slice(boundary);
    if body.starts_with(&dash) {
        return true;
    }
    let mut from = 0;
    while let Some(p) = find(body, &dash, from) {
        if p > 0 && body[p - 1] == b'\n' {
            return true;
        }
        from = p + 1;
    }
    false
}

/// Writes one response part: delimiter line, Http-Status-Code, Content-Id, Batch-Outcome,
/// the sub-response's fields, Content-Length, the empty line, the body and the CRLF that
/// begins the next delimiter. All lines end with CRLF (MB-WIRE-7); no padding (MB-WIRE-12).
pub fn write_part(out: &mut Vec<u8>, boundary: &[u8], p: &PartResult) {
    out.extend_from_slice(b"--");
    out.extend_from_slice(boundary);
    out.extend_from_slice(b"\r\n");
    if let Some(s) = p.status {
        out.extend_from_slice(format!("Http-Status-Code: {}\r\n", s).as_bytes());
    }
    if let Some(c) = &p.content_id {
        out.extend_from_slice(b"Content-Id: ");
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(o) = p.outcome {
        out.extend_from_slice(format!("Batch-Outcome: {}\r\n", o).as_bytes());
    }
    for (n, v) in &p.headers {
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", p.body.len()).as_bytes());
    out.extend_from_slice(&p.body);
    out.extend_from_slice(b"\r\n");
}

pub fn write_close(out: &mut Vec<u8>, boundary: &[u8]) {
    out.extend_from_slice(b"--");
    out.extend_from_slice(boundary);
    out.extend_from_slice(b"--\r\n");
}
