// CHAR/VARCHAR length enforcement over Arrow data (char_varchar_check.h).

#include "deltaguard/exec/char_varchar_check.h"

#include <arrow/array.h>
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

class Finder {
 public:
  explicit Finder(const CharVarcharLimit& limit) : limit_(limit) {}

  int64_t longest() const { return longest_; }

  // bad[i] = 1 when slot i of `array` holds, at steps[depth..], a value too long.
  Status Mark(const arrow::Array& array, size_t depth, std::vector<uint8_t>* bad) {
    bad->assign(static_cast<size_t>(array.length()), 0);
    const auto& steps = limit_.leaf.steps;
    if (depth == steps.size()) return MarkStrings(array, bad);
    const TypeStep& step = steps[depth];
    const arrow::Type::type id = array.type_id();
    if (step.kind == TypeStep::Kind::kField) {
      if (id != arrow::Type::STRUCT) return Mismatch(array, "a struct");
      const auto& s = static_cast<const arrow::StructArray&>(array);
      int index = -1;
      for (int i = 0; i < s.num_fields(); ++i) {
        if (EqualsIgnoreCase(s.struct_type()->field(i)->name(), step.field)) index = i;
      }
      if (index < 0) return OkStatus();
      std::vector<uint8_t> child;
      // field() is sliced to the struct's own offset and length.
      DELTA_RETURN_IF_ERROR(Mark(*s.field(index), depth + 1, &child));
      for (int64_t i = 0; i < s.length(); ++i) (*bad)[i] = child[i] && s.IsValid(i);
      return OkStatus();
    }
    if (step.kind == TypeStep::Kind::kElement) {
      if (id == arrow::Type::LIST) {
        const auto& l = static_cast<const arrow::ListArray&>(array);
        return MarkNested(l, *l.values(), depth, bad);
      }
      if (id == arrow::Type::LARGE_LIST) {
        const auto& l = static_cast<const arrow::LargeListArray&>(array);
        return MarkNested(l, *l.values(), depth, bad);
      }
      return Mismatch(array, "an array");
    }
    if (id != arrow::Type::MAP) return Mismatch(array, "a map");
    const auto& m = static_cast<const arrow::MapArray&>(array);
    return MarkNested(m, step.kind == TypeStep::Kind::kKey ? *m.keys() : *m.items(),
                      depth, bad);
  }

 private:
  // A list-like array: slot i covers values [offset(i), offset(i+1)) of `values`.
  template <typename ListLike>
  Status MarkNested(const ListLike& list, const arrow::Array& values, size_t depth,
                    std::vector<uint8_t>* bad) {
    if (list.length() == 0) return OkStatus();
    const int64_t begin = list.value_offset(0);
    const int64_t end = list.value_offset(list.length());
    std::vector<uint8_t> child;
    DELTA_RETURN_IF_ERROR(Mark(*values.Slice(begin, end - begin), depth + 1, &child));
    for (int64_t i = 0; i < list.length(); ++i) {
      if (list.IsNull(i)) continue;
      const auto first = child.begin() + (list.value_offset(i) - begin);
      const auto last = child.begin() + (list.value_offset(i + 1) - begin);
      (*bad)[i] = std::find(first, last, uint8_t{1}) != last;
    }
    return OkStatus();
  }

  template <typename StringArray>
  void MarkValues(const StringArray& a, std::vector<uint8_t>* bad) {
    const int64_t limit = limit_.leaf.length;
    for (int64_t i = 0; i < a.length(); ++i) {
      if (a.IsNull(i)) continue;
      const std::string_view v = a.GetView(i);
      // A UTF-8 value has at most as many code points as bytes: count only long ones.
      if (static_cast<int64_t>(v.size()) <= limit) continue;
      const int64_t n = Utf8CodePoints(v);
      if (n <= limit) continue;
      (*bad)[i] = 1;
      longest_ = std::max(longest_, n);
    }
  }

  Status MarkStrings(const arrow::Array& array, std::vector<uint8_t>* bad) {
    switch (array.type_id()) {
      case arrow::Type::STRING:
        MarkValues(static_cast<const arrow::StringArray&>(array), bad);
        return OkStatus();
      case arrow::Type::LARGE_STRING:
        MarkValues(static_cast<const arrow::LargeStringArray&>(array), bad);
        return OkStatus();
      case arrow::Type::STRING_VIEW:
        MarkValues(static_cast<const arrow::StringViewArray&>(array), bad);
        return OkStatus();
      default:
        return Mismatch(array, "a string");
    }
  }

  Status Mismatch(const arrow::Array& array, std::string_view expected) const {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "column {}: its {} metadata \"{}\" expects {} at {}, but the data "
                     "holds {}",
                     limit_.column, kCharVarcharTypeKey, limit_.raw_type, expected,
                     limit_.Path(), array.type()->ToString());
  }

  const CharVarcharLimit& limit_;
  int64_t longest_ = 0;
};

}  // namespace

Result<TooLongRows> FindTooLong(const CharVarcharLimit& limit,
                                const arrow::RecordBatch& batch) {
  TooLongRows out;
  const auto& fields = batch.schema()->fields();
  int index = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i]->name(), limit.column)) index = static_cast<int>(i);
  }
  if (index < 0) {
    out.rows.assign(static_cast<size_t>(batch.num_rows()), 0);
    return out;
  }
  Finder finder(limit);
  DELTA_RETURN_IF_ERROR(finder.Mark(*batch.column(index), 0, &out.rows));
  out.count = std::count(out.rows.begin(), out.rows.end(), uint8_t{1});
  out.longest = finder.longest();
  return out;
}

}  // namespace deltaguard
