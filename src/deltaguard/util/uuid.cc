#include "deltaguard/util/uuid.h"

#include <fmt/format.h>

#include <cstdint>
#include <random>

namespace deltaguard {

std::string GenerateUuidV4() {
  // One generator per thread, seeded from the OS: no locking, no shared state.
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;        // version 4
  lo = (lo & ~(3ULL << 62)) | (2ULL << 62);  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFULL);
}

}  // namespace deltaguard
