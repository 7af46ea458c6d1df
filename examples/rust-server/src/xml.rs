//! The RFC 4918 multistatus form of a batch result (profile `xml`, MB-MULTI-3, MB-MULTI-6,
//! MB-MULTI-12): one DAV:response per part in request order, bodies in base64, field
//! values mapped one octet to one character.

use crate::base64;
use crate::envelope::PartResult;
use crate::http::reason;

pub const MEDIA_TYPE: &str = "application/xml";
pub const NS: &str = "https://mixbatch.dev/ns/multistatus";

fn escape(out: &mut String, chars: impl Iterator<Item = char>) {
    for c in chars {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
}

fn latin1(out: &mut String, bytes: &[u8]) {
    escape(out, bytes.iter().map(|&b| b as char));
}

pub fn begin() -> String {
    format!("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\" xmlns:mb=\"{}\">\n", NS)
}

pub fn part(p: &PartResult) -> String {
    let mut o = String::from("  <D:response>\n");
    if let Some(h) = &p.href {
        o.push_str("    <D:href>");
        escape(&mut o, h.chars());
        o.push_str("</D:href>\n");
    }
    if let Some(s) = p.status {
        // DAV:status exactly when the part ran; an unknown code gets an empty phrase.
        o.push_str(&format!("    <D:status>HTTP/1.1 {} {}</D:status>\n", s, reason(s)));
    }
    o.push_str(&format!("    <mb:index>{}</mb:index>\n", p.index));
    if let Some(c) = &p.content_id {
        o.push_str("    <mb:content-id>");
        latin1(&mut o, &c[1..c.len() - 1]);
        o.push_str("</mb:content-id>\n");
    }
    if let Some(out) = p.outcome {
        o.push_str(&format!("    <mb:outcome>{}</mb:outcome>\n", out));
    }
    for (n, v) in &p.headers {
        o.push_str("    <mb:header name=\"");
        escape(&mut o, n.chars());
        o.push_str("\">");
        latin1(&mut o, v);
        o.push_str("</mb:header>\n");
    }
    o.push_str("    <mb:body encoding=\"base64\">");
    o.push_str(&base64::encode(&p.body));
    o.push_str("</mb:body>\n  </D:response>\n");
    o
}

pub fn end() -> String {
    "</D:multistatus>\n".to_string()
}
