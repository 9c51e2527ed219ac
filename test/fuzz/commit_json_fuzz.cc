// libFuzzer entry for commit-file parsing: ParseCommitFile must never crash, hang or
// leak on arbitrary bytes; whatever it accepts must serialize and parse back to the same
// JSON (ActionToJson is a fixed point after one round trip). An add's stats string goes
// through both scopes of ParseAddStats, which must never crash on it either.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/add_stats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view content(reinterpret_cast<const char*>(data), size);
  auto actions = deltaguard::ParseCommitFile(content, "fuzz.json");
  if (!actions) return 0;
  for (const deltaguard::Action& a : *actions) {
    std::string json = deltaguard::ActionToJson(a);
    auto back = deltaguard::ParseActionLine(json, "fuzz-roundtrip", 1);
    if (!back || !*back) std::abort();  // our own output must parse
    if (deltaguard::ActionToJson(**back) != json) std::abort();
    if (const auto* add = std::get_if<deltaguard::AddFile>(&a)) {
      (void)add->NumRecords();
      if (add->stats) (void)deltaguard::ParseAddStats(*add->stats);
    }
  }
  return 0;
}
