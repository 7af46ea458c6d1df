//! The spec's byte-exact vectors (spec/examples): every request vector is parsed and its
//! parts or its error compared with the expected result; every deterministic response
//! vector is re-written by the part writer and compared octet for octet.

use crate::base64;
use crate::envelope::{self, PartResult};
use crate::json::{self, Value};
use crate::limits::{self, Limits};
use crate::uri::UriRef;
use std::path::PathBuf;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../spec/examples")
}

fn load(stem: &str) -> (Value, Vec<u8>) {
    let dir = examples();
    let v = json::parse(&std::fs::read_to_string(dir.join(format!("{}.json", stem))).unwrap()).unwrap();
    let body = std::fs::read(dir.join(format!("{}.http", stem))).unwrap();
    (v, body)
}

fn stems(kind: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(&format!(".{}.json", kind)))
        .map(|n| n.trim_end_matches(".json").to_string())
        .collect();
    out.sort();
    out
}

fn limits_of(v: &Value) -> Limits {
    let mut l = limits::DEFAULT;
    l.max_batch_bytes = 64 * 1024 * 1024;
    l.max_part_bytes = 16 * 1024 * 1024;
    if let Some(Value::Obj(m)) = v.get("limits") {
        for (k, x) in m {
            let n = x.as_i64().unwrap() as usize;
            match k.as_str() {
                "max_parts" => l.max_parts = n,
                "max_batch_bytes" => l.max_batch_bytes = n,
                "max_part_bytes" => l.max_part_bytes = n,
                "max_part_header_bytes" => l.max_part_header_bytes = n,
                "max_part_fields" => l.max_part_fields = n,
                _ => panic!("unknown limit {}", k),
            }
        }
    }
    l
}

fn opt_usize(v: Option<&Value>) -> Option<usize> {
    v.and_then(|x| x.as_i64()).map(|n| n as usize)
}

/// Parses a request vector as the server does; Ok(parts with resolved targets) or the problem.
fn parse_as_server(v: &Value, body: &[u8]) -> Result<(Vec<envelope::ReqPart>, Vec<String>), crate::problem::Problem> {
    let ct = v.get("content_type").unwrap().as_str().unwrap();
    let lim = limits_of(v);
    let boundary = envelope::boundary_from(Some(ct.as_bytes()))?;
    if body.len() > lim.max_batch_bytes {
        return Err(crate::problem::Problem::new(413, "limit-exceeded", "Batch too large", String::new()).req("MB-STATUS-3"));
    }
    let parts = envelope::parse_request(body, &boundary, &lim)?;
    let ctx = v.get("context").unwrap();
    let target = ctx.get("target").unwrap().as_str().unwrap();
    let base = UriRef {
        scheme: Some(ctx.get("scheme").unwrap().as_str().unwrap().to_string()),
        authority: Some(ctx.get("authority").unwrap().as_str().unwrap().to_string()),
        path: target.split('?').next().unwrap().to_string(),
        query: target.split_once('?').map(|(_, q)| q.to_string()),
        fragment: None,
    };
    let references = ctx
        .get("fields")
        .and_then(|f| f.as_arr())
        .map(|f| f.iter().any(|p| p.as_arr().unwrap()[0].as_str().unwrap().eq_ignore_ascii_case("batch-mode") && p.as_arr().unwrap()[1].as_str().unwrap().contains("references")))
        .unwrap_or(false);
    // The vectors' batch endpoint is the context target; the server's is /api/batch. Check
    // nesting against the vector's own endpoint.
    let hrefs = crate::batch::check_parts(&parts, &base, references)?;
    for (k, h) in hrefs.iter().enumerate() {
        if crate::uri::routing_path(h) == crate::uri::routing_path(target) {
            let p = &parts[k];
            return Err(crate::problem::Problem::new(400, "malformed-batch", "Nested batch", String::new()).req("MB-SUB-4").at(Some(k), Some(p.content_id_offset)));
        }
    }
    Ok((parts, hrefs))
}

#[test]
fn request_vectors() {
    let mut failures = Vec::new();
    let names = stems("request");
    assert!(names.len() > 60, "vectors not found");
    for stem in &names {
        let (v, body) = load(stem);
        let valid = matches!(v.get("valid"), Some(Value::Bool(true)));
        let got = parse_as_server(&v, &body);
        if valid {
            let (parts, hrefs) = match got {
                Ok(x) => x,
                Err(p) => {
                    failures.push(format!("{}: rejected a valid vector: {}", stem, p.to_json()));
                    continue;
                }
            };
            let exp = v.get("expect").unwrap().get("parts").unwrap().as_arr().unwrap();
            if exp.len() != parts.len() {
                failures.push(format!("{}: {} parts, expected {}", stem, parts.len(), exp.len()));
                continue;
            }
            for (k, (p, e)) in parts.iter().zip(exp).enumerate() {
                let fields: Vec<Value> = p.sub_fields().iter().map(|(n, v)| Value::Arr(vec![Value::Str(n.clone()), Value::Str(v.iter().map(|&b| b as char).collect())])).collect();
                let b = &body[p.body.clone()];
                let body_ok = match (e.get("body_text"), e.get("body_base64")) {
                    (Some(t), _) => t.as_str().unwrap().as_bytes() == b,
                    (_, Some(t)) => base64::decode(t.as_str().unwrap()).unwrap() == b,
                    _ => false,
                };
                let checks = [
                    ("method", e.get("method").unwrap().as_str().unwrap() == p.method),
                    ("target", e.get("target").unwrap().as_str().unwrap().as_bytes() == p.target_ref()),
                    ("resolved_target", e.get("resolved_target").unwrap().as_str().unwrap() == hrefs[k]),
                    ("fields", e.get("fields").unwrap().as_arr().unwrap() == &fields),
                    ("body", body_ok),
                    ("body_length", opt_usize(e.get("body_length")) == Some(b.len())),
                ];
                for (what, ok) in checks {
                    if !ok {
                        failures.push(format!("{}: part {} {} differs", stem, k, what));
                    }
                }
            }
        } else {
            let e = v.get("error").unwrap();
            let p = match got {
                Ok(_) => {
                    failures.push(format!("{}: accepted an invalid vector", stem));
                    continue;
                }
                Err(p) => p,
            };
            let want_req = e.get("requirement").unwrap().as_str().unwrap();
            let want_status = opt_usize(e.get("status")).map(|s| s as u16);
            let want_part = opt_usize(e.get("part_index"));
            let want_off = opt_usize(e.get("byte_offset"));
            if Some(want_req) != p.requirement || want_status != Some(p.status) || (want_part.is_some() && want_part != p.part_index) || (want_off.is_some() && want_off != p.byte_offset) {
                failures.push(format!(
                    "{}: got {} {:?} part {:?} offset {:?}; want {} {:?} part {:?} offset {:?}",
                    stem, p.status, p.requirement, p.part_index, p.byte_offset, want_req, want_status, want_part, want_off
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn response_vectors_written_byte_exact() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for stem in stems("response") {
        let (v, body) = load(&stem);
        if !matches!(v.get("valid"), Some(Value::Bool(true))) {
            continue;
        }
        let parts = v.get("expect").unwrap().get("parts").unwrap().as_arr().unwrap();
        // The writer always ends a part's fields with Content-Length; vectors written
        // otherwise (or with a preamble) are not this writer's output.
        let deterministic = parts.iter().all(|p| {
            let f = p.get("fields").unwrap().as_arr().unwrap();
            f.last().map_or(false, |l| l.as_arr().unwrap()[0].as_str() == Some("Content-Length"))
        });
        if !deterministic {
            continue;
        }
        let ct = v.get("content_type").unwrap().as_str().unwrap();
        let boundary = envelope::boundary_from(Some(ct.as_bytes())).unwrap();
        let mut out = Vec::new();
        for (k, p) in parts.iter().enumerate() {
            let f = p.get("fields").unwrap().as_arr().unwrap();
            let headers: Vec<(String, Vec<u8>)> = f[..f.len() - 1]
                .iter()
                .map(|x| {
                    let a = x.as_arr().unwrap();
                    (a[0].as_str().unwrap().to_string(), a[1].as_str().unwrap().chars().map(|c| c as u8).collect())
                })
                .collect();
            let body = match (p.get("body_text"), p.get("body_base64")) {
                (Some(t), _) => t.as_str().unwrap().as_bytes().to_vec(),
                (_, Some(t)) => base64::decode(t.as_str().unwrap()).unwrap(),
                _ => unreachable!(),
            };
            let outcome: Option<&'static str> = match p.get("outcome").and_then(|o| o.as_str()) {
                Some("skipped") => Some("skipped"),
                Some("rolled-back") => Some("rolled-back"),
                Some("aborted") => Some("aborted"),
                _ => None,
            };
            let r = PartResult {
                index: k,
                href: None,
                content_id: p.get("content_id").and_then(|c| c.as_str()).map(|c| format!("<{}>", c).into_bytes()),
                status: opt_usize(p.get("status")).map(|s| s as u16),
                outcome,
                headers,
                body,
            };
            envelope::write_part(&mut out, &boundary, &r);
        }
        envelope::write_close(&mut out, &boundary);
        checked += 1;
        if out != body {
            failures.push(format!("{}:\n--- wrote\n{}\n--- vector\n{}", stem, String::from_utf8_lossy(&out), String::from_utf8_lossy(&body)));
        }
    }
    assert!(checked >= 6, "only {} response vectors checked", checked);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn problem_and_capabilities_documents_match_the_spec_shapes() {
    // The abort vector's problem document, re-made by the problem writer.
    let p = crate::problem::Problem::new(503, "batch-aborted", "Batch aborted", "The server is shutting down; parts 2 and 3 did not run.".into()).req("MB-STATUS-6").at(Some(2), None);
    assert_eq!(
        p.to_json(),
        "{\"type\":\"https://mixbatch.dev/problems/batch-aborted\",\"title\":\"Batch aborted\",\"status\":503,\"detail\":\"The server is shutting down; parts 2 and 3 did not run.\",\"requirement\":\"MB-STATUS-6\",\"part_index\":2}"
    );
    let caps = json::parse(&limits::capabilities(&limits::DEFAULT)).unwrap();
    assert_eq!(caps.get("representations").unwrap().as_arr().unwrap()[0].as_str(), Some("multipart/mixed"));
    assert!(caps.get("limits").unwrap().get("max_part_fields").is_some());
}

#[test]
fn xml_form_of_the_thesis_example() {
    let parts = [
        PartResult { index: 0, href: Some("/e/".into()), content_id: Some(b"<e/>".to_vec()), status: Some(201), outcome: None, headers: vec![("Location".into(), b"/e/15".to_vec())], body: vec![] },
        PartResult {
            index: 1,
            href: Some("/e/".into()),
            content_id: Some(b"<e/>".to_vec()),
            status: Some(200),
            outcome: None,
            headers: vec![("Content-Type".into(), b"text/xml".to_vec())],
            body: b"<ArrayOfE>\r\n  <E id=\"1\"/>\r\n  <E id=\"15\"/>\r\n</ArrayOfE>".to_vec(),
        },
    ];
    let mut doc = crate::xml::begin();
    for p in &parts {
        doc.push_str(&crate::xml::part(p));
    }
    doc.push_str(&crate::xml::end());
    let want = std::fs::read_to_string(examples().join("documents/multistatus.thesis-post-then-get.response.xml")).unwrap();
    assert_eq!(doc.trim_end(), want.trim_end());

    let mut j = crate::jsonform::begin();
    let mut s = crate::jsonform::Summary::default();
    for (i, p) in parts.iter().enumerate() {
        s.count(p);
        j.push_str(&crate::jsonform::part(p, i == 0));
    }
    j.push_str(&crate::jsonform::end(&s));
    let got = json::parse(&j).unwrap();
    let want = json::parse(&std::fs::read_to_string(examples().join("documents/multistatus.thesis-post-then-get.response.json")).unwrap()).unwrap();
    assert_eq!(got.get("responses"), want.get("responses"));
    assert_eq!(got.get("summary").unwrap().get("ok"), want.get("summary").unwrap().get("ok"));
}
