//! mbserver: an independent implementation of the mixbatch batch server (spec draft-02)
//! on the Rust standard library alone.

mod base64;
mod batch;
mod date;
mod envelope;
mod fields;
mod http;
mod json;
mod jsonform;
mod limits;
mod problem;
mod rand;
mod resources;
mod server;
mod subrequest;
mod uri;
mod xml;

#[cfg(test)]
mod itest;
#[cfg(test)]
mod vectors;

use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;

fn usage() -> ! {
    eprintln!("usage: mbserver --port N [--host 127.0.0.1] [--batch-timeout-ms MS] [--max-batches-in-flight N]");
    std::process::exit(2);
}

fn main() {
    let mut host = "127.0.0.1".to_string();
    let mut port: Option<u16> = None;
    let mut lim = limits::DEFAULT;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--port" => port = Some(val().parse().unwrap_or_else(|_| usage())),
            "--host" => host = val(),
            "--batch-timeout-ms" => lim.batch_timeout_ms = val().parse().unwrap_or_else(|_| usage()),
            "--max-batches-in-flight" => lim.max_batches_in_flight = val().parse().unwrap_or_else(|_| usage()),
            "-h" | "--help" => usage(),
            _ => usage(),
        }
    }
    let port = port.unwrap_or_else(|| usage());
    let listener = match TcpListener::bind((host.as_str(), port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mbserver: cannot listen on {}:{}: {}", host, port, e);
            std::process::exit(1);
        }
    };
    let addr = listener.local_addr().expect("local address");
    let shown = if addr.is_ipv6() { format!("[{}]", addr.ip()) } else { addr.ip().to_string() };
    println!("mbserver listening on http://{}:{}", shown, addr.port());
    let _ = std::io::stdout().flush();
    server::run(listener, Arc::new(resources::App::new(lim)));
}
