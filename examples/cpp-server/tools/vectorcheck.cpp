// vectorcheck SPEC_EXAMPLES_DIR: parses every request vector with the server's own codec and
// target checks and compares parts, or the error's requirement, status, part_index and byte_offset.
#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../tools/minijson.hpp"
#include "batch.hpp"
#include "envelope.hpp"
#include "target.hpp"
#include "uri.hpp"

using namespace mb;

static bool read_file(const std::string& p, std::string& out) {
    std::ifstream f(p, std::ios::binary);
    if (!f) return false;
    std::stringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
}

static std::string opt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "null"; }
static std::string optj(const mj::Value* v) {
    if (!v || v->t == mj::Value::Null) return "null";
    return std::to_string((long long)v->n);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: vectorcheck SPEC_EXAMPLES_DIR\n";
        return 2;
    }
    std::string dir = argv[1];
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (auto* e = readdir(d)) {
            std::string n = e->d_name;
            const std::string suf = ".request.json";
            if (n.size() > suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0)
                names.push_back(n.substr(0, n.size() - 5));
        }
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    int pass = 0, fail = 0;
    for (const auto& n : names) {
        std::string js, body;
        if (!read_file(dir + "/" + n + ".json", js) || !read_file(dir + "/" + n + ".http", body)) {
            std::cout << "FAIL " << n << ": cannot read\n";
            ++fail;
            continue;
        }
        mj::Value v;
        if (!mj::Parser(js).parse(v)) {
            std::cout << "FAIL " << n << ": bad JSON\n";
            ++fail;
            continue;
        }
        Limits lim = default_limits();
        if (auto* l = v.get("limits")) {
            for (auto& [k, x] : l->o) {
                std::size_t val = std::size_t(x.n);
                if (k == "max_parts") lim.max_parts = val;
                if (k == "max_batch_bytes") lim.max_batch_bytes = val;
                if (k == "max_part_bytes") lim.max_part_bytes = val;
                if (k == "max_part_header_bytes") lim.max_part_header_bytes = val;
                if (k == "max_part_fields") lim.max_part_fields = val;
            }
        }
        const mj::Value* ctxv = v.get("context");
        Fields headers{{"Content-Type", v.get("content_type")->s}};
        if (auto* f = ctxv->get("fields"))
            for (auto& x : f->a) headers.push_back({x.a[0].s, x.a[1].s});
        Problem err;
        bool ok = true;
        std::vector<RequestPart> parts;
        std::vector<std::string> resolved;
        std::string boundary;
        if (body.size() > lim.max_batch_bytes) {
            err = make_problem(413, "MB-STATUS-3", "Batch content too large");
            ok = false;
        }
        if (ok) ok = batch_boundary(headers, boundary, err);
        if (ok) ok = parse_envelope(body, boundary, lim, parts, err);
        if (ok) {
            BatchContext ctx;
            ctx.scheme = ctxv->get("scheme")->s;
            ctx.authority = ctxv->get("authority")->s;
            ctx.target = ctxv->get("target")->s;
            ctx.endpoint_path = normalize_path(ctx.target.substr(0, ctx.target.find('?')));
            ok = check_parts(ctx, parts, resolved, err);
        }
        std::string why;
        bool valid = v.get("valid")->b;
        if (valid) {
            if (!ok) {
                why = "rejected: " + err.requirement + " " + std::to_string(err.status) + " part " +
                      opt(err.part_index) + " offset " + opt(err.byte_offset) + " (" + err.title + ")";
            } else {
                const auto& exp = v.get("expect")->get("parts")->a;
                if (exp.size() != parts.size()) why = "part count " + std::to_string(parts.size());
                for (std::size_t i = 0; why.empty() && i < exp.size(); ++i) {
                    const auto& e = exp[i];
                    const auto& p = parts[i];
                    std::string b = body.substr(p.body_offset, p.body_length);
                    if (e.get("method")->s != p.method) why = "part " + std::to_string(i) + " method " + p.method;
                    else if (e.get("target")->s != p.target) why = "part " + std::to_string(i) + " target " + p.target;
                    else if (e.get("resolved_target")->s != resolved[i])
                        why = "part " + std::to_string(i) + " resolved " + resolved[i];
                    else if (std::size_t(e.get("body_length")->n) != p.body_length)
                        why = "part " + std::to_string(i) + " body length " + std::to_string(p.body_length);
                    else if (e.get("body_text") && e.get("body_text")->s != b)
                        why = "part " + std::to_string(i) + " body text";
                    else if (e.get("body_base64") && e.get("body_base64")->s != base64(b))
                        why = "part " + std::to_string(i) + " body base64";
                    else {
                        const auto& ef = e.get("fields")->a;
                        if (ef.size() != p.fields.size()) why = "part " + std::to_string(i) + " field count";
                        for (std::size_t k = 0; why.empty() && k < ef.size(); ++k)
                            if (ef[k].a[0].s != p.fields[k].name || ef[k].a[1].s != p.fields[k].value)
                                why = "part " + std::to_string(i) + " field " + p.fields[k].name;
                    }
                }
            }
        } else {
            const mj::Value* e = v.get("error");
            if (ok) {
                why = "accepted, expected " + e->get("requirement")->s;
            } else {
                std::string got = err.requirement + " " + std::to_string(err.status) + " " + opt(err.part_index) + " " +
                                  opt(err.byte_offset);
                std::string want = e->get("requirement")->s + " " + optj(e->get("status")) + " " +
                                   optj(e->get("part_index")) + " " + optj(e->get("byte_offset"));
                if (got != want) why = "got " + got + ", want " + want + " (" + err.title + ")";
            }
        }
        if (why.empty()) {
            ++pass;
            std::cout << "ok   " << n << "\n";
        } else {
            ++fail;
            std::cout << "FAIL " << n << ": " << why << "\n";
        }
    }
    std::cout << pass << " passed, " << fail << " failed\n";
    return fail ? 1 : 0;
}
