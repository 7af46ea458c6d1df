//! Sub-requests and sub-responses as the in-process router sees them, the credential
//! inheritance of MB-SUB-5/6, and the `references` mode (spec 7.7, MB-PROC-18..20).

use std::time::Instant;

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// origin-form path and query, as received (a sub-request: its resolved target).
    pub target: String,
    /// The authority the request was addressed to (a sub-request: the batch's, MB-PART-13).
    pub authority: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// The batch's time budget, when the request is a sub-request (MB-SEC-1).
    pub deadline: Option<Instant>,
}

#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// The handler stopped because the batch's budget ran out (delay resource).
    pub interrupted: bool,
}

impl Response {
    pub fn new(status: u16) -> Response {
        Response { status, headers: Vec::new(), body: Vec::new(), interrupted: false }
    }
    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.as_bytes().to_vec()));
        self
    }
    pub fn with_body(mut self, content_type: &str, body: Vec<u8>) -> Response {
        self.headers.push(("Content-Type".to_string(), content_type.as_bytes().to_vec()));
        self.body = body;
        self
    }
}

/// The fields MB-RESP-4 leaves out of a response part.
pub const DROPPED_RESPONSE_FIELDS: &[&str] =
    &["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer", "content-length"];

pub fn part_headers(resp: &Response) -> Vec<(String, Vec<u8>)> {
    resp.headers
        .iter()
        .filter(|(n, _)| !DROPPED_RESPONSE_FIELDS.contains(&n.to_ascii_lowercase().as_str()))
        .cloned()
        .collect()
}

/// MB-SUB-5 / MB-SUB-6: the part's own fields, then the batch request's Authorization and
/// Cookie lines for each of the two the part does not carry itself. Nothing else of the
/// batch request reaches the sub-request.
pub fn inherit_credentials(part_fields: &mut Vec<(String, Vec<u8>)>, batch_headers: &[(String, Vec<u8>)]) {
    for name in ["authorization", "cookie"] {
        if part_fields.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            continue;
        }
        for (n, v) in batch_headers {
            if n.eq_ignore_ascii_case(name) {
                part_fields.push((n.clone(), v.clone()));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// References: reference = "$(" part-index [ ":" field-name ] ")"

#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Lit(Vec<u8>),
    Ref { index: usize, field: Option<String>, text: String },
}

/// Splits a value into literal octets and references. `$$(` is a literal `$(`; any other
/// `$` not followed by `(` is itself. A `$(` that does not open a valid reference is an
/// error (reported under MB-PROC-19).
pub fn scan(value: &[u8]) -> Result<Vec<Piece>, String> {
    let mut out: Vec<Piece> = Vec::new();
    let mut lit: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < value.len() {
        if value[i..].starts_with(b"$$(") {
            lit.extend_from_slice(b"$(");
            i += 3;
            continue;
        }
        if value[i..].starts_with(b"$(") {
            let close = match value[i..].iter().position(|&c| c == b')') {
                Some(p) => i + p,
                None => return Err(format!("unterminated reference at octet {}", i)),
            };
            let inner = &value[i + 2..close];
            let (idx, field) = match inner.iter().position(|&c| c == b':') {
                Some(c) => (&inner[..c], Some(&inner[c + 1..])),
                None => (inner, None),
            };
            let idx_ok = !idx.is_empty() && idx.iter().all(|c| c.is_ascii_digit()) && (idx == b"0" || idx[0] != b'0');
            if !idx_ok || idx.len() > 9 {
                return Err(format!("invalid part index in reference {}", String::from_utf8_lossy(&value[i..=close])));
            }
            if let Some(f) = field {
                if !crate::fields::is_token(f) {
                    return Err(format!("invalid field name in reference {}", String::from_utf8_lossy(&value[i..=close])));
                }
            }
            if !lit.is_empty() {
                out.push(Piece::Lit(std::mem::take(&mut lit)));
            }
            out.push(Piece::Ref {
                index: std::str::from_utf8(idx).unwrap().parse().unwrap(),
                field: field.map(|f| String::from_utf8_lossy(f).into_owned()),
                text: String::from_utf8_lossy(&value[i..=close]).into_owned(),
            });
            i = close + 1;
            continue;
        }
        lit.push(value[i]);
        i += 1;
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    Ok(out)
}

/// Whether `value`, scanned into `pieces`, changes under substitution: it holds a reference
/// or an escaped `$$(` (MB-PROC-18: `$$(` stands for a literal `$(`).
pub fn has_refs(pieces: &[Piece], value: &[u8]) -> bool {
    match pieces {
        [] => false,
        [Piece::Lit(l)] => l.as_slice() != value,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn scanning() {
        let p = scan(b"$(0)").unwrap();
        assert_eq!(p, vec![Piece::Ref { index: 0, field: None, text: "$(0)".into() }]);
        let p = scan(b"a$$(1)b$c").unwrap();
        assert_eq!(p, vec![Piece::Lit(b"a$(1)b$c".to_vec())]);
        let p = scan(b"W/$(12:ETag)").unwrap();
        assert_eq!(p[1], Piece::Ref { index: 12, field: Some("ETag".into()), text: "$(12:ETag)".into() });
        assert!(scan(b"$(01)").is_err());
        assert!(scan(b"$(x)").is_err());
        assert!(scan(b"$(1").is_err());
    }

    #[test]
    fn credentials() {
        let batch = vec![("Authorization".to_string(), b"Bearer a".to_vec()), ("Cookie".to_string(), b"a=1".to_vec()), ("Cookie".to_string(), b"b=2".to_vec()), ("Accept".to_string(), b"x".to_vec())];
        let mut part = vec![("cookie".to_string(), b"c=3".to_vec())];
        inherit_credentials(&mut part, &batch);
        assert_eq!(part.len(), 2);
        assert_eq!(part[1].0, "Authorization");
    }
}
