// libFuzzer entry for the resolver of paths named in the log (log/log_path.h): for an
// arbitrary root and logged path (bytes before the first NUL-free '\n' are the root's
// last component), ResolveTablePath never crashes, and whatever it accepts under the
// default policy lies under the root after lexical normalisation; its message quoting
// never lets a control byte through.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "deltaguard/log/log_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltaguard;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nl = input.find('\n');
  std::string root = "/data/t";
  std::string_view logged = input;
  if (nl != std::string_view::npos && nl <= 64) {
    std::string_view name = input.substr(0, nl);
    if (!name.empty() && name.find('/') == std::string_view::npos && name != "." &&
        name != ".." && name.find('\0') == std::string_view::npos) {
      root = "/data/" + std::string(name);
    }
    logged = input.substr(nl + 1);
  }
  Result<std::string> resolved = ResolveTablePath(root, logged);
  if (resolved) {
    std::optional<std::string> norm = NormalizePathLexically(*resolved);
    if (!norm || !IsUnderRoot(*norm, root)) std::abort();
    if (resolved->find('\0') != std::string::npos) std::abort();
  } else {
    if (resolved.error().code != ErrorCode::kCorruptLog) std::abort();
    for (char c : resolved.error().message) {
      if (static_cast<unsigned char>(c) < 0x20) std::abort();  // escaped, always
    }
  }
  LogPathPolicy open;
  open.allow_outside_root = true;
  (void)ResolveTablePath(root, logged, open);
  (void)ResolveLogPath(root, logged);
  std::string quoted = QuoteForMessage(logged);
  if (quoted.size() > 2 + 4 * 200 + 3) std::abort();
  return 0;
}
