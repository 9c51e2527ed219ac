#include "deltaguard/drift/evidence.h"

#include "deltaguard/log/add_stats.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// A min/max value as text and whether it is a number (compared numerically).
struct Bound {
  std::string text;
  bool numeric = false;
  double number = 0;
};

std::optional<Bound> BoundOf(const std::optional<StatValue>& v) {
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&*v)) {
    return Bound{std::to_string(*i), true, static_cast<double>(*i)};
  }
  if (const auto* d = std::get_if<double>(&*v))
    return Bound{fmt::format("{}", *d), true, *d};
  if (const auto* s = std::get_if<std::string>(&*v)) return Bound{*s, false, 0};
  return std::nullopt;
}

bool Less(const Bound& a, const Bound& b) {
  if (a.numeric && b.numeric) return a.number < b.number;
  return a.text < b.text;
}

struct Sum {
  bool counts_known = true;
  int64_t nulls = 0;
  int64_t records = 0;
  std::optional<Bound> min, max;
};

}  // namespace

std::vector<ColumnEvidence> EvidenceFromAddStats(
    const StructType& schema, const std::vector<const AddFile*>& files) {
  std::vector<Sum> sums(schema.num_fields());
  for (const AddFile* file : files) {
    std::optional<AddStats> stats;
    if (file->stats) {
      auto parsed = ParseAddStats(*file->stats);
      if (parsed) stats = std::move(*parsed);  // corrupt stats are "unknown"
    }
    for (size_t i = 0; i < schema.num_fields(); ++i) {
      const StructField& f = schema.field(i);
      Sum& sum = sums[i];
      const ColumnStats* col =
          stats ? stats->Find({f.physical_name().value_or(f.name)}) : nullptr;
      auto nulls = col ? ColumnStats::Int(col->null_count) : std::nullopt;
      if (!stats || !stats->num_records || !nulls) {
        sum.counts_known = false;
      } else {
        sum.nulls += *nulls;
        sum.records += *stats->num_records;
      }
      if (!col || !f.type->is_primitive()) continue;
      auto lo = BoundOf(col->min);
      auto hi = BoundOf(col->max);
      if (lo && (!sum.min || Less(*lo, *sum.min))) sum.min = lo;
      if (hi && (!sum.max || Less(*sum.max, *hi))) sum.max = hi;
    }
  }
  std::vector<ColumnEvidence> out;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    const Sum& sum = sums[i];
    ColumnEvidence e;
    e.path = FormatColumnPath({schema.field(i).name});
    if (sum.counts_known && !files.empty()) {
      e.null_count = sum.nulls;
      e.num_records = sum.records;
    }
    if (sum.min) e.min = sum.min->text;
    if (sum.max) e.max = sum.max->text;
    if (e.null_count || e.min || e.max) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace deltaguard
