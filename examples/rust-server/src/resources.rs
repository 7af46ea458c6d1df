//! The server's own resources, reached alike by standalone requests and sub-requests
//! (MB-SUB-1: one router, the same checks), and the test resources of spec 14.4
//! (MB-TEST-1..7) under /res/.

use crate::base64;
use crate::date;
use crate::json;
use crate::limits::{self, Limits};
use crate::subrequest::{Request, Response};
use crate::uri;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Member {
    pub content_type: Vec<u8>,
    pub body: Vec<u8>,
    pub version: u64,
    pub modified: u64,
}

/// Everything a request can change. An atomic batch works on a copy and commits it whole
/// (MB-PROC-8, MB-PROC-15, MB-PROC-16).
#[derive(Debug, Clone, Default)]
pub struct Store {
    pub notes: BTreeMap<String, Member>,
    pub next_id: u64,
    pub versions: u64,
}

pub struct App {
    pub limits: Limits,
    pub store: Mutex<Store>,
    pub batches_in_flight: AtomicUsize,
    pub connections: AtomicUsize,
    pub started: u64,
}

impl App {
    pub fn new(limits: Limits) -> App {
        App {
            limits,
            store: Mutex::new(Store { next_id: 1, ..Store::default() }),
            batches_in_flight: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            started: date::now_secs(),
        }
    }
}

pub const OK: &str = "/res/ok";
pub const ECHO: &str = "/res/echo";
pub const ETAG: &str = "/res/etag";
pub const NOTES: &str = "/res/notes";

const KNOWN_METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];

fn problem(status: u16, title: &str, detail: &str) -> Response {
    let mut o = String::from("{\"type\":\"about:blank\",\"title\":");
    json::push_str(&mut o, title);
    o.push_str(&format!(",\"status\":{}", status));
    if !detail.is_empty() {
        o.push_str(",\"detail\":");
        json::push_str(&mut o, detail);
    }
    o.push('}');
    Response::new(status).with_body("application/problem+json", o.into_bytes())
}

fn not_allowed(method: &str, allow: &str) -> Response {
    if KNOWN_METHODS.contains(&method) {
        problem(405, "Method Not Allowed", &format!("{} is not allowed here.", method)).header("Allow", allow)
    } else {
        problem(501, "Not Implemented", &format!("The method {} is not known to this server.", method)).header("Allow", allow)
    }
}

fn is_get(m: &str) -> bool {
    m == "GET" || m == "HEAD"
}

/// Routes one request. `store` is Some inside an atomic batch (its working copy); otherwise
/// the shared store is locked for the duration of the one request that needs it.
pub fn handle(app: &App, req: &Request, store: Option<&mut Store>) -> Response {
    let path = uri::routing_path(&req.target);
    let query = req.target.split_once('?').map(|(_, q)| q).unwrap_or("");
    let _ = query;
    if path == OK {
        return match req.method.as_str() {
            "GET" | "HEAD" => Response::new(200).with_body("text/plain; charset=utf-8", b"ok\n".to_vec()),
            "OPTIONS" => Response::new(204).header("Allow", "GET, HEAD, OPTIONS"),
            m => not_allowed(m, "GET, HEAD, OPTIONS"),
        };
    }
    if path == ECHO {
        return echo(req);
    }
    if path == ETAG {
        return etag_resource(app, req);
    }
    if let Some(code) = path.strip_prefix("/res/status/") {
        if !is_get(&req.method) {
            return not_allowed(&req.method, "GET, HEAD");
        }
        return status_resource(code);
    }
    if let Some(ms) = path.strip_prefix("/res/delay/") {
        if !is_get(&req.method) {
            return not_allowed(&req.method, "GET, HEAD");
        }
        return delay_resource(ms, req);
    }
    if let Some(n) = path.strip_prefix("/res/random/") {
        if !is_get(&req.method) {
            return not_allowed(&req.method, "GET, HEAD");
        }
        return random_resource(n);
    }
    if path == NOTES || path.starts_with("/res/notes/") {
        return match store {
            Some(s) => notes(s, req, &path),
            None => {
                let mut guard = app.store.lock().unwrap_or_else(|e| e.into_inner());
                notes(&mut guard, req, &path)
            }
        };
    }
    if path == "/" {
        return match req.method.as_str() {
            "GET" | "HEAD" => Response::new(200).with_body(
                "text/plain; charset=utf-8",
                format!("mbserver: a mixbatch batch server; batch endpoint {}\n", limits::BATCH_ENDPOINT).into_bytes(),
            ),
            m => not_allowed(m, "GET, HEAD"),
        };
    }
    problem(404, "Not Found", &format!("No resource at {}.", path))
}

/// MB-TEST-2: method, target, authority, headers in order, body or body_base64. Every
/// method a sub-request may carry is answered 200 (HEAD as GET without content).
fn echo(req: &Request) -> Response {
    let mut o = String::from("{\"method\":");
    json::push_str(&mut o, &req.method);
    o.push_str(",\"target\":");
    json::push_str(&mut o, &req.target);
    o.push_str(",\"authority\":");
    json::push_str(&mut o, &req.authority);
    o.push_str(",\"headers\":");
    json::push_fields(&mut o, &req.headers);
    match std::str::from_utf8(&req.body) {
        Ok(text) => {
            o.push_str(",\"body\":");
            json::push_str(&mut o, text);
        }
        Err(_) => {
            o.push_str(",\"body_base64\":");
            json::push_str(&mut o, &base64::encode(&req.body));
        }
    }
    o.push('}');
    Response::new(200).with_body("application/json", o.into_bytes())
}

/// MB-TEST-6: 200..=599 answered with that status (no content for 204 and 304), anything
/// else 400.
fn status_resource(code: &str) -> Response {
    let n: Option<u16> = if code.len() == 3 && code.bytes().all(|c| c.is_ascii_digit()) { code.parse().ok() } else { None };
    match n {
        Some(n) if (200..=599).contains(&n) => {
            if n == 204 || n == 304 {
                Response::new(n)
            } else {
                Response::new(n).with_body("text/plain; charset=utf-8", format!("status {}\n", n).into_bytes())
            }
        }
        _ => problem(400, "Bad Request", "The status resource takes a code from 200 to 599."),
    }
}

/// MB-TEST-7: 200 no sooner than ms after the request began to run. Inside a batch the
/// sleep stops at the batch's deadline and the response is marked interrupted, so that
/// the batch can abort (MB-SEC-1, MB-STATUS-6).
fn delay_resource(ms: &str, req: &Request) -> Response {
    let n: Option<u64> = if !ms.is_empty() && ms.len() <= 9 && ms.bytes().all(|c| c.is_ascii_digit()) { ms.parse().ok() } else { None };
    let n = match n {
        Some(n) if n <= limits::MAX_DELAY_MS => n,
        _ => return problem(400, "Bad Request", &format!("The delay resource takes 0 to {} milliseconds.", limits::MAX_DELAY_MS)),
    };
    let until = Instant::now() + Duration::from_millis(n);
    if let Some(deadline) = req.deadline {
        if deadline < until {
            let now = Instant::now();
            if deadline > now {
                std::thread::sleep(deadline - now);
            }
            let mut r = Response::new(503);
            r.interrupted = true;
            return r;
        }
    }
    let now = Instant::now();
    if until > now {
        std::thread::sleep(until - now);
    }
    Response::new(200).with_body("text/plain; charset=utf-8", format!("delayed {} ms\n", n).into_bytes())
}

/// MB-TEST-5: exactly n octets for n up to MAX_RANDOM, 400 beyond.
fn random_resource(n: &str) -> Response {
    let v: Option<usize> = if !n.is_empty() && n.len() <= 9 && n.bytes().all(|c| c.is_ascii_digit()) { n.parse().ok() } else { None };
    match v {
        Some(v) if v <= limits::MAX_RANDOM => Response::new(200).with_body("application/octet-stream", crate::rand::octets(v)),
        _ => problem(400, "Bad Request", &format!("The random resource takes 0 to {} octets.", limits::MAX_RANDOM)),
    }
}

fn etag_matches(list: &[u8], tag: &str, weak: bool) -> bool {
    let list = crate::fields::trim_ows(list);
    if list == b"*" {
        return true;
    }
    for el in crate::fields::split_list(list) {
        let el = crate::fields::trim_ows(el);
        let (el_weak, opaque) = match el.strip_prefix(b"W/") {
            Some(o) => (true, o),
            None => (false, el),
        };
        let (tag_weak, tag_opaque) = match tag.strip_prefix("W/") {
            Some(o) => (true, o),
            None => (false, tag),
        };
        if opaque == tag_opaque.as_bytes() && (weak || (!el_weak && !tag_weak)) {
            return true;
        }
    }
    false
}

/// MB-TEST-1's etag_resource: 200 with ETag and Last-Modified, with the preconditions of
/// RFC 9110 §13.2.2 evaluated for GET and HEAD.
fn etag_resource(app: &App, req: &Request) -> Response {
    if !is_get(&req.method) {
        return not_allowed(&req.method, "GET, HEAD");
    }
    let tag = "\"mb-etag-1\"";
    let modified = app.started;
    let lm = date::format(modified);
    let with = |r: Response| r.header("ETag", tag).header("Last-Modified", &lm);
    let h = &req.headers;
    if let Some(im) = crate::fields::joined(h, "if-match") {
        if !etag_matches(&im, tag, false) {
            return with(problem(412, "Precondition Failed", "If-Match did not match."));
        }
    } else if let Some(ius) = crate::fields::first(h, "if-unmodified-since") {
        if let Some(t) = date::parse(ius) {
            if modified > t {
                return with(problem(412, "Precondition Failed", "The resource changed since If-Unmodified-Since."));
            }
        }
    }
    if let Some(inm) = crate::fields::joined(h, "if-none-match") {
        if etag_matches(&inm, tag, true) {
            return with(Response::new(304));
        }
    } else if let Some(ims) = crate::fields::first(h, "if-modified-since") {
        if let Some(t) = date::parse(ims) {
            if modified <= t {
                return with(Response::new(304));
            }
        }
    }
    with(Response::new(200)).with_body("application/json", b"{\"name\":\"etag resource\",\"version\":1}".to_vec())
}

/// If-Match and If-None-Match on a sandbox member (RFC 9110 §13.2.2, steps 1 and 3):
/// Some(response) when a precondition decides the answer.
fn member_preconditions(req: &Request, current: Option<&str>) -> Option<Response> {
    if let Some(im) = crate::fields::joined(&req.headers, "if-match") {
        let ok = match current {
            Some(tag) => etag_matches(&im, tag, false),
            None => false,
        };
        if !ok {
            return Some(problem(412, "Precondition Failed", "If-Match did not match the member."));
        }
    }
    if let Some(inm) = crate::fields::joined(&req.headers, "if-none-match") {
        let matched = match current {
            Some(tag) => etag_matches(&inm, tag, true),
            None => false,
        };
        if matched {
            return Some(if is_get(&req.method) {
                let mut r = Response::new(304);
                r.headers.push(("ETag".into(), current.unwrap().as_bytes().to_vec()));
                r
            } else {
                problem(412, "Precondition Failed", "If-None-Match matched the member.")
            });
        }
    }
    None
}

fn member_tag(id: &str, m: &Member) -> String {
    format!("\"n{}-v{}\"", id, m.version)
}

fn valid_member_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

fn member_response(status: u16, id: &str, m: &Member) -> Response {
    let mut r = Response::new(status);
    r.headers.push(("Content-Type".into(), m.content_type.clone()));
    r.headers.push(("ETag".into(), member_tag(id, m).into_bytes()));
    r.headers.push(("Last-Modified".into(), date::format(m.modified).into_bytes()));
    r.body = m.body.clone();
    r
}

/// The sandbox collection (MB-TEST-3, MB-TEST-4): POST creates (201 + Location), members
/// answer GET, PUT (200 replace, 201 create) and DELETE (204, then 404). What was written is
/// read back octet for octet.
fn notes(store: &mut Store, req: &Request, path: &str) -> Response {
    let ctype = crate::fields::first(&req.headers, "content-type").map(|v| v.to_vec()).unwrap_or_else(|| b"application/octet-stream".to_vec());
    if path == NOTES {
        return match req.method.as_str() {
            "GET" | "HEAD" => {
                let mut o = String::from("{\"members\":[");
                let ids: Vec<String> = store.notes.keys().map(|k| json::quote(&format!("{}/{}", NOTES, k))).collect();
                o.push_str(&ids.join(","));
                o.push_str("]}");
                Response::new(200).with_body("application/json", o.into_bytes())
            }
            "POST" => {
                let id = loop {
                    let id = store.next_id.to_string();
                    store.next_id += 1;
                    if !store.notes.contains_key(&id) {
                        break id;
                    }
                };
                store.versions += 1;
                let m = Member { content_type: ctype, body: req.body.clone(), version: 1, modified: date::now_secs() };
                let mut r = member_response(201, &id, &m);
                r.headers.insert(0, ("Location".into(), format!("{}/{}", NOTES, id).into_bytes()));
                store.notes.insert(id, m);
                r
            }
            m => not_allowed(m, "GET, HEAD, POST"),
        };
    }
    let id = &path[NOTES.len() + 1..];
    if !valid_member_id(id) {
        return problem(404, "Not Found", "No such member.");
    }
    if ["GET", "HEAD", "PUT", "DELETE"].contains(&req.method.as_str()) {
        let tag = store.notes.get(id).map(|m| member_tag(id, m));
        if let Some(r) = member_preconditions(req, tag.as_deref()) {
            return r;
        }
    }
    match req.method.as_str() {
        "GET" | "HEAD" => match store.notes.get(id) {
            Some(m) => member_response(200, id, m),
            None => problem(404, "Not Found", "No such member."),
        },
        "PUT" => {
            let now = date::now_secs();
            store.versions += 1;
            match store.notes.get_mut(id) {
                Some(m) => {
                    m.content_type = ctype;
                    m.body = req.body.clone();
                    m.version += 1;
                    m.modified = now;
                    let m = m.clone();
                    member_response(200, id, &m)
                }
                None => {
                    let m = Member { content_type: ctype, body: req.body.clone(), version: 1, modified: now };
                    let mut r = member_response(201, id, &m);
                    r.headers.insert(0, ("Location".into(), format!("{}/{}", NOTES, id).into_bytes()));
                    store.notes.insert(id.to_string(), m);
                    r
                }
            }
        }
        "DELETE" => match store.notes.remove(id) {
            Some(_) => {
                store.versions += 1;
                Response::new(204)
            }
            None => problem(404, "Not Found", "No such member."),
        },
        m => not_allowed(m, "GET, HEAD, PUT, DELETE"),
    }
}
