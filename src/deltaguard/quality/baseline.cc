// Baselines of the detectors and data tests (quality/detectors.h "BaselineSpec"): which
// earlier commits a check compares with, parsed from `trailing:N|Nd|Nh`.

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "deltaguard/quality/detectors.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr int64_t kMillisPerHour = 3600LL * 1000;
constexpr int64_t kMillisPerDay = 24 * kMillisPerHour;

}  // namespace

std::string BaselineSpec::ToString() const {
  if (kind == Kind::kCommits) return fmt::format("trailing:{}", commits);
  if (duration_ms % kMillisPerDay == 0) {
    return fmt::format("trailing:{}d", duration_ms / kMillisPerDay);
  }
  return fmt::format("trailing:{}h", duration_ms / kMillisPerHour);
}

Result<BaselineSpec> ParseBaselineSpec(std::string_view text) {
  auto bad = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "baseline '{}' is not trailing:N (commits), trailing:Nd (days) or "
                     "trailing:Nh (hours)",
                     text);
  };
  std::string_view t = Trim(text);
  if (!StartsWithIgnoreCase(t, "trailing:")) return bad();
  t.remove_prefix(9);
  if (t.empty()) return bad();
  char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(t.back())));
  std::string_view digits = t;
  if (unit == 'd' || unit == 'h') digits.remove_suffix(1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return bad();
  }
  const int64_t n = std::stoll(std::string(digits));
  if (n <= 0) return bad();
  BaselineSpec spec;
  if (unit == 'd' || unit == 'h') {
    spec.kind = BaselineSpec::Kind::kDuration;
    spec.duration_ms = n * (unit == 'd' ? kMillisPerDay : kMillisPerHour);
  } else {
    spec.commits = n;
  }
  return spec;
}

std::vector<const TableProfile*> SelectBaseline(const std::vector<TableProfile>& history,
                                                const TableProfile& current,
                                                const BaselineSpec& spec) {
  std::vector<const TableProfile*> earlier;
  for (const auto& p : history) {
    if (p.rows > 0 && (current.version < 0 || p.version < current.version)) {
      earlier.push_back(&p);
    }
  }
  std::sort(earlier.begin(), earlier.end(),
            [](const TableProfile* a, const TableProfile* b) {
              return a->version < b->version;
            });
  if (spec.kind == BaselineSpec::Kind::kCommits) {
    if (static_cast<int64_t>(earlier.size()) > spec.commits) {
      earlier.erase(earlier.begin(),
                    earlier.end() - static_cast<std::ptrdiff_t>(spec.commits));
    }
    return earlier;
  }
  std::vector<const TableProfile*> out;
  for (const TableProfile* p : earlier) {
    if (p->timestamp_ms >= current.timestamp_ms - spec.duration_ms) out.push_back(p);
  }
  return out;
}

}  // namespace deltaguard
