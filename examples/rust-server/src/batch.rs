//! The batch endpoint: checks on the batch request before its content is read, envelope
//! validation (MB-PROC-1), target checks (MB-SUB-2/3/4/8, MB-PROC-19), and the run:
//! as-if-sequential (MB-PROC-2), streamed in order (MB-PROC-4), error policy (MB-PROC-5/6),
//! atomic mode (MB-PROC-8/14/15/16), references (MB-PROC-18..21) and the time budget with
//! its abort part (MB-SEC-1, MB-STATUS-6/12/14).

use crate::envelope::{self, PartResult, ReqPart};
use crate::fields::{self, Policy};
use crate::http::{self, BodyError, BodyOut, Conn, Framing, Head};
use crate::jsonform::{self, Summary};
use crate::limits::{self, BATCH_ENDPOINT};
use crate::problem::Problem;
use crate::resources::{self, App, Store};
use crate::subrequest::{self, Piece, Request, Response};
use crate::uri::{self, UriRef};
use crate::xml;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rep {
    Multipart,
    Xml,
    Json,
}

/// MB-MULTI-1, MB-STATUS-9: multipart/mixed when Accept is absent or empty or weighs it at
/// least as high as any other form; None when Accept admits no form.
pub fn negotiate(accept: Option<&[u8]>) -> Option<Rep> {
    let ranges = match accept.and_then(fields::parse_accept) {
        None => return Some(Rep::Multipart),
        Some(r) => r,
    };
    let qm = fields::accept_weight(&ranges, "multipart/mixed");
    let qx = fields::accept_weight(&ranges, xml::MEDIA_TYPE);
    let qj = fields::accept_weight(&ranges, jsonform::MEDIA_TYPE);
    if qm > 0 && qm >= qx && qm >= qj {
        Some(Rep::Multipart)
    } else if qx > 0 && qx >= qj {
        Some(Rep::Xml)
    } else if qj > 0 {
        Some(Rep::Json)
    } else {
        None
    }
}

/// Holds one place of the in-flight budget (MB-LIMIT-6) until dropped.
struct Slot<'a>(&'a App);
impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.batches_in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

fn problem_response(conn: &mut Conn, head: &Head, p: &Problem, extra: &[(&str, &str)], close: bool) -> bool {
    let mut h: Vec<(String, Vec<u8>)> = vec![("Content-Type".into(), b"application/problem+json".to_vec())];
    for (n, v) in extra {
        h.push((n.to_string(), v.as_bytes().to_vec()));
    }
    let close = close || !head.keep_alive;
    let ok = http::send(conn, head.minor, head.method == "HEAD", p.status, &h, p.to_json().as_bytes(), close).is_ok();
    ok && !close
}

/// A refusal decided from the header section: the content is read and discarded first
/// when that is possible, so the connection can answer pipelined requests (MB-PIPE-1).
fn refuse_early(conn: &mut Conn, head: &Head, p: &Problem, extra: &[(&str, &str)]) -> bool {
    let discarded = conn.discard_body(head);
    problem_response(conn, head, p, extra, !discarded)
}

const ALLOW: &str = "POST, OPTIONS";

/// Serves one request to the batch endpoint; returns whether the connection stays open.
pub fn serve(app: &App, conn: &mut Conn, head: &Head) -> bool {
    let lim = app.limits;
    if head.method == "OPTIONS" {
        // MB-LIMIT-2: the capabilities document, Accept-Post and Allow.
        let discarded = conn.discard_body(head);
        let h = vec![
            ("Content-Type".to_string(), b"application/vnd.mixbatch.capabilities+json".to_vec()),
            ("Accept-Post".to_string(), b"multipart/mixed".to_vec()),
            ("Allow".to_string(), ALLOW.as_bytes().to_vec()),
        ];
        let close = !discarded || !head.keep_alive;
        return http::send(conn, head.minor, false, 200, &h, limits::capabilities(&lim).as_bytes(), close).is_ok() && !close;
    }
    if head.method != "POST" {
        // MB-METHOD-2: 405 for a method the server knows, 501 for one it does not.
        let known = ["GET", "HEAD", "PUT", "DELETE", "PATCH", "CONNECT", "TRACE"].contains(&head.method.as_str());
        let p = if known {
            Problem::new(405, "method-not-allowed", "Method Not Allowed", format!("The batch endpoint takes POST (and OPTIONS), not {}.", head.method))
        } else {
            Problem::new(501, "method-not-implemented", "Not Implemented", format!("The method {} is not known to this server.", head.method))
        }
        .req("MB-METHOD-2");
        return refuse_early(conn, head, &p, &[("Allow", ALLOW)]);
    }
    if head.authority.is_empty() {
        let p = Problem::new(400, "bad-request", "Batch request without a host", "The batch request has an empty Host, so its target URI, the base for every part's target, has no authority.".into());
        return refuse_early(conn, head, &p, &[]);
    }
    // MB-INTER-6: no content coding is decoded here.
    if let Some(ce) = fields::joined(&head.headers, "content-encoding") {
        let codings: Vec<&[u8]> = ce.split(|&c| c == b',').map(fields::trim_ows).filter(|c| !c.is_empty()).collect();
        if codings.iter().any(|c| !c.eq_ignore_ascii_case(b"identity")) {
            let p = Problem::new(415, "unsupported-content-coding", "Unsupported content coding", "This server decodes no content coding; send the batch without Content-Encoding.".into()).req("MB-INTER-6");
            return refuse_early(conn, head, &p, &[("Accept-Encoding", "identity")]);
        }
    }
    // MB-WIRE-2, MB-WIRE-4
    if fields::count(&head.headers, "content-type") > 1 {
        let p = Problem::new(400, "malformed-batch", "Repeated Content-Type", "The batch request carries more than one Content-Type field, so it names no single boundary.".into()).req("MB-WIRE-4");
        return refuse_early(conn, head, &p, &[]);
    }
    let boundary = match envelope::boundary_from(fields::first(&head.headers, "content-type")) {
        Ok(b) => b,
        Err(p) => {
            let extra: &[(&str, &str)] = if p.status == 415 { &[("Accept-Post", "multipart/mixed")] } else { &[] };
            return refuse_early(conn, head, &p, extra);
        }
    };
    // MB-PROC-7, MB-PROC-12, MB-PROC-17
    let modes = match fields::joined(&head.headers, "batch-mode") {
        None => fields::Modes::default(),
        Some(v) => match fields::batch_modes(&v) {
            Ok(m) => m,
            Err(bad) => {
                let p = Problem::new(501, "mode-not-implemented", "Batch-Mode not implemented", format!("This server implements the modes atomic and references; the Batch-Mode field names {:?}.", bad)).req("MB-PROC-12");
                return refuse_early(conn, head, &p, &[]);
            }
        },
    };
    // MB-MULTI-1, MB-STATUS-9
    let accept = fields::joined(&head.headers, "accept");
    let rep = match negotiate(accept.as_deref()) {
        Some(r) => r,
        None => {
            let p = Problem::new(406, "not-acceptable", "Not Acceptable", "Accept admits none of multipart/mixed, application/xml and application/vnd.mixbatch.multistatus+json.".into()).req("MB-STATUS-9");
            return refuse_early(conn, head, &p, &[]);
        }
    };
    // MB-STATUS-3 by the declared length: answered before the content is read, then closed.
    if let Framing::Length(n) = head.framing {
        if n > lim.max_batch_bytes {
            let p = too_large_batch(&lim);
            return problem_response(conn, head, &p, &[], true);
        }
    }
    // MB-LIMIT-6: the budget of batches in flight, held from here to the response's end.
    if app.batches_in_flight.fetch_add(1, Ordering::SeqCst) >= lim.max_batches_in_flight {
        app.batches_in_flight.fetch_sub(1, Ordering::SeqCst);
        let p = Problem::new(503, "busy", "Too many batches in flight", format!("The server holds {} batches already; send this one again later. No part ran.", lim.max_batches_in_flight))
            .req("MB-LIMIT-6")
            .limit("max_batches_in_flight", lim.max_batches_in_flight as u64);
        return refuse_early(conn, head, &p, &[("Retry-After", "1")]);
    }
    let _slot = Slot(app);

    if conn.send_continue(head).is_err() {
        return false;
    }
    let content = match conn.read_body(head, lim.max_batch_bytes) {
        Ok(c) => c,
        Err(BodyError::TooLarge) => return problem_response(conn, head, &too_large_batch(&lim), &[], true),
        Err(BodyError::Bad(d)) => {
            let p = Problem::new(400, "bad-request", "Bad request content", d);
            return problem_response(conn, head, &p, &[], true);
        }
        Err(BodyError::Io) => return false,
    };
    let deadline = head.started + Duration::from_millis(lim.batch_timeout_ms);
    if Instant::now() >= deadline {
        // MB-STATUS-12: out of budget before any part ran.
        let p = Problem::new(503, "batch-timeout", "Batch budget exhausted", "The batch took longer to arrive than its time budget; no part ran.".into()).req("MB-STATUS-12");
        return problem_response(conn, head, &p, &[("Retry-After", "1")], false);
    }

    // MB-PROC-1: the whole envelope, every target and every limit before any part runs.
    let parts = match envelope::parse_request(&content, &boundary, &lim) {
        Ok(p) => p,
        Err(p) => return problem_response(conn, head, &p, &[], false),
    };
    let base = UriRef {
        scheme: Some(head.scheme.clone()),
        authority: Some(head.authority.clone()),
        path: head.target.split('?').next().unwrap_or("/").to_string(),
        query: head.target.split_once('?').map(|(_, q)| q.to_string()),
        fragment: None,
    };
    let mut plans: Vec<Plan> = Vec::with_capacity(parts.len());
    for (k, part) in parts.iter().enumerate() {
        match plan_part(k, part, &base, modes.references) {
            Ok(p) => plans.push(p),
            Err(p) => return problem_response(conn, head, &p, &[], false),
        }
    }

    let prefer = fields::joined(&head.headers, "prefer").and_then(|p| fields::batch_on_error(&p));
    run(app, conn, head, &content, &parts, &plans, &base, rep, modes, prefer, deadline)
}

/// The checks that need the batch request's context (targets, methods, references), for
/// every part in order (used by the vector tests).
#[cfg(test)]
pub fn check_parts(parts: &[ReqPart], base: &UriRef, references: bool) -> Result<Vec<String>, Problem> {
    let mut hrefs = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        hrefs.push(plan_part(k, part, base, references)?.href);
    }
    Ok(hrefs)
}

fn too_large_batch(lim: &limits::Limits) -> Problem {
    Problem::new(413, "limit-exceeded", "Batch too large", format!("The batch content exceeds {} octets; no part ran.", lim.max_batch_bytes))
        .req("MB-STATUS-3")
        .limit("max_batch_bytes", lim.max_batch_bytes as u64)
}

struct Plan {
    /// Resolved origin-form target before any substitution.
    href: String,
    /// Content-Id pieces when it holds references (references mode only).
    cid_refs: Option<Vec<Piece>>,
    /// Sub-request fields with their pieces when a value holds references.
    fields: Vec<(String, Vec<u8>, Option<Vec<Piece>>)>,
}

fn bad(title: &str, detail: String, req: &'static str, k: usize, off: usize) -> Problem {
    Problem::new(400, "malformed-batch", title, detail).req(req).at(Some(k), Some(off))
}

/// Resolves a part's target against the batch request's target URI (MB-PART-5) and applies
/// MB-SUB-2 and MB-SUB-4. Err carries (title, detail, requirement).
fn resolve_target(r: &[u8], base: &UriRef) -> Result<String, (&'static str, String, &'static str)> {
    let u = uri::parse_ref(r).ok_or(("Invalid Content-Id", "The target is not a URI reference.".to_string(), "MB-PART-4"))?;
    if u.fragment.is_some() {
        return Err(("Fragment in a target", "A part's target carries a fragment.".into(), "MB-SUB-2"));
    }
    if u.scheme.is_none() && u.authority.is_some() {
        return Err(("Network-path reference", "A part's target is a network-path reference (//host/...).".into(), "MB-SUB-2"));
    }
    if let Some(s) = &u.scheme {
        let same = match &u.authority {
            Some(a) => uri::same_origin(s, a, base.scheme.as_deref().unwrap_or("http"), base.authority.as_deref().unwrap_or("")),
            None => false,
        };
        if !same {
            return Err(("Target on another origin", "A part's absolute target names another scheme or authority than the batch request's.".into(), "MB-SUB-2"));
        }
    }
    let t = uri::resolve(base, &u);
    let href = uri::origin_form(&t);
    if uri::routing_path(&href) == BATCH_ENDPOINT {
        return Err(("Nested batch", "A part's target is the batch endpoint; batches do not nest.".into(), "MB-SUB-4"));
    }
    Ok(href)
}

fn plan_part(k: usize, part: &ReqPart, base: &UriRef, references: bool) -> Result<Plan, Problem> {
    // MB-SUB-3: CONNECT and TRACE, case-sensitively, and nothing else.
    if part.method == "CONNECT" || part.method == "TRACE" {
        let off = part.fields.iter().find(|f| f.name.eq_ignore_ascii_case("http-method")).map(|f| f.offset).unwrap_or(part.header_offset);
        return Err(bad("Method not allowed in a part", format!("Part {} uses {}, which a batch never carries.", k, part.method), "MB-SUB-3", k, off));
    }
    let target = part.target_ref();
    // MB-SUB-8
    if target == b"*" {
        return Err(bad("Asterisk target", format!("Part {} targets <*>.", k), "MB-SUB-8", k, part.content_id_offset));
    }
    let mut cid_refs = None;
    let mut fields_out = Vec::new();
    if references {
        // MB-PROC-19: references look back only; none with a field name in Content-Id.
        let check = |pieces: &[Piece], off: usize, in_cid: bool| -> Result<(), Problem> {
            for p in pieces {
                if let Piece::Ref { index, field, text } = p {
                    if *index >= k {
                        return Err(bad("Reference to a part that has not run", format!("Part {} refers to part {} by {}; a reference names an earlier part.", k, index, text), "MB-PROC-19", k, off));
                    }
                    if in_cid && field.is_some() {
                        return Err(bad("Field reference in a Content-Id", format!("Part {}'s Content-Id holds {}; a target takes $(N) only.", k, text), "MB-PROC-19", k, off));
                    }
                }
            }
            Ok(())
        };
        let pieces = subrequest::scan(target).map_err(|e| bad("Malformed reference", format!("Part {}'s Content-Id: {}.", k, e), "MB-PROC-19", k, part.content_id_offset))?;
        check(&pieces, part.content_id_offset, true)?;
        if subrequest::has_refs(&pieces, target) {
            cid_refs = Some(pieces);
        }
        for f in &part.fields {
            let ln = f.name.to_ascii_lowercase();
            if ln == "http-method" || ln == "content-id" {
                continue;
            }
            let pieces = subrequest::scan(&f.value).map_err(|e| bad("Malformed reference", format!("Part {}'s field {}: {}.", k, f.name, e), "MB-PROC-19", k, f.offset))?;
            check(&pieces, f.offset, false)?;
            let refs = if subrequest::has_refs(&pieces, &f.value) { Some(pieces) } else { None };
            fields_out.push((f.name.clone(), f.value.clone(), refs));
        }
    } else {
        for (n, v) in part.sub_fields() {
            fields_out.push((n, v, None));
        }
    }
    // MB-PART-5, MB-SUB-2, MB-SUB-4 (a target holding references is checked again after
    // substitution).
    let href = resolve_target(target, base).map_err(|(t, d, r)| bad(t, format!("Part {}: {}", k, d), r, k, part.content_id_offset))?;
    Ok(Plan { href, cid_refs, fields: fields_out })
}

/// What later parts may read of an earlier one (references).
#[derive(Clone)]
struct Record {
    ran_ok: bool,
    headers: Vec<(String, Vec<u8>)>,
    target: UriRef,
    status: Option<u16>,
}

/// Substitutes the references of one value; Err names the reference that cannot be
/// resolved (MB-PROC-20) and why.
fn substitute(pieces: &[Piece], records: &[Record], base: &UriRef) -> Result<Vec<u8>, (String, String)> {
    let mut out = Vec::new();
    for p in pieces {
        match p {
            Piece::Lit(l) => out.extend_from_slice(l),
            Piece::Ref { index, field, text } => {
                let r = &records[*index];
                if !r.ran_ok {
                    let why = match r.status {
                        Some(s) => format!("part {} failed with {}, so {} names nothing", index, s, text),
                        None => format!("part {} did not run, so {} names nothing", index, text),
                    };
                    return Err((text.clone(), why));
                }
                let name = field.as_deref().unwrap_or("Location");
                let lines: Vec<&Vec<u8>> = r.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v).collect();
                if lines.len() != 1 {
                    return Err((text.clone(), format!("the response of part {} has {} {} field lines, so {} names nothing", index, lines.len(), name, text)));
                }
                if field.is_some() {
                    out.extend_from_slice(lines[0]);
                } else {
                    let loc = uri::parse_ref(lines[0]).ok_or_else(|| (text.clone(), format!("the Location of part {} is no URI reference", index)))?;
                    let abs = uri::resolve(&r.target, &loc);
                    let same = uri::same_origin(abs.scheme.as_deref().unwrap_or(""), abs.authority.as_deref().unwrap_or(""), base.scheme.as_deref().unwrap_or("http"), base.authority.as_deref().unwrap_or(""));
                    if !same {
                        return Err((text.clone(), format!("the Location of part {} is not on the batch's origin", index)));
                    }
                    out.extend_from_slice(uri::origin_form(&abs).as_bytes());
                }
            }
        }
    }
    Ok(out)
}

fn unresolved_result(k: usize, plan: &Plan, part: &ReqPart, reference: String, why: String) -> PartResult {
    let mut p = Problem::new(424, "reference-unresolved", "Reference unresolved", why).req("MB-PROC-20");
    p.reference = Some(reference);
    PartResult {
        index: k,
        href: Some(plan.href.clone()),
        content_id: Some(part.content_id.clone()),
        status: None,
        outcome: Some("skipped"),
        headers: vec![("Content-Type".into(), b"application/problem+json".to_vec())],
        body: p.to_json().into_bytes(),
    }
}

fn skipped(k: usize, plan: &Plan, part: &ReqPart) -> PartResult {
    PartResult { index: k, href: Some(plan.href.clone()), content_id: Some(part.content_id.clone()), status: None, outcome: Some("skipped"), headers: Vec::new(), body: Vec::new() }
}

fn abort_part(k: usize, status: u16, detail: String) -> PartResult {
    let p = Problem::new(status, "batch-aborted", "Batch aborted", detail).req("MB-STATUS-6").at(Some(k), None);
    PartResult { index: k, href: None, content_id: None, status: None, outcome: Some("aborted"), headers: vec![("Content-Type".into(), b"application/problem+json".to_vec())], body: p.to_json().into_bytes() }
}

/// Writes parts in the negotiated representation.
struct Writer<'a> {
    out: BodyOut<'a>,
    rep: Rep,
    boundary: Vec<u8>,
    written: usize,
    summary: Summary,
    aborted: bool,
}

impl Writer<'_> {
    fn begin(&mut self) {
        match self.rep {
            Rep::Multipart => {}
            Rep::Xml => self.out.write(xml::begin().as_bytes()),
            Rep::Json => self.out.write(jsonform::begin().as_bytes()),
        }
    }
    /// Writes one part; false when the body would collide with the boundary (MB-WIRE-6).
    fn part(&mut self, p: &PartResult) -> bool {
        match self.rep {
            Rep::Multipart => {
                if envelope::collides(&p.body, &self.boundary) {
                    return false;
                }
                let mut o = Vec::with_capacity(p.body.len() + 256);
                envelope::write_part(&mut o, &self.boundary, p);
                self.out.write(&o);
            }
            Rep::Xml => self.out.write(xml::part(p).as_bytes()),
            Rep::Json => self.out.write(jsonform::part(p, self.written == 0).as_bytes()),
        }
        if p.outcome == Some("aborted") {
            self.aborted = true;
        } else {
            self.summary.count(p);
        }
        self.written += 1;
        true
    }
    fn end(&mut self) {
        match self.rep {
            Rep::Multipart => {
                let mut o = Vec::new();
                envelope::write_close(&mut o, &self.boundary);
                self.out.write(&o);
            }
            Rep::Xml => self.out.write(xml::end().as_bytes()),
            Rep::Json => self.out.write(jsonform::end(&self.summary).as_bytes()),
        }
        // MB-STATUS-8/15: the summary trailer, counted from the parts written; an aborted
        // response carries none.
        let trailers = if self.out.chunked && !self.aborted { vec![("Batch-Summary".to_string(), self.summary.sf_dictionary())] } else { vec![] };
        self.out.finish(&trailers);
    }
    /// Writes a part, or on a boundary collision the abort part in its place (a sender
    /// that cannot write a part without the delimiter fails, MB-WIRE-6).
    fn emit(&mut self, p: &PartResult) -> bool {
        if self.part(p) {
            return true;
        }
        let a = abort_part(p.index, 500, format!("The body of part {} holds the response boundary; the server stopped rather than write a broken envelope.", p.index));
        self.part(&a);
        false
    }
}

#[allow(clippy::too_many_arguments)]
fn run(app: &App, conn: &mut Conn, head: &Head, content: &[u8], parts: &[ReqPart], plans: &[Plan], base: &UriRef, rep: Rep, modes: fields::Modes, prefer: Option<Policy>, deadline: Instant) -> bool {
    let stop_policy = modes.atomic || prefer == Some(Policy::Stop);
    let mut h: Vec<(String, Vec<u8>)> = Vec::new();
    let boundary = crate::rand::boundary(32).into_bytes();
    let (status, ctype) = match rep {
        Rep::Multipart => (200, format!("multipart/mixed; boundary={}", String::from_utf8_lossy(&boundary))),
        Rep::Xml => (207, "application/xml; charset=utf-8".to_string()),
        Rep::Json => (207, jsonform::MEDIA_TYPE.to_string()),
    };
    h.push(("Content-Type".into(), ctype.into_bytes()));
    h.push(("Cache-Control".into(), b"no-transform".to_vec())); // MB-INTER-4
    h.push(("Vary".into(), b"Accept".to_vec())); // MB-MULTI-10
    // MB-PROC-6, MB-PROC-13: lower case, unquoted; atomic names stop only when asked.
    match prefer {
        Some(Policy::Stop) => h.push(("Preference-Applied".into(), b"batch-on-error=stop".to_vec())),
        Some(Policy::Continue) if !modes.atomic => h.push(("Preference-Applied".into(), b"batch-on-error=continue".to_vec())),
        _ => {}
    }
    let chunked = head.minor >= 1;
    let close = !chunked || !head.keep_alive;
    if chunked {
        h.push(("Trailer".into(), b"Batch-Summary".to_vec()));
        h.push(("Transfer-Encoding".into(), b"chunked".to_vec()));
    }
    if conn.write_all(&http::head_bytes(head.minor, status, &h, close)).is_err() {
        return false;
    }
    let mut w = Writer { out: BodyOut { conn, chunked, failed: false }, rep, boundary, written: 0, summary: Summary::default(), aborted: false };
    w.begin();

    let mut records: Vec<Record> = Vec::with_capacity(parts.len());
    let record_of = |href: &str, status: Option<u16>, resp: Option<&Response>| -> Record {
        Record {
            ran_ok: status.map_or(false, |s| s < 400),
            // 7.7: `$(N:name)` reads the fields MB-RESP-4 carries into part N's response part.
            headers: resp.map(subrequest::part_headers).unwrap_or_default(),
            target: UriRef {
                scheme: base.scheme.clone(),
                authority: base.authority.clone(),
                path: href.split('?').next().unwrap_or("/").to_string(),
                query: href.split_once('?').map(|(_, q)| q.to_string()),
                fragment: None,
            },
            status,
        }
    };

    // Builds and runs part k; Ok(result, response) or Err(result) for an unresolved reference.
    let prepare = |k: usize, records: &[Record]| -> Result<(Request, String), PartResult> {
        let (part, plan) = (&parts[k], &plans[k]);
        let mut href = plan.href.clone();
        if let Some(pieces) = &plan.cid_refs {
            let t = substitute(pieces, records, base).map_err(|(r, why)| unresolved_result(k, plan, part, r, why))?;
            href = resolve_target(&t, base).map_err(|(_, d, _)| unresolved_result(k, plan, part, String::from_utf8_lossy(part.target_ref()).into_owned(), format!("after substitution: {}", d)))?;
        }
        let mut headers = Vec::with_capacity(plan.fields.len() + 2);
        for (n, v, refs) in &plan.fields {
            match refs {
                None => headers.push((n.clone(), v.clone())),
                Some(pieces) => {
                    let val = substitute(pieces, records, base).map_err(|(r, why)| unresolved_result(k, plan, part, r, why))?;
                    headers.push((n.clone(), val));
                }
            }
        }
        subrequest::inherit_credentials(&mut headers, &head.headers);
        let req = Request { method: part.method.clone(), target: href.clone(), authority: head.authority.clone(), headers, body: content[part.body.clone()].to_vec(), deadline: Some(deadline) };
        Ok((req, href))
    };
    let result_of = |k: usize, href: String, resp: &Response| -> PartResult {
        let body = if parts[k].method == "HEAD" { Vec::new() } else { resp.body.clone() };
        PartResult { index: k, href: Some(href), content_id: Some(parts[k].content_id.clone()), status: Some(resp.status), outcome: None, headers: subrequest::part_headers(resp), body }
    };
    let budget_abort = |k: usize| abort_part(k, 503, format!("The batch ran out of its {} ms time budget; parts from {} on have no answer.", app.limits.batch_timeout_ms, k));

    if modes.atomic {
        // One working copy of the store, committed whole or dropped (MB-PROC-15/16).
        let mut guard = app.store.lock().unwrap_or_else(|e| e.into_inner());
        let mut work: Store = guard.clone();
        let mut results: Vec<PartResult> = Vec::new();
        let mut failure: Option<usize> = None;
        let mut abort_at: Option<usize> = None;
        for k in 0..parts.len() {
            if Instant::now() >= deadline {
                abort_at = Some(k);
                break;
            }
            match prepare(k, &records) {
                Err(unresolved) => {
                    // MB-PROC-21
                    results.push(unresolved);
                    failure = Some(k);
                    break;
                }
                Ok((req, href)) => {
                    let resp = resources::handle(app, &req, Some(&mut work));
                    if resp.interrupted {
                        abort_at = Some(k);
                        break;
                    }
                    records.push(record_of(&href, Some(resp.status), Some(&resp)));
                    results.push(result_of(k, href, &resp));
                    if resp.status >= 400 {
                        failure = Some(k); // MB-PROC-8
                        break;
                    }
                }
            }
        }
        if failure.is_none() && abort_at.is_none() {
            *guard = work; // committed before the first part is written (MB-PROC-16)
        }
        drop(guard);
        let ran = results.len();
        for (i, r) in results.iter_mut().enumerate() {
            let last_failed = failure == Some(i);
            if !last_failed && (failure.is_some() || abort_at.is_some()) {
                r.outcome = Some("rolled-back");
            }
        }
        let mut ok = true;
        for r in &results {
            if ok {
                ok = w.emit(r);
            }
        }
        if ok {
            if let Some(k) = abort_at {
                w.part(&budget_abort(k)); // MB-PROC-14
            } else {
                for k in ran..parts.len() {
                    if !ok {
                        break;
                    }
                    ok = w.emit(&skipped(k, &plans[k], &parts[k]));
                }
            }
        }
        w.end();
        return !w.out.failed && !close;
    }

    let mut stopped = false;
    for k in 0..parts.len() {
        if stopped {
            records.push(record_of(&plans[k].href, None, None));
            if !w.emit(&skipped(k, &plans[k], &parts[k])) {
                break;
            }
            continue;
        }
        if Instant::now() >= deadline {
            w.part(&budget_abort(k));
            break;
        }
        let (req, href) = match prepare(k, &records) {
            Ok(x) => x,
            Err(unresolved) => {
                // MB-PROC-20: skipped, and not a failure for the error policy.
                records.push(record_of(&plans[k].href, None, None));
                if !w.emit(&unresolved) {
                    break;
                }
                continue;
            }
        };
        let resp = resources::handle(app, &req, None);
        if resp.interrupted {
            w.part(&budget_abort(k));
            break;
        }
        records.push(record_of(&href, Some(resp.status), Some(&resp)));
        let r = result_of(k, href, &resp);
        if !w.emit(&r) {
            break;
        }
        if resp.status >= 400 && stop_policy {
            stopped = true; // MB-PROC-6
        }
        if w.out.failed {
            break; // the client went away
        }
    }
    w.end();
    !w.out.failed && !close
}
