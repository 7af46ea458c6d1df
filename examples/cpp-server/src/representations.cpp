#include "representations.hpp"

namespace mb {

void Summary::count(const PartResult& p) {
    if (p.kind == PartResult::Skipped || p.outcome == "skipped") ++skipped;
    else if (p.outcome == "rolled-back") ++rolled_back;
    else if (p.kind == PartResult::Ran) (p.status < 400 ? ok : failed)++;
}

const char* rep_media_type(Rep rep) {
    switch (rep) {
        case Rep::Json: return "application/vnd.mixbatch.multistatus+json";
        case Rep::Xml: return "application/xml";
        default: return "multipart/mixed";
    }
}

PartResult abort_part(std::size_t first, int status, const std::string& why) {
    Problem p = make_problem(status, "MB-STATUS-6", "Batch aborted", why);
    p.slug = "batch-aborted";
    p.part_index = std::int64_t(first);
    PartResult r;
    r.kind = PartResult::Aborted;
    r.index = first;
    r.outcome = "aborted";
    r.headers.push_back({"Content-Type", "application/problem+json"});
    r.body = p.json();
    return r;
}

namespace {

class MultipartWriter : public BatchWriter {
  public:
    MultipartWriter() : boundary_(random_token(32)) {}
    int status() const override { return 200; }
    std::string content_type() const override { return "multipart/mixed; boundary=" + boundary_; }
    std::string begin() override { return {}; }
    bool part(const PartResult& p, std::string& out) override {
        std::string db = "--" + boundary_;
        // MB-WIRE-6: the delimiter must not occur in the part; a collision fails the part
        if (p.body.find(db) != std::string::npos) return false;
        for (const auto& f : p.headers)
            if (f.value.find(db) != std::string::npos) return false;
        out = first_ ? "" : "\r\n";
        first_ = false;
        out += db + "\r\n";
        if (p.kind == PartResult::Ran) out += "Http-Status-Code: " + std::to_string(p.status) + "\r\n";
        if (p.kind != PartResult::Aborted) out += "Content-Id: " + p.content_id + "\r\n";
        if (!p.outcome.empty()) out += "Batch-Outcome: " + p.outcome + "\r\n";
        for (const auto& f : p.headers) out += f.name + ": " + f.value + "\r\n";
        out += "Content-Length: " + std::to_string(p.body.size()) + "\r\n\r\n";
        out += p.body;
        return true;
    }
    std::string end(const Summary&) override { return (first_ ? "" : "\r\n") + ("--" + boundary_ + "--\r\n"); }

  private:
    std::string boundary_;
    bool first_ = true;
};

std::string body_member(const std::string& body) {
    if (valid_utf8(body)) return "\"body\":" + json_str(body);
    return "\"body_base64\":" + json_str(base64(body));
}

class JsonWriter : public BatchWriter {
  public:
    int status() const override { return 207; }
    std::string content_type() const override { return rep_media_type(Rep::Json); }
    std::string begin() override { return "{\"spec_version\":\"draft-02\",\"responses\":["; }
    bool part(const PartResult& p, std::string& out) override {
        out = first_ ? "" : ",";
        first_ = false;
        bool aborted = p.kind == PartResult::Aborted;
        out += "{\"index\":" + std::to_string(p.index);
        out += ",\"href\":" + (aborted ? std::string("null") : json_latin1(p.href));
        std::string inner = p.content_id.size() >= 2 ? p.content_id.substr(1, p.content_id.size() - 2) : "";
        out += ",\"content_id\":" + (aborted ? std::string("null") : json_latin1(inner));
        out += ",\"status\":" + (p.kind == PartResult::Ran ? std::to_string(p.status) : std::string("null"));
        out += ",\"outcome\":" + (p.outcome.empty() ? std::string("null") : json_str(p.outcome));
        out += ",\"headers\":[";
        for (std::size_t i = 0; i < p.headers.size(); ++i) {
            if (i) out += ",";
            out += "[" + json_latin1(p.headers[i].name) + "," + json_latin1(p.headers[i].value) + "]";
        }
        out += "]," + body_member(p.body) + "}";
        return true;
    }
    std::string end(const Summary& s) override {
        return "],\"summary\":{\"ok\":" + std::to_string(s.ok) + ",\"failed\":" + std::to_string(s.failed) +
               ",\"skipped\":" + std::to_string(s.skipped) + ",\"rolled_back\":" + std::to_string(s.rolled_back) +
               "}}";
    }

  private:
    bool first_ = true;
};

class XmlWriter : public BatchWriter {
  public:
    int status() const override { return 207; }
    std::string content_type() const override { return "application/xml; charset=utf-8"; }
    std::string begin() override {
        return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
               "<D:multistatus xmlns:D=\"DAV:\" xmlns:mb=\"https://mixbatch.dev/ns/multistatus\">\n";
    }
    bool part(const PartResult& p, std::string& out) override {
        bool aborted = p.kind == PartResult::Aborted;
        out = "  <D:response>\n";
        if (!aborted) out += "    <D:href>" + xml_escape(latin1_to_utf8(p.href)) + "</D:href>\n";
        if (p.kind == PartResult::Ran)
            out += "    <D:status>HTTP/1.1 " + std::to_string(p.status) + " " + reason_phrase(p.status) +
                   "</D:status>\n";
        out += "    <mb:index>" + std::to_string(p.index) + "</mb:index>\n";
        if (!aborted) {
            std::string inner = p.content_id.size() >= 2 ? p.content_id.substr(1, p.content_id.size() - 2) : "";
            out += "    <mb:content-id>" + xml_escape(latin1_to_utf8(inner)) + "</mb:content-id>\n";
        }
        if (!p.outcome.empty()) out += "    <mb:outcome>" + p.outcome + "</mb:outcome>\n";
        for (const auto& f : p.headers)
            out += "    <mb:header name=\"" + xml_escape(f.name) + "\">" + xml_escape(latin1_to_utf8(f.value)) +
                   "</mb:header>\n";
        out += "    <mb:body encoding=\"base64\">" + base64(p.body) + "</mb:body>\n";
        out += "  </D:response>\n";
        return true;
    }
    std::string end(const Summary&) override { return "</D:multistatus>\n"; }
};

}  // namespace

std::unique_ptr<BatchWriter> make_writer(Rep rep) {
    switch (rep) {
        case Rep::Json: return std::make_unique<JsonWriter>();
        case Rep::Xml: return std::make_unique<XmlWriter>();
        default: return std::make_unique<MultipartWriter>();
    }
}

}  // namespace mb
