#include "target.hpp"

namespace mb {

namespace {
std::string default_port(const std::string& scheme) { return iequals(scheme, "https") ? "443" : "80"; }

bool same_port(std::string a, std::string b) {
    auto strip = [](std::string& s) {
        std::size_t i = 0;
        while (i + 1 < s.size() && s[i] == '0') ++i;
        s.erase(0, i);
    };
    strip(a);
    strip(b);
    return a == b;
}
}  // namespace

bool resolve_part_target(const BatchContext& ctx, const RequestPart& part, std::string& out, Problem& err) {
    auto refuse = [&](const char* req, std::string why) {
        err = envelope_problem(400, req, part.index, part.content_id_offset, std::move(why));
        return false;
    };
    if (part.target == "*") return refuse("MB-SUB-8", "Content-Id <*> names no resource");
    UriRef ref;
    if (!parse_uri_reference(part.target, ref)) return refuse("MB-PART-4", "Content-Id is not a URI reference");
    if (ref.has_fragment) return refuse("MB-SUB-2", "Target has a fragment");
    if (!ref.has_scheme && ref.has_authority) return refuse("MB-SUB-2", "Target is a network-path reference");
    UriRef base;
    base.has_scheme = true;
    base.scheme = ctx.scheme;
    base.has_authority = true;
    base.authority = ctx.authority;
    std::string t = ctx.target;
    auto q = t.find('?');
    base.path = t.substr(0, q);
    if (q != std::string::npos) {
        base.has_query = true;
        base.query = t.substr(q + 1);
    }
    UriRef r = resolve(base, ref);
    if (!iequals(r.scheme, ctx.scheme)) return refuse("MB-SUB-2", "Target has another scheme than the batch request");
    if (!r.has_authority) return refuse("MB-SUB-2", "Target has no authority");
    std::string ui, host, port, bui, bhost, bport;
    bool has_ui, bhas_ui;
    if (!parse_authority(r.authority, ui, has_ui, host, port)) return refuse("MB-SUB-2", "Target authority is invalid");
    if (has_ui) return refuse("MB-SUB-2", "Target carries userinfo");
    parse_authority(ctx.authority, bui, bhas_ui, bhost, bport);
    if (host.empty() || !iequals(host, bhost)) return refuse("MB-SUB-2", "Target names another host");
    if (port.empty()) port = default_port(ctx.scheme);
    if (bport.empty()) bport = default_port(ctx.scheme);
    if (!same_port(port, bport)) return refuse("MB-SUB-2", "Target names another port");
    if (normalize_path(r.path.empty() ? "/" : r.path) == ctx.endpoint_path)
        return refuse("MB-SUB-4", "Target is a batch endpoint; batches do not nest");
    out = origin_form(r);
    return true;
}

bool check_parts(const BatchContext& ctx, const std::vector<RequestPart>& parts, std::vector<std::string>& resolved,
                 Problem& err) {
    resolved.clear();
    for (const auto& p : parts) {
        if (p.method == "CONNECT" || p.method == "TRACE") {
            err = envelope_problem(400, "MB-SUB-3", p.index, p.method_offset, p.method + " is not allowed in a part");
            return false;
        }
        std::string t;
        if (!resolve_part_target(ctx, p, t, err)) return false;
        resolved.push_back(std::move(t));
    }
    return true;
}

}  // namespace mb
