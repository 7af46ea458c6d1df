// The batch endpoint: validation of a batch request (sections 3-5, 7.1), the batch runner
// (7.2-7.4, 5.4) and the other methods on the endpoint (4.1, 9.2).
#pragma once
#include <atomic>
#include <string>

#include "http_codec.hpp"
#include "limits.hpp"
#include "problem.hpp"
#include "representations.hpp"

namespace mb {

struct ServerConfig {
    int batch_timeout_ms = kDefaultBatchTimeoutMs;
    Limits limits;
};

extern std::atomic<int> g_batches_in_flight;

// Content-Type of a batch request: 415 or 400, else the boundary.
bool batch_boundary(const Fields& headers, std::string& boundary, Problem& err);
// Accept of a batch request: the representation, or 406.
bool choose_representation(const Fields& headers, Rep& rep, Problem& err);

// Answers a request to the batch endpoint; returns false when the connection must close.
bool handle_batch_endpoint(Conn& c, Request& req, bool holds_slot, const ServerConfig& cfg);

std::string capabilities_json(const ServerConfig& cfg);

}  // namespace mb
