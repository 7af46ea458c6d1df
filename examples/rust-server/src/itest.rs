//! End-to-end tests: a server on an OS-chosen port, spoken to over TCP.

use crate::limits;
use crate::resources::App;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn start(timeout_ms: u64) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let mut lim = limits::DEFAULT;
    lim.batch_timeout_ms = timeout_ms;
    let app = Arc::new(App::new(lim));
    std::thread::spawn(move || crate::server::run(l, app));
    port
}

fn exchange(port: u16, data: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(data).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn batch(body: &str, extra: &str) -> Vec<u8> {
    format!(
        "POST /api/batch HTTP/1.1\r\nHost: test.example\r\nContent-Type: multipart/mixed; boundary=b\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n{}",
        body.len(),
        extra,
        body
    )
    .into_bytes()
}

fn part(method: &str, target: &str, fields: &str, body: &str) -> String {
    format!("--b\r\nHttp-Method: {}\r\nContent-Id: <{}>\r\n{}\r\n{}\r\n", method, target, fields, body)
}

#[test]
fn stop_policy_and_credentials() {
    let port = start(5000);
    let body = part("GET", "/res/echo", "X-A: 1\r\n", "") + &part("GET", "/res/status/404", "", "") + &part("GET", "/res/ok", "", "") + "--b--\r\n";
    let r = exchange(port, &batch(&body, "Authorization: Bearer t\r\nPrefer: Batch-On-Error=\"STOP\"\r\nAccept: text/plain\r\n"));
    // an Accept that admits no batch representation is 406
    assert!(r.starts_with("HTTP/1.1 406"), "{}", r);
    let r = exchange(port, &batch(&body, "Authorization: Bearer t\r\nPrefer: Batch-On-Error=\"STOP\"\r\n"));
    assert!(r.starts_with("HTTP/1.1 200 OK"), "{}", r);
    assert!(r.contains("Preference-Applied: batch-on-error=stop\r\n"));
    assert!(r.contains("[\"X-A\",\"1\"],[\"Authorization\",\"Bearer t\"]"), "{}", r);
    assert!(!r.contains("Prefer\",")); // MB-SUB-6
    assert!(r.contains("Http-Status-Code: 404\r\n"));
    assert!(r.contains("Content-Id: </res/ok>\r\nBatch-Outcome: skipped\r\n"));
    assert!(r.contains("Batch-Summary: ok=1, failed=1, skipped=1, rolled-back=0"));
}

#[test]
fn atomic_failure_leaves_nothing_behind() {
    let port = start(5000);
    let body = part("PUT", "/res/notes/atomic-x", "Content-Type: application/json\r\n", "{\"a\":1}") + &part("GET", "/res/status/409", "", "") + &part("GET", "/res/ok", "", "") + "--b--\r\n";
    let r = exchange(port, &batch(&body, "Batch-Mode: atomic\r\n"));
    assert!(r.contains("Http-Status-Code: 201\r\nContent-Id: </res/notes/atomic-x>\r\nBatch-Outcome: rolled-back\r\n"), "{}", r);
    assert!(r.contains("Http-Status-Code: 409\r\nContent-Id: </res/status/409>\r\nContent-Type"));
    assert!(r.contains("Content-Id: </res/ok>\r\nBatch-Outcome: skipped\r\n"));
    let g = exchange(port, b"GET /res/notes/atomic-x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    assert!(g.starts_with("HTTP/1.1 404"), "{}", g);
}

#[test]
fn references_follow_location_and_fields() {
    let port = start(5000);
    let body = part("POST", "/res/notes", "Content-Type: application/json\r\n", "{\"t\":1}")
        + &part("PUT", "$(0)", "Content-Type: application/json\r\nIf-Match: $(0:ETag)\r\n", "{\"t\":2}")
        + &part("GET", "$(0)", "", "")
        + &part("GET", "$(4)", "", "")
        + "--b--\r\n";
    let r = exchange(port, &batch(&body, "Batch-Mode: references\r\n"));
    assert!(r.starts_with("HTTP/1.1 400"), "forward reference: {}", r);
    assert!(r.contains("MB-PROC-19"));
    let body = body.replace("$(4)", "$(3)").replace("--b\r\nHttp-Method: GET\r\nContent-Id: <$(3)>", "--b\r\nHttp-Method: GET\r\nContent-Id: </res/status/500>\r\n\r\n\r\n--b\r\nHttp-Method: GET\r\nContent-Id: <$(3)>");
    let r = exchange(port, &batch(&body, "Batch-Mode: references\r\n"));
    assert!(r.contains("Http-Status-Code: 200\r\nContent-Id: <$(0)>\r\n"), "{}", r);
    assert_eq!(r.matches("{\"t\":2}\r\n").count(), 2, "{}", r);
    assert!(r.contains("Content-Id: <$(3)>\r\nBatch-Outcome: skipped\r\nContent-Type: application/problem+json"));
    assert!(r.contains("\"requirement\":\"MB-PROC-20\",\"reference\":\"$(3)\""));
}

#[test]
fn pipelined_requests_answered_in_order() {
    let port = start(5000);
    let body = part("GET", "/res/status/201", "", "") + "--b--\r\n";
    let mut data = b"GET /res/ok HTTP/1.1\r\nHost: h\r\n\r\n".to_vec();
    data.extend_from_slice(format!("POST /api/batch HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/mixed; boundary=b\r\nContent-Length: {}\r\n\r\n{}", body.len(), body).as_bytes());
    data.extend_from_slice(b"PUT /api/batch HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
    data.extend_from_slice(b"POST /api/batch HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
    data.extend_from_slice(b"GET /res/echo?last HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    let r = exchange(port, &data);
    let statuses: Vec<&str> = r.match_indices("HTTP/1.1 ").map(|(i, _)| &r[i + 9..i + 12]).collect();
    assert_eq!(statuses, vec!["200", "200", "405", "415", "200"], "{}", r);
    assert!(r.ends_with("\"target\":\"/res/echo?last\",\"authority\":\"h\",\"headers\":[[\"Host\",\"h\"],[\"Connection\",\"close\"]],\"body\":\"\"}"));
}

#[test]
fn budget_abort_names_the_unanswered_part() {
    let port = start(400);
    let body = part("GET", "/res/ok", "", "") + &part("GET", "/res/delay/3000", "", "") + &part("GET", "/res/ok", "", "") + "--b--\r\n";
    let t = Instant::now();
    let r = exchange(port, &batch(&body, ""));
    assert!(t.elapsed() < Duration::from_millis(2500));
    assert!(r.starts_with("HTTP/1.1 200"), "{}", r);
    assert!(r.contains("Batch-Outcome: aborted\r\nContent-Type: application/problem+json\r\n"));
    assert!(r.contains("\"status\":503"));
    assert!(r.contains("\"part_index\":1"));
    assert!(r.contains("--\r\n\r\n0\r\n\r\n"), "close delimiter, no trailer: {}", r);
}

#[test]
fn vectors_over_http() {
    let port = start(5000);
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../spec/examples");
    for (stem, status, req) in [
        ("bare-lf-in-part-header", 400, "MB-WIRE-8"),
        ("forbidden-field-host", 400, "MB-PART-10"),
        ("content-length-too-short", 400, "MB-WIRE-17"),
        ("absolute-uri-other-authority", 400, "MB-SUB-2"),
        ("trace-method", 400, "MB-SUB-3"),
        ("boundary-missing", 400, "MB-WIRE-4"),
        ("wrong-media-type", 415, "MB-WIRE-2"),
    ] {
        let meta = crate::json::parse(&std::fs::read_to_string(dir.join(format!("{}.request.json", stem))).unwrap()).unwrap();
        let ct = meta.get("content_type").unwrap().as_str().unwrap().to_string();
        let body = std::fs::read(dir.join(format!("{}.request.http", stem))).unwrap();
        let mut data = format!("POST /api/batch HTTP/1.1\r\nHost: example.test\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", ct, body.len()).into_bytes();
        data.extend_from_slice(&body);
        let r = exchange(port, &data);
        assert!(r.starts_with(&format!("HTTP/1.1 {}", status)), "{}: {}", stem, r);
        assert!(r.contains(&format!("\"requirement\":\"{}\"", req)), "{}: {}", stem, r);
    }
}
