//! URI references (RFC 3986): strict validation of the grammar (MB-PART-4), resolution by
//! §5.2 (MB-PART-5), the same-origin comparison of MB-SUB-2 and the path normalisation the
//! router and the nesting check share (MB-SUB-4).

#[derive(Debug, Clone, PartialEq, Default)]
pub struct UriRef {
    pub scheme: Option<String>,
    pub authority: Option<String>,
    pub path: String,
    pub query: Option<String>,
    pub fragment: Option<String>,
}

fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~".contains(&c)
}
fn is_sub_delim(c: u8) -> bool {
    b"!$&'()*+,;=".contains(&c)
}

/// Checks that every octet is allowed by `extra`/unreserved/sub-delims or is a valid
/// pct-encoded triplet.
fn valid_chars(s: &[u8], extra: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == b'%' {
            if i + 2 >= s.len() {
                return false;
            }
            if !(s[i + 1].is_ascii_hexdigit() && s[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
            continue;
        }
        if !(is_unreserved(c) || is_sub_delim(c) || extra.contains(&c)) {
            return false;
        }
        i += 1;
    }
    true
}

fn valid_ipv4(s: &[u8]) -> bool {
    let parts: Vec<&[u8]> = s.split(|&c| c == b'.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.iter().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || p[0] != b'0')
                && std::str::from_utf8(p).unwrap().parse::<u16>().unwrap() <= 255
        })
}

fn valid_ipv6(s: &[u8]) -> bool {
    // Up to 8 h16 groups, at most one "::", optionally ending in an IPv4 address.
    let text = match std::str::from_utf8(s) {
        Ok(t) => t,
        Err(_) => return false,
    };
    let (head, tail, compressed) = match text.find("::") {
        Some(p) => (&text[..p], &text[p + 2..], true),
        None => (text, "", false),
    };
    if compressed && tail.contains("::") {
        return false;
    }
    let groups = |part: &str| -> Option<(usize, bool)> {
        if part.is_empty() {
            return Some((0, false));
        }
        let items: Vec<&str> = part.split(':').collect();
        let mut n = 0;
        let mut v4 = false;
        for (k, it) in items.iter().enumerate() {
            if k == items.len() - 1 && it.contains('.') {
                if !valid_ipv4(it.as_bytes()) {
                    return None;
                }
                n += 2;
                v4 = true;
            } else if it.is_empty() || it.len() > 4 || !it.bytes().all(|c| c.is_ascii_hexdigit()) {
                return None;
            } else {
                n += 1;
            }
        }
        Some((n, v4))
    };
    let (hn, hv4) = match groups(head) {
        Some(x) => x,
        None => return false,
    };
    let (tn, _) = match groups(tail) {
        Some(x) => x,
        None => return false,
    };
    if compressed {
        !hv4 && hn + tn <= 7
    } else {
        hn == 8
    }
}

fn valid_ip_literal(s: &[u8]) -> bool {
    // s is the content between [ and ]
    if let Some(rest) = s.strip_prefix(b"v").or_else(|| s.strip_prefix(b"V")) {
        let dot = match rest.iter().position(|&c| c == b'.') {
            Some(d) => d,
            None => return false,
        };
        let (hex, tail) = (&rest[..dot], &rest[dot + 1..]);
        return !hex.is_empty()
            && hex.iter().all(|c| c.is_ascii_hexdigit())
            && !tail.is_empty()
            && tail.iter().all(|&c| is_unreserved(c) || is_sub_delim(c) || c == b':');
    }
    valid_ipv6(s)
}

/// authority = [ userinfo "@" ] host [ ":" port ]
pub fn valid_authority(a: &[u8]) -> bool {
    let (userinfo, hostport) = match a.iter().position(|&c| c == b'@') {
        Some(p) => (Some(&a[..p]), &a[p + 1..]),
        None => (None, a),
    };
    if let Some(u) = userinfo {
        if !valid_chars(u, b":") {
            return false;
        }
    }
    let (host, port) = if hostport.first() == Some(&b'[') {
        let close = match hostport.iter().position(|&c| c == b']') {
            Some(p) => p,
            None => return false,
        };
        if !valid_ip_literal(&hostport[1..close]) {
            return false;
        }
        let rest = &hostport[close + 1..];
        if rest.is_empty() {
            (&hostport[..close + 1], None)
        } else if rest[0] == b':' {
            (&hostport[..close + 1], Some(&rest[1..]))
        } else {
            return false;
        }
    } else {
        match hostport.iter().position(|&c| c == b':') {
            Some(p) => (&hostport[..p], Some(&hostport[p + 1..])),
            None => (hostport, None),
        }
    };
    if host.first() != Some(&b'[') && !valid_chars(host, b"") {
        return false;
    }
    match port {
        Some(p) => p.iter().all(|c| c.is_ascii_digit()),
        None => true,
    }
}

/// Parses and validates a URI-reference (RFC 3986 §4.1) exactly.
pub fn parse_ref(s: &[u8]) -> Option<UriRef> {
    if s.iter().any(|&c| c <= 0x20 || c >= 0x7f) {
        return None;
    }
    let mut r = UriRef::default();
    let mut rest = s;
    // scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" before any / ? #
    if let Some(colon) = s.iter().position(|&c| c == b':' || c == b'/' || c == b'?' || c == b'#') {
        if s[colon] == b':' {
            let cand = &s[..colon];
            if !cand.is_empty()
                && cand[0].is_ascii_alphabetic()
                && cand.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.')
            {
                r.scheme = Some(String::from_utf8_lossy(cand).into_owned());
                rest = &s[colon + 1..];
            } else {
                // a colon in the first segment of a relative reference: path-noscheme fails
                return None;
            }
        }
    }
    if let Some(h) = rest.iter().position(|&c| c == b'#') {
        let frag = &rest[h + 1..];
        if !valid_chars(frag, b":@/?") {
            return None;
        }
        r.fragment = Some(String::from_utf8_lossy(frag).into_owned());
        rest = &rest[..h];
    }
    if let Some(q) = rest.iter().position(|&c| c == b'?') {
        let query = &rest[q + 1..];
        if !valid_chars(query, b":@/?") {
            return None;
        }
        r.query = Some(String::from_utf8_lossy(query).into_owned());
        rest = &rest[..q];
    }
    if rest.starts_with(b"//") {
        let a = &rest[2..];
        let end = a.iter().position(|&c| c == b'/').unwrap_or(a.len());
        if !valid_authority(&a[..end]) {
            return None;
        }
        r.authority = Some(String::from_utf8_lossy(&a[..end]).into_owned());
        rest = &a[end..];
    }
    if !valid_chars(rest, b":@/") {
        return None;
    }
    r.path = String::from_utf8_lossy(rest).into_owned();
    Some(r)
}

/// RFC 3986 §5.2.4.
pub fn remove_dot_segments(input: &str) -> String {
    let mut inp = input.to_string();
    let mut out = String::new();
    while !inp.is_empty() {
        if inp.starts_with("../") {
            inp.drain(..3);
        } else if inp.starts_with("./") {
            inp.drain(..2);
        } else if inp.starts_with("/./") {
            inp.replace_range(..3, "/");
        } else if inp == "/." {
            inp = "/".to_string();
        } else if inp.starts_with("/../") {
            inp.replace_range(..4, "/");
            pop_last(&mut out);
        } else if inp == "/.." {
            inp = "/".to_string();
            pop_last(&mut out);
        } else if inp == "." || inp == ".." {
            inp.clear();
        } else {
            let start = if inp.starts_with('/') { 1 } else { 0 };
            let end = inp[start..].find('/').map(|p| p + start).unwrap_or(inp.len());
            out.push_str(&inp[..end]);
            inp.drain(..end);
        }
    }
    out
}

fn pop_last(out: &mut String) {
    match out.rfind('/') {
        Some(p) => out.truncate(p),
        None => out.clear(),
    }
}

/// RFC 3986 §5.2.2 (strict), with §5.2.3 merge.
pub fn resolve(base: &UriRef, r: &UriRef) -> UriRef {
    let mut t = UriRef::default();
    if r.scheme.is_some() {
        t.scheme = r.scheme.clone();
        t.authority = r.authority.clone();
        t.path = remove_dot_segments(&r.path);
        t.query = r.query.clone();
    } else {
        if r.authority.is_some() {
            t.authority = r.authority.clone();
            t.path = remove_dot_segments(&r.path);
            t.query = r.query.clone();
        } else {
            if r.path.is_empty() {
                t.path = base.path.clone();
                t.query = if r.query.is_some() { r.query.clone() } else { base.query.clone() };
            } else {
                if r.path.starts_with('/') {
                    t.path = remove_dot_segments(&r.path);
                } else {
                    let merged = if base.authority.is_some() && base.path.is_empty() {
                        format!("/{}", r.path)
                    } else {
                        match base.path.rfind('/') {
                            Some(p) => format!("{}{}", &base.path[..=p], r.path),
                            None => r.path.clone(),
                        }
                    };
                    t.path = remove_dot_segments(&merged);
                }
                t.query = r.query.clone();
            }
            t.authority = base.authority.clone();
        }
        t.scheme = base.scheme.clone();
    }
    t.fragment = r.fragment.clone();
    t
}

/// origin-form of a resolved URI: path (at least "/") and query.
pub fn origin_form(u: &UriRef) -> String {
    let mut s = if u.path.is_empty() { "/".to_string() } else { u.path.clone() };
    if let Some(q) = &u.query {
        s.push('?');
        s.push_str(q);
    }
    s
}

/// Splits host and port of an authority without userinfo. Port None means absent/empty.
fn host_port(a: &str) -> (String, Option<String>) {
    let (host, port) = if a.starts_with('[') {
        match a.find(']') {
            Some(p) => (&a[..=p], a[p + 1..].strip_prefix(':')),
            None => (a, None),
        }
    } else {
        match a.rfind(':') {
            Some(p) => (&a[..p], Some(&a[p + 1..])),
            None => (a, None),
        }
    };
    (host.to_ascii_lowercase(), port.filter(|p| !p.is_empty()).map(|p| p.to_string()))
}

fn port_number(p: &Option<String>, scheme: &str) -> Option<u64> {
    match p {
        None => Some(if scheme == "https" { 443 } else { 80 }),
        Some(digits) => {
            let t = digits.trim_start_matches('0');
            if t.is_empty() {
                Some(0)
            } else if t.len() > 6 {
                None
            } else {
                t.parse().ok()
            }
        }
    }
}

/// Same origin (MB-SUB-2): scheme and host case-insensitive, absent or empty port equal
/// to the default, port compared as a decimal number; userinfo never matches.
pub fn same_origin(scheme_a: &str, auth_a: &str, scheme_b: &str, auth_b: &str) -> bool {
    if !scheme_a.eq_ignore_ascii_case(scheme_b) || auth_a.contains('@') || auth_b.contains('@') {
        return false;
    }
    let s = scheme_a.to_ascii_lowercase();
    let (ha, pa) = host_port(auth_a);
    let (hb, pb) = host_port(auth_b);
    if ha.is_empty() || ha != hb {
        return false;
    }
    match (port_number(&pa, &s), port_number(&pb, &s)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Decodes percent-encoded unreserved characters (RFC 3986 §6.2.2.2); other triplets stay.
pub fn decode_unreserved(path: &str) -> String {
    let b = path.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(c) = h {
                if is_unreserved(c) {
                    out.push(c);
                    i += 3;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The path a router sees: unreserved escapes decoded, dot segments removed.
pub fn routing_path(target: &str) -> String {
    let path = target.split('?').next().unwrap_or("");
    let d = remove_dot_segments(&decode_unreserved(path));
    if d.is_empty() {
        "/".to_string()
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> UriRef {
        UriRef { scheme: Some("http".into()), authority: Some("a".into()), path: "/b/c/d;p".into(), query: Some("q".into()), fragment: None }
    }

    fn res(r: &str) -> String {
        let t = resolve(&base(), &parse_ref(r.as_bytes()).unwrap());
        let mut s = format!("{}://{}{}", t.scheme.clone().unwrap(), t.authority.clone().unwrap_or_default(), t.path);
        if let Some(q) = &t.query {
            s.push('?');
            s.push_str(q);
        }
        if let Some(f) = &t.fragment {
            s.push('#');
            s.push_str(f);
        }
        s
    }

    #[test]
    fn rfc3986_examples() {
        assert_eq!(res("g"), "http://a/b/c/g");
        assert_eq!(res("./g"), "http://a/b/c/g");
        assert_eq!(res("g/"), "http://a/b/c/g/");
        assert_eq!(res("/g"), "http://a/g");
        assert_eq!(res("?y"), "http://a/b/c/d;p?y");
        assert_eq!(res("g?y"), "http://a/b/c/g?y");
        assert_eq!(res("#s"), "http://a/b/c/d;p?q#s");
        assert_eq!(res(""), "http://a/b/c/d;p?q");
        assert_eq!(res("."), "http://a/b/c/");
        assert_eq!(res(".."), "http://a/b/");
        assert_eq!(res("../.."), "http://a/");
        assert_eq!(res("../../../g"), "http://a/g");
        assert_eq!(res("/./g"), "http://a/g");
        assert_eq!(res("g;x=1/../y"), "http://a/b/c/y");
    }

    #[test]
    fn grammar() {
        for ok in ["books/1", "/a?b=c", "", "http://example.org:443/x", "a:b", "$(0)", "http://[::1]:80/", "books/(1)", "%7E", "http://h:/x"] {
            assert!(parse_ref(ok.as_bytes()).is_some(), "{}", ok);
        }
        for bad in ["a b", "%zz", "%7", "http://example.org:+443/x", "http://example.org:443x/x", "1a:b", "a[b]", "[::1]", "é", "http://[zz]/"] {
            assert!(parse_ref(bad.as_bytes()).is_none(), "{}", bad);
        }
    }

    #[test]
    fn origins() {
        assert!(same_origin("http", "Example.test", "HTTP", "example.test:80"));
        assert!(same_origin("http", "example.test:08099", "http", "example.test:8099"));
        assert!(same_origin("http", "example.test:", "http", "example.test"));
        assert!(!same_origin("http", "example.test.", "http", "example.test"));
        assert!(!same_origin("http", "u@example.test", "http", "example.test"));
        assert!(!same_origin("http", "", "http", ""));
    }

    #[test]
    fn routing() {
        assert_eq!(routing_path("/api/%62atch?x"), "/api/batch");
        assert_eq!(routing_path("/api/x/../batch"), "/api/batch");
        assert_eq!(routing_path("/a%2Fb"), "/a%2Fb");
        assert_eq!(routing_path("/a%7"), "/a%7");
    }
}
