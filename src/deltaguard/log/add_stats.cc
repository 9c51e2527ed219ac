// ParseAddStats: one SAX pass over the stats JSON into AddStats (rules in add_stats.h).

#include "deltaguard/log/add_stats.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <array>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "deltaguard/util/depth_guard.h"

namespace deltaguard {
namespace {

// The top-level members the reader keeps; the sections hold per-column values.
enum class Member {
  kNumRecords,
  kMinValues,
  kMaxValues,
  kNullCount,
  kTightBounds,
  kOther
};

Member MemberOf(std::string_view key) {
  if (key == "numRecords") return Member::kNumRecords;
  if (key == "minValues") return Member::kMinValues;
  if (key == "maxValues") return Member::kMaxValues;
  if (key == "nullCount") return Member::kNullCount;
  if (key == "tightBounds") return Member::kTightBounds;
  return Member::kOther;
}

// Builds AddStats from SAX events. `depth` counts open containers (the root object is
// 1); a subtree that is ignored (unknown member, repeated key, array) is skipped by
// counting its containers until `skip` of them are closed.
class StatsHandler
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, StatsHandler> {
 public:
  explicit StatsHandler(StatsScope scope) : scope_(scope) {}

  AddStats stats;
  bool root_not_object = false;
  bool stopped =
      false;  // kNumRecords scope: numRecords reached, parse stopped on purpose

  bool Null() { return Value(StatNull{}); }
  bool Bool(bool b) { return Value(b); }
  bool Int(int i) { return Value(static_cast<int64_t>(i)); }
  bool Uint(unsigned u) { return Value(static_cast<int64_t>(u)); }
  bool Int64(int64_t i) { return Value(i); }
  bool Uint64(uint64_t u) {
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Value(static_cast<double>(u));
    }
    return Value(static_cast<int64_t>(u));
  }
  bool Double(double d) { return Value(d); }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    return Value(std::string(s, len));
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    if (skip_ == 0) key_.assign(s, len);
    return true;
  }
  bool StartObject() { return Start(/*object=*/true); }
  bool EndObject(rapidjson::SizeType) { return End(); }
  bool StartArray() { return Start(/*object=*/false); }
  bool EndArray(rapidjson::SizeType) { return End(); }

 private:
  // The slot of the current key in the current section, or nullptr when the key was
  // seen before in this section (first occurrence wins).
  std::optional<StatValue>* SectionSlot() {
    StatsPath path = path_;
    path.push_back(key_);
    ColumnStats& column = stats.columns[std::move(path)];
    std::optional<StatValue>* slot = section_ == Member::kMinValues ? &column.min
                                     : section_ == Member::kMaxValues
                                         ? &column.max
                                         : &column.null_count;
    return slot->has_value() ? nullptr : slot;
  }

  // A top-level member: true when this is its first occurrence.
  bool FirstAtTop(Member m) {
    if (m == Member::kOther) return false;
    auto& seen = seen_[static_cast<size_t>(m)];
    if (seen) return false;
    seen = true;
    return true;
  }

  template <typename T>
  bool Value(T&& v) {
    if (skip_ > 0) return true;
    if (depth_ == 0) {  // the root is a scalar
      root_not_object = true;
      return false;
    }
    if (depth_ == 1) {
      Member m = MemberOf(key_);
      if (!FirstAtTop(m)) return true;
      if constexpr (std::is_same_v<std::decay_t<T>, int64_t>) {
        if (m == Member::kNumRecords) stats.num_records = v;
      }
      if constexpr (std::is_same_v<std::decay_t<T>, bool>) {
        if (m == Member::kTightBounds) stats.tight_bounds = v;
      }
      return StopAfter(m);
    }
    if (auto* slot = SectionSlot()) {
      slot->emplace(std::in_place_type<std::decay_t<T>>, std::forward<T>(v));
    }
    return true;
  }

  // kNumRecords scope ends the parse at the first numRecords, whatever its value.
  bool StopAfter(Member m) {
    if (scope_ == StatsScope::kNumRecords && m == Member::kNumRecords) {
      stopped = true;
      return false;
    }
    return true;
  }

  bool Start(bool object) {
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    if (depth_ == 0) {
      if (!object) {
        root_not_object = true;
        return false;
      }
      depth_ = 1;
      return true;
    }
    if (depth_ == 1) {
      Member m = MemberOf(key_);
      bool first = FirstAtTop(m);
      if (!StopAfter(m)) return false;
      bool section =
          m == Member::kMinValues || m == Member::kMaxValues || m == Member::kNullCount;
      if (first && section && object) {
        section_ = m;
        depth_ = 2;
        return true;
      }
      skip_ = 1;
      return true;
    }
    std::optional<StatValue>* slot = SectionSlot();
    if (slot) slot->emplace(std::in_place_type<StatNested>);
    if (!slot || !object) {
      skip_ = 1;
      return true;
    }
    path_.push_back(key_);
    ++depth_;
    return true;
  }

  bool End() {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    if (depth_ > 2) path_.pop_back();
    --depth_;
    return true;
  }

  StatsScope scope_;
  int depth_ = 0;
  int skip_ = 0;
  Member section_ = Member::kOther;
  StatsPath path_;
  std::string key_;
  std::array<bool, 5> seen_{};
};

}  // namespace

std::optional<int64_t> ColumnStats::Int(const std::optional<StatValue>& v) {
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&*v)) return *i;
  return std::nullopt;
}

const ColumnStats* AddStats::Find(const StatsPath& path) const {
  auto it = columns.find(path);
  return it == columns.end() ? nullptr : &it->second;
}

Result<AddStats> ParseAddStats(std::string_view json, StatsScope scope) {
  if (scope == StatsScope::kAll &&
      JsonNestingDepth(json, kMaxJsonDepth).exceeded_at != std::string_view::npos) {
    return Error{ErrorCode::kCorruptLog,
                 fmt::format("add.stats nests deeper than {} levels", kMaxJsonDepth)};
  }
  StatsHandler handler(scope);
  rapidjson::Reader reader;
  rapidjson::MemoryStream ms(json.data(), json.size());
  rapidjson::ParseResult ok = reader.Parse<rapidjson::kParseIterativeFlag>(ms, handler);
  if (handler.stopped) return std::move(handler.stats);
  if (handler.root_not_object) {
    return Error{ErrorCode::kCorruptLog, "add.stats is not a JSON object"};
  }
  if (!ok) {
    return Error{ErrorCode::kCorruptLog,
                 fmt::format("add.stats is not valid JSON at offset {}: {}", ok.Offset(),
                             rapidjson::GetParseError_En(ok.Code()))};
  }
  return std::move(handler.stats);
}

}  // namespace deltaguard
