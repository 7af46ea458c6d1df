// Target resolution (MB-PART-5) and the checks on a part's target and method:
// same origin (MB-SUB-2), no nesting (MB-SUB-4), no "<*>" (MB-SUB-8), no CONNECT/TRACE (MB-SUB-3).
#pragma once
#include <string>
#include <vector>

#include "envelope.hpp"
#include "problem.hpp"
#include "uri.hpp"

namespace mb {

struct BatchContext {
    std::string scheme = "http";
    std::string authority;      // Host of the batch request
    std::string target;         // origin-form request target of the batch request
    std::string endpoint_path;  // normalized path of the batch endpoint(s)
};

// Resolves a part's Content-Id; false with err (at the Content-Id line) when refused.
bool resolve_part_target(const BatchContext& ctx, const RequestPart& part, std::string& origin_form_out,
                         Problem& err);
// Runs every server-context check over the parts; fills resolved targets.
bool check_parts(const BatchContext& ctx, const std::vector<RequestPart>& parts, std::vector<std::string>& resolved,
                 Problem& err);

}  // namespace mb
