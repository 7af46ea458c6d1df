// Named limits of the server (spec 9.1, MB-LIMIT-1, MB-LIMIT-5, MB-LIMIT-6).
#pragma once
#include <cstddef>
#include <cstdint>

namespace mb {

struct Limits {
    std::size_t max_parts = 10000;
    std::size_t max_batch_bytes = 64ull * 1024 * 1024;
    std::size_t max_part_bytes = 16ull * 1024 * 1024;
    std::size_t max_part_header_bytes = 8192;
    std::size_t max_part_fields = 100;
};

constexpr std::size_t kMaxBatchesInFlight = 8;          // MB-LIMIT-6 budget
constexpr std::size_t kMaxRequestHeaderBytes = 64 * 1024; // top-level header section
constexpr std::size_t kMaxRequestHeaderFields = 256;
constexpr std::size_t kMaxRequestBodyBytes = 64ull * 1024 * 1024; // any non-batch resource
constexpr std::size_t kMaxBoundaryLength = 70;
constexpr std::size_t kDiscardAfterRefusal = 64 * 1024;  // MB-PIPE-1
constexpr int kIdleTimeoutMs = 30000;                    // keep-alive idle
constexpr int kReadTimeoutMs = 30000;                    // while a request arrives
constexpr int kDefaultBatchTimeoutMs = 5000;             // whole-batch budget (MB-SEC-1)
constexpr std::uint64_t kRandomMaxN = 16ull * 1024 * 1024;  // MB-TEST-5
constexpr std::uint64_t kDelayMaxMs = 10000;             // MB-TEST-7
constexpr std::size_t kMaxConnections = 512;
constexpr std::size_t kMaxSandboxMembers = 10000;
constexpr std::size_t kMaxSandboxMemberBytes = 1024 * 1024;
constexpr int kRetryAfterSeconds = 1;

const Limits& default_limits();

}  // namespace mb
