//! The listener and the per-connection loop: one thread per connection (bounded by
//! MAX_CONNECTIONS), requests answered one after another in the order they arrived, so
//! pipelined requests get their responses in order (MB-PIPE-1).

use crate::batch;
use crate::http::{self, BodyError, Conn, Head};
use crate::limits::{self, BATCH_ENDPOINT};
use crate::resources::{self, App};
use crate::subrequest::Request;
use crate::uri;
use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub fn run(listener: TcpListener, app: Arc<App>) {
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(_) => continue,
        };
        if app.connections.fetch_add(1, Ordering::SeqCst) >= limits::MAX_CONNECTIONS {
            app.connections.fetch_sub(1, Ordering::SeqCst);
            let mut s = stream;
            let _ = s.write_all(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            let _ = s.shutdown(Shutdown::Both);
            continue;
        }
        let app2 = Arc::clone(&app);
        let spawned = std::thread::Builder::new().stack_size(1 << 20).spawn(move || {
            serve_connection(&app2, stream);
            app2.connections.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            app.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn serve_connection(app: &App, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
    let mut conn = Conn::new(stream);
    loop {
        if !conn.wait_request() {
            break;
        }
        let started = Instant::now();
        let head = match conn.read_head(started) {
            Ok(h) => h,
            Err(e) => {
                let body = format!("{{\"type\":\"about:blank\",\"title\":\"{}\",\"status\":{},\"detail\":{}}}", http::reason(e.status), e.status, crate::json::quote(&e.detail));
                let h = vec![("Content-Type".to_string(), b"application/problem+json".to_vec())];
                let _ = http::send(&mut conn, 1, false, e.status, &h, body.as_bytes(), true);
                break;
            }
        };
        let keep = if !head.asterisk && uri::routing_path(&head.target) == BATCH_ENDPOINT {
            batch::serve(app, &mut conn, &head)
        } else {
            serve_resource(app, &mut conn, &head)
        };
        if !keep {
            break;
        }
    }
    let _ = conn.stream.flush();
    let _ = conn.stream.shutdown(Shutdown::Write);
    // Read on for a moment so a refusal is not lost to a reset (RFC 9112 §9.6).
    let _ = conn.stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 4096];
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        match std::io::Read::read(&mut conn.stream, &mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

fn serve_resource(app: &App, conn: &mut Conn, head: &Head) -> bool {
    if head.asterisk {
        let discarded = conn.discard_body(head);
        let close = !discarded || !head.keep_alive;
        let h = vec![("Allow".to_string(), b"GET, HEAD, POST, PUT, DELETE, OPTIONS".to_vec())];
        return http::send(conn, head.minor, false, 200, &h, b"", close).is_ok() && !close;
    }
    if conn.send_continue(head).is_err() {
        return false;
    }
    let body = match conn.read_body(head, limits::MAX_RESOURCE_BODY) {
        Ok(b) => b,
        Err(BodyError::TooLarge) => {
            let h = vec![("Content-Type".to_string(), b"application/problem+json".to_vec())];
            let _ = http::send(conn, head.minor, false, 413, &h, b"{\"type\":\"about:blank\",\"title\":\"Content Too Large\",\"status\":413}", true);
            return false;
        }
        Err(BodyError::Bad(d)) => {
            let h = vec![("Content-Type".to_string(), b"application/problem+json".to_vec())];
            let body = format!("{{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":{}}}", crate::json::quote(&d));
            let _ = http::send(conn, head.minor, false, 400, &h, body.as_bytes(), true);
            return false;
        }
        Err(BodyError::Io) => return false,
    };
    let req = Request { method: head.method.clone(), target: head.target.clone(), authority: head.authority.clone(), headers: head.headers.clone(), body, deadline: None };
    let resp = resources::handle(app, &req, None);
    let close = !head.keep_alive;
    http::send(conn, head.minor, head.method == "HEAD", resp.status, &resp.headers, &resp.body, close).is_ok() && !close
}
