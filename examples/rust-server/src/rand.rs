//! Random octets for boundaries (MB-WIRE-5): read from the kernel's CSPRNG, with a
//! hash-based fallback when /dev/urandom cannot be read.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

pub fn fill(buf: &mut [u8]) {
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        if f.read_exact(buf).is_ok() {
            return;
        }
    }
    for chunk in buf.chunks_mut(8) {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0));
        let v = h.finish().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

const BCHARS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/// A fresh boundary of `len` characters drawn from `A-Z a-z 0-9 _ -` (MB-WIRE-5).
pub fn boundary(len: usize) -> String {
    let mut raw = vec![0u8; len];
    fill(&mut raw);
    raw.iter().map(|b| BCHARS[(*b & 63) as usize] as char).collect()
}

/// Octets for the random resource (MB-TEST-5); not security-relevant.
pub fn octets(n: usize) -> Vec<u8> {
    let mut seed = [0u8; 8];
    fill(&mut seed);
    let mut x = u64::from_le_bytes(seed) | 1;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for b in x.to_le_bytes() {
            if out.len() < n {
                out.push(b);
            }
        }
    }
    out
}
