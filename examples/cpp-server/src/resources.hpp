// Test resources of spec 14.4 (MB-TEST-1 to MB-TEST-8) and the request router that both
// standalone requests and sub-requests go through (MB-SUB-1: the same routing and checks).
#pragma once
#include <atomic>
#include <string>

#include "http_codec.hpp"
#include "util.hpp"

namespace mb {

inline constexpr const char* kBatchPath = "/api/batch";
inline constexpr const char* kResOk = "/res/ok";
inline constexpr const char* kResNotFound = "/res/missing";
inline constexpr const char* kResEcho = "/res/echo";
inline constexpr const char* kResEtag = "/res/etag";
inline constexpr const char* kResSandbox = "/res/sandbox";
inline constexpr const char* kResBooks = "/res/books";
inline constexpr const char* kResEmpty = "/res/empty";

extern std::atomic<bool> g_stopping;

struct SubRequest {
    std::string method;
    std::string target;  // origin-form as received
    std::string path;    // normalized (percent-encoded unreserved octets decoded)
    std::string query;
    bool has_query = false;
    std::string authority;
    Fields headers;
    std::string body;
};

// Runs a request against the resources. deadline: the batch's budget (nullptr standalone);
// interrupted is set when the resource stopped because the budget or shutdown arrived.
Response route(const SubRequest& r, const Clock::time_point* deadline, bool* interrupted);

bool is_known_method(const std::string& m);
void init_resources();

}  // namespace mb
