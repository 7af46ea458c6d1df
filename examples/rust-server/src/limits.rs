//! The limits this server enforces and publishes (MB-LIMIT-1, MB-LIMIT-5, MB-LIMIT-6), and
//! the capabilities document served at OPTIONS on the batch endpoint (MB-LIMIT-2).

use crate::json;

pub const SPEC_VERSION: &str = "draft-02";
pub const BATCH_ENDPOINT: &str = "/api/batch";

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_parts: usize,
    pub max_batch_bytes: usize,
    pub max_part_bytes: usize,
    pub max_part_header_bytes: usize,
    pub max_part_fields: usize,
    pub max_batches_in_flight: usize,
    /// Budget of one batch in milliseconds, counted from the first octet of the request
    /// (MB-SEC-1, target batch_timeout_ms).
    pub batch_timeout_ms: u64,
}

pub const DEFAULT: Limits = Limits {
    max_parts: 10_000,
    max_batch_bytes: 16 * 1024 * 1024,
    max_part_bytes: 8 * 1024 * 1024,
    max_part_header_bytes: 8192,
    max_part_fields: 100,
    max_batches_in_flight: 4,
    batch_timeout_ms: 5000,
};

/// Largest top-level header section the HTTP layer reads (431 beyond it).
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request line (414 beyond it).
pub const MAX_REQUEST_LINE: usize = 16 * 1024;
/// Largest content of a request to a resource other than the batch endpoint.
pub const MAX_RESOURCE_BODY: usize = 8 * 1024 * 1024;
/// Content of a refused request that is read and discarded to keep the connection
/// (spec section 11 asks for 64 KiB at least).
pub const MAX_DISCARD: usize = 1024 * 1024;
/// Connection threads at once; beyond it a connection is answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// Largest n of the random resource and largest ms of the delay resource.
pub const MAX_RANDOM: usize = 1024 * 1024;
pub const MAX_DELAY_MS: u64 = 30_000;

pub const PROFILES: &[&str] = &["core", "xml", "json", "error-policy", "atomic", "references", "pipelining", "limits"];
pub const REPRESENTATIONS: &[&str] = &["multipart/mixed", "application/xml", "application/vnd.mixbatch.multistatus+json"];

/// The capabilities document (MB-LIMIT-2), valid against capabilities.schema.json.
pub fn capabilities(l: &Limits) -> String {
    let mut o = String::from("{\"spec_version\":");
    json::push_str(&mut o, SPEC_VERSION);
    o.push_str(",\"endpoint\":");
    json::push_str(&mut o, BATCH_ENDPOINT);
    o.push_str(&format!(
        ",\"limits\":{{\"max_parts\":{},\"max_batch_bytes\":{},\"max_part_bytes\":{},\"max_part_header_bytes\":{},\"max_part_fields\":{},\"max_batches_in_flight\":{}}}",
        l.max_parts, l.max_batch_bytes, l.max_part_bytes, l.max_part_header_bytes, l.max_part_fields, l.max_batches_in_flight
    ));
    o.push_str(",\"profiles\":[");
    o.push_str(&PROFILES.iter().map(|p| json::quote(p)).collect::<Vec<_>>().join(","));
    o.push_str("],\"representations\":[");
    o.push_str(&REPRESENTATIONS.iter().map(|p| json::quote(p)).collect::<Vec<_>>().join(","));
    o.push_str("],\"preferences\":[\"batch-on-error=continue\",\"batch-on-error=stop\"]}");
    o
}
