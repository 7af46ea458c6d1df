//! The JSON form of a batch result (profile `json`, MB-MULTI-4, MB-MULTI-7, MB-MULTI-12),
//! valid against multistatus.schema.json. Entries are written as the parts complete;
//! `summary` follows them.

use crate::base64;
use crate::envelope::PartResult;
use crate::json;

pub const MEDIA_TYPE: &str = "application/vnd.mixbatch.multistatus+json";

#[derive(Debug, Default, Clone, Copy)]
pub struct Summary {
    pub ok: usize,
    pub failed: usize,
    pub skipped: usize,
    pub rolled_back: usize,
}

impl Summary {
    /// Counts one part by the definitions of spec 5.5.
    pub fn count(&mut self, p: &PartResult) {
        match (p.outcome, p.status) {
            (Some("skipped"), _) => self.skipped += 1,
            (Some("rolled-back"), _) => self.rolled_back += 1,
            (None, Some(s)) if s < 400 => self.ok += 1,
            (None, Some(_)) => self.failed += 1,
            _ => {}
        }
    }
    /// The Batch-Summary trailer value, an RFC 9651 dictionary.
    pub fn sf_dictionary(&self) -> String {
        format!("ok={}, failed={}, skipped={}, rolled-back={}", self.ok, self.failed, self.skipped, self.rolled_back)
    }
}

pub fn begin() -> String {
    format!("{{\"spec_version\":{},\"responses\":[", json::quote(crate::limits::SPEC_VERSION))
}

pub fn part(p: &PartResult, first: bool) -> String {
    let mut o = String::new();
    if !first {
        o.push(',');
    }
    o.push_str(&format!("{{\"index\":{},\"href\":", p.index));
    match &p.href {
        Some(h) => json::push_str(&mut o, h),
        None => o.push_str("null"),
    }
    o.push_str(",\"content_id\":");
    match &p.content_id {
        Some(c) => json::push_latin1(&mut o, &c[1..c.len() - 1]),
        None => o.push_str("null"),
    }
    o.push_str(",\"status\":");
    match p.status {
        Some(s) => o.push_str(&s.to_string()),
        None => o.push_str("null"),
    }
    o.push_str(",\"outcome\":");
    match p.outcome {
        Some(x) => json::push_str(&mut o, x),
        None => o.push_str("null"),
    }
    o.push_str(",\"headers\":");
    json::push_fields(&mut o, &p.headers);
    match std::str::from_utf8(&p.body) {
        Ok(text) => {
            o.push_str(",\"body\":");
            json::push_str(&mut o, text);
        }
        Err(_) => {
            o.push_str(",\"body_base64\":");
            json::push_str(&mut o, &base64::encode(&p.body));
        }
    }
    o.push('}');
    o
}

pub fn end(s: &Summary) -> String {
    format!("],\"summary\":{{\"ok\":{},\"failed\":{},\"skipped\":{},\"rolled_back\":{}}}}}", s.ok, s.failed, s.skipped, s.rolled_back)
}
