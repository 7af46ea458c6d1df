//! RFC 9457 problem documents as the problem schema admits them (MB-STATUS-4).

use crate::json;

pub const TYPE_BASE: &str = "https://mixbatch.dev/problems/";

#[derive(Debug, Clone)]
pub struct Problem {
    pub status: u16,
    pub slug: &'static str,
    pub title: String,
    pub detail: String,
    pub requirement: Option<&'static str>,
    pub part_index: Option<usize>,
    pub byte_offset: Option<usize>,
    /// (limit name, configured value) for 413, 431 and the budget's 503 (MB-LIMIT-4).
    pub limit: Option<(&'static str, u64)>,
    /// The reference as written, for MB-PROC-20.
    pub reference: Option<String>,
}

impl Problem {
    pub fn new(status: u16, slug: &'static str, title: &str, detail: String) -> Problem {
        Problem {
            status,
            slug,
            title: title.to_string(),
            detail,
            requirement: None,
            part_index: None,
            byte_offset: None,
            limit: None,
            reference: None,
        }
    }

    pub fn req(mut self, id: &'static str) -> Problem {
        self.requirement = Some(id);
        self
    }

    pub fn at(mut self, part: Option<usize>, offset: Option<usize>) -> Problem {
        self.part_index = part;
        self.byte_offset = offset;
        self
    }

    pub fn limit(mut self, name: &'static str, value: u64) -> Problem {
        self.limit = Some((name, value));
        self
    }

    pub fn to_json(&self) -> String {
        let mut o = String::from("{\"type\":");
        json::push_str(&mut o, &format!("{}{}", TYPE_BASE, self.slug));
        o.push_str(",\"title\":");
        json::push_str(&mut o, &self.title);
        o.push_str(&format!(",\"status\":{}", self.status));
        if !self.detail.is_empty() {
            o.push_str(",\"detail\":");
            json::push_str(&mut o, &self.detail);
        }
        if let Some(r) = self.requirement {
            o.push_str(",\"requirement\":");
            json::push_str(&mut o, r);
        }
        if let Some(p) = self.part_index {
            o.push_str(&format!(",\"part_index\":{}", p));
        }
        if let Some(b) = self.byte_offset {
            o.push_str(&format!(",\"byte_offset\":{}", b));
        }
        if let Some((name, value)) = self.limit {
            o.push_str(",\"limit\":");
            json::push_str(&mut o, name);
            o.push_str(&format!(",\"value\":{}", value));
        }
        if let Some(r) = &self.reference {
            o.push_str(",\"reference\":");
            json::push_str(&mut o, r);
        }
        o.push('}');
        o
    }
}
