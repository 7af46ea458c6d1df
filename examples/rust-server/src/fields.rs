//! Field syntax of RFC 9110 §5 and the field values the batch endpoint reads: media types
//! with parameters (§8.3), Accept (§12.5.1), Prefer (RFC 7240 §2) and Batch-Mode (spec 7.5, 7.7).

pub fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

pub fn is_token(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&c| is_tchar(c))
}

/// field-value = *field-content: VCHAR, obs-text, SP and HTAB, with no leading or trailing
/// whitespace (the caller trims OWS first).
pub fn is_field_value(v: &[u8]) -> bool {
    v.iter().all(|&c| c == b'\t' || c == b' ' || (0x21..=0x7e).contains(&c) || c >= 0x80)
}

pub fn trim_ows(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// All values of a field (case-insensitive name), joined as a list (RFC 9110 §5.3).
pub fn joined(headers: &[(String, Vec<u8>)], name: &str) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for (n, v) in headers {
        if n.eq_ignore_ascii_case(name) {
            match &mut out {
                None => out = Some(v.clone()),
                Some(o) => {
                    o.extend_from_slice(b", ");
                    o.extend_from_slice(v);
                }
            }
        }
    }
    out
}

pub fn count(headers: &[(String, Vec<u8>)], name: &str) -> usize {
    headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).count()
}

pub fn first<'a>(headers: &'a [(String, Vec<u8>)], name: &str) -> Option<&'a [u8]> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_slice())
}

/// Reads a quoted-string starting at `s[i] == '"'`; returns the unescaped octets and the
/// index after the closing quote.
pub fn quoted_string(s: &[u8], mut i: usize) -> Option<(Vec<u8>, usize)> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    let mut out = Vec::new();
    while i < s.len() {
        match s[i] {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                let c = *s.get(i + 1)?;
                if !(c == b'\t' || c == b' ' || (0x21..=0x7e).contains(&c) || c >= 0x80) {
                    return None;
                }
                out.push(c);
                i += 2;
            }
            c if c == b'\t' || c == b' ' || c == 0x21 || (0x23..=0x5b).contains(&c) || (0x5d..=0x7e).contains(&c) || c >= 0x80 => {
                out.push(c);
                i += 1
            }
            _ => return None,
        }
    }
    None
}

fn skip_ows(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    i
}

fn take_token(s: &[u8], mut i: usize) -> (usize, usize) {
    let start = i;
    while i < s.len() && is_tchar(s[i]) {
        i += 1;
    }
    (start, i)
}

#[derive(Debug, PartialEq)]
pub struct MediaType {
    pub type_: String,
    pub subtype: String,
    /// (lower-cased name, unquoted value)
    pub params: Vec<(String, Vec<u8>)>,
}

/// media-type = type "/" subtype parameters; parameters = *( OWS ";" OWS [ parameter ] ),
/// parameter = name "=" ( token / quoted-string ), no whitespace around "=" (RFC 9110 §5.6.6).
pub fn parse_media_type(s: &[u8]) -> Option<MediaType> {
    let s = trim_ows(s);
    let (a, b) = take_token(s, 0);
    if a == b || s.get(b) != Some(&b'/') {
        return None;
    }
    let (c, d) = take_token(s, b + 1);
    if c == d {
        return None;
    }
    let mut mt = MediaType {
        type_: String::from_utf8_lossy(&s[a..b]).to_ascii_lowercase(),
        subtype: String::from_utf8_lossy(&s[c..d]).to_ascii_lowercase(),
        params: Vec::new(),
    };
    let mut i = d;
    loop {
        i = skip_ows(s, i);
        if i >= s.len() {
            return Some(mt);
        }
        if s[i] != b';' {
            return None;
        }
        i = skip_ows(s, i + 1);
        if i >= s.len() || s[i] == b';' {
            continue; // empty parameter
        }
        let (n0, n1) = take_token(s, i);
        if n0 == n1 || s.get(n1) != Some(&b'=') {
            return None;
        }
        let name = String::from_utf8_lossy(&s[n0..n1]).to_ascii_lowercase();
        let v = n1 + 1;
        let (value, next) = if s.get(v) == Some(&b'"') {
            quoted_string(s, v)?
        } else {
            let (v0, v1) = take_token(s, v);
            if v0 == v1 {
                return None;
            }
            (s[v0..v1].to_vec(), v1)
        };
        mt.params.push((name, value));
        i = next;
    }
}

/// One element of Accept: media range and weight in thousandths.
#[derive(Debug)]
pub struct AcceptRange {
    pub type_: String,
    pub subtype: String,
    pub q: u32,
}

fn parse_qvalue(v: &[u8]) -> Option<u32> {
    // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
    let (first, rest) = v.split_first()?;
    let frac = if rest.is_empty() {
        &[][..]
    } else {
        if rest[0] != b'.' || rest.len() > 4 {
            return None;
        }
        &rest[1..]
    };
    if !frac.iter().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut n: u32 = 0;
    for k in 0..3 {
        n = n * 10 + frac.get(k).map(|c| (c - b'0') as u32).unwrap_or(0);
    }
    match first {
        b'0' => Some(n),
        b'1' if n == 0 => Some(1000),
        _ => None,
    }
}

/// Splits a list at commas that are outside quoted-strings.
pub fn split_list(s: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut in_q = false;
    while i < s.len() {
        match s[i] {
            b'"' => in_q = !in_q,
            b'\\' if in_q => i += 1,
            b',' if !in_q => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start.min(s.len())..]);
    out
}

/// Parses Accept; malformed elements are ignored. Returns None when the field has no
/// valid element (treated as absent).
pub fn parse_accept(s: &[u8]) -> Option<Vec<AcceptRange>> {
    let mut out = Vec::new();
    for el in split_list(s) {
        let el = trim_ows(el);
        if el.is_empty() {
            continue;
        }
        let mt = match parse_media_type(el) {
            Some(m) => m,
            None => continue,
        };
        if mt.type_ == "*" && mt.subtype != "*" {
            continue;
        }
        let mut q = 1000;
        let mut ok = true;
        for (n, v) in &mt.params {
            if n == "q" {
                match parse_qvalue(v) {
                    Some(x) => q = x,
                    None => ok = false,
                }
                break;
            }
        }
        if ok {
            out.push(AcceptRange { type_: mt.type_, subtype: mt.subtype, q });
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// The weight Accept gives a media type: that of the most specific matching range
/// (RFC 9110 §12.5.1), 0 when none matches. Parameters of a range other than q are ignored.
pub fn accept_weight(ranges: &[AcceptRange], media: &str) -> u32 {
    let (t, st) = media.split_once('/').unwrap_or((media, ""));
    let mut best: Option<(u8, u32)> = None;
    for r in ranges {
        let spec = if r.type_ == t && r.subtype == st {
            3
        } else if r.type_ == t && r.subtype == "*" {
            2
        } else if r.type_ == "*" && r.subtype == "*" {
            1
        } else {
            continue;
        };
        match best {
            Some((s, _)) if s >= spec => {}
            _ => best = Some((spec, r.q)),
        }
    }
    best.map(|(_, q)| q).unwrap_or(0)
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    Continue,
    Stop,
}

/// Reads the batch-on-error preference from the joined Prefer field by RFC 7240 §2's
/// grammar (MB-PROC-11, MB-PROC-13): the first instance decides; an unrecognised value
/// leaves the preference absent.
pub fn batch_on_error(prefer: &[u8]) -> Option<Policy> {
    for el in split_list(prefer) {
        let el = trim_ows(el);
        if el.is_empty() {
            continue;
        }
        // preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )
        let (a, b) = take_token(el, 0);
        if a == b {
            continue;
        }
        if !el[a..b].eq_ignore_ascii_case(b"batch-on-error") {
            continue;
        }
        let mut i = skip_ows(el, b);
        if el.get(i) != Some(&b'=') {
            return None; // no value: not a value the server recognises
        }
        i = skip_ows(el, i + 1);
        let (value, next) = if el.get(i) == Some(&b'"') {
            match quoted_string(el, i) {
                Some(x) => x,
                None => return None,
            }
        } else {
            let (v0, v1) = take_token(el, i);
            (el[v0..v1].to_vec(), v1)
        };
        // what follows must be parameters or nothing
        let rest = skip_ows(el, next);
        if rest < el.len() && el[rest] != b';' {
            return None;
        }
        return if value.eq_ignore_ascii_case(b"stop") {
            Some(Policy::Stop)
        } else if value.eq_ignore_ascii_case(b"continue") {
            Some(Policy::Continue)
        } else {
            None
        };
    }
    None
}

#[derive(Debug, Default, PartialEq)]
pub struct Modes {
    pub atomic: bool,
    pub references: bool,
}

/// Reads Batch-Mode as a list (MB-PROC-17): empty elements ignored, duplicates are one
/// mode. Err carries the first element that is no mode this server implements
/// (MB-PROC-7, MB-PROC-12); a field with no element at all is also an error.
pub fn batch_modes(value: &[u8]) -> Result<Modes, String> {
    let mut m = Modes::default();
    let mut any = false;
    for el in value.split(|&c| c == b',') {
        let el = trim_ows(el);
        if el.is_empty() {
            continue;
        }
        any = true;
        match el {
            b"atomic" => m.atomic = true,
            b"references" => m.references = true,
            other => return Err(String::from_utf8_lossy(other).into_owned()),
        }
    }
    if !any {
        return Err(String::new());
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types() {
        let m = parse_media_type(b"Multipart/Mixed; Boundary=\"a b\"").unwrap();
        assert_eq!(m.type_, "multipart");
        assert_eq!(m.params, vec![("boundary".to_string(), b"a b".to_vec())]);
        assert!(parse_media_type(b"multipart/mixed; boundary=b1; x").is_none());
        assert!(parse_media_type(b"multipart/mixed; =x").is_none());
        assert!(parse_media_type(b"multipart/mixed; boundary = b1").is_none());
        assert!(parse_media_type(b"multipart/mixed;;boundary=b1;").is_some());
    }

    #[test]
    fn prefer() {
        assert_eq!(batch_on_error(b"batch-on-error=stop"), Some(Policy::Stop));
        assert_eq!(batch_on_error(b"Batch-On-Error=\"STOP\", batch-on-error=continue"), Some(Policy::Stop));
        assert_eq!(batch_on_error(b"batch-on-error=continue, batch-on-error=stop"), Some(Policy::Continue));
        assert_eq!(batch_on_error(b"batch-on-error=maybe, batch-on-error=stop"), None);
        assert_eq!(batch_on_error(b"respond-async, batch-on-error=stop"), Some(Policy::Stop));
        assert_eq!(batch_on_error(b"batch-on-error=stop; x=1"), Some(Policy::Stop));
        assert_eq!(batch_on_error(b"respond-async; batch-on-error=stop"), None);
        assert_eq!(batch_on_error(b"x=\"a, batch-on-error=stop\""), None);
        assert_eq!(batch_on_error(b"batch-on-error=\"st\\op\""), Some(Policy::Stop));
        assert_eq!(batch_on_error(b"batch-on-error=\"stop \""), None);
        assert_eq!(batch_on_error(b"batch-on-error=stop."), None);
    }

    #[test]
    fn modes() {
        assert_eq!(batch_modes(b"atomic,").unwrap(), Modes { atomic: true, references: false });
        assert!(batch_modes(b" , ").is_err());
        assert!(batch_modes(b"Atomic").is_err());
        assert!(batch_modes(b"atomic;strict").is_err());
        assert!(batch_modes(b"\"atomic\"").is_err());
        assert!(batch_modes(b"atomic strict").is_err());
    }

    #[test]
    fn accept() {
        let r = parse_accept(b"application/xml;q=0.9, multipart/*;q=0.5").unwrap();
        assert_eq!(accept_weight(&r, "application/xml"), 900);
        assert_eq!(accept_weight(&r, "multipart/mixed"), 500);
        assert_eq!(accept_weight(&r, "application/vnd.mixbatch.multistatus+json"), 0);
    }
}
