#include "deltaguard/exec/utf8_check_internal.h"

#include <arrow/util/utf8.h>
#include <fmt/format.h>

#include <mutex>

#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

// Arrow's validator needs its tables built once per process.
void InitUtf8Once() {
  static std::once_flag once;
  std::call_once(once, [] { arrow::util::InitializeUTF8(); });
}

struct BadValue {
  int64_t index = -1;  // in the array, -1 when every value is valid
  std::string path;    // below the column: ".f", "[]"
};

template <typename ArrayT>
BadValue FindBadString(const ArrayT& a) {
  if (a.length() == 0) return {};
  // One pass over the values' bytes, then a check that no value starts inside a
  // character (a value ending in half a character would start the next one there).
  const auto first = a.value_offset(0);
  const auto last = a.value_offset(a.length());
  std::string_view all(reinterpret_cast<const char*>(a.raw_data()) + first,
                       static_cast<size_t>(last - first));
  bool bad = FindInvalidUtf8(all) != std::string_view::npos;
  for (int64_t i = 0; !bad && i < a.length(); ++i) {
    const auto start = a.value_offset(i);
    bad = a.value_length(i) > 0 &&
          (static_cast<unsigned char>(all[static_cast<size_t>(start - first)]) & 0xC0) ==
              0x80;
  }
  if (!bad) return {};
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsValid(i) && FindInvalidUtf8(a.GetView(i)) != std::string_view::npos) {
      return {i, ""};
    }
  }
  return {};  // only bytes under NULL slots are ill-formed: nothing is stored
}

// The first row (of `array`'s parent) holding an ill-formed string, at any depth.
BadValue FindBad(const arrow::Array& array) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
      return FindBadString(static_cast<const arrow::StringArray&>(array));
    case arrow::Type::LARGE_STRING:
      return FindBadString(static_cast<const arrow::LargeStringArray&>(array));
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(array);
      for (int f = 0; f < s.num_fields(); ++f) {
        auto child = s.GetFlattenedField(f);
        if (!child.ok()) continue;
        BadValue bad = FindBad(**child);
        if (bad.index >= 0) {
          return {bad.index, "." + s.struct_type()->field(f)->name() + bad.path};
        }
      }
      return {};
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::MAP: {
      std::shared_ptr<arrow::Array> values;
      if (array.type_id() == arrow::Type::LARGE_LIST) {
        values = static_cast<const arrow::LargeListArray&>(array).values();
      } else {
        values = static_cast<const arrow::ListArray&>(array).values();
      }
      BadValue bad = FindBad(*values);
      if (bad.index < 0) return {};
      // The list row holding element `bad.index`.
      for (int64_t i = 0; i < array.length(); ++i) {
        int64_t begin = 0, end = 0;
        if (array.type_id() == arrow::Type::LARGE_LIST) {
          const auto& l = static_cast<const arrow::LargeListArray&>(array);
          begin = l.value_offset(i);
          end = l.value_offset(i + 1);
        } else {
          const auto& l = static_cast<const arrow::ListArray&>(array);
          begin = l.value_offset(i);
          end = l.value_offset(i + 1);
        }
        if (array.IsValid(i) && bad.index >= begin && bad.index < end) {
          return {i, "[]" + bad.path};
        }
      }
      return {};
    }
    default:
      return {};
  }
}

}  // namespace

size_t FindInvalidUtf8(std::string_view s) {
  InitUtf8Once();
  if (arrow::util::ValidateUTF8(reinterpret_cast<const uint8_t*>(s.data()),
                                static_cast<int64_t>(s.size()))) {
    return std::string_view::npos;
  }
  size_t offset = 0;
  return IsValidUtf8(s, &offset) ? std::string_view::npos : offset;
}

Status CheckUtf8Columns(const arrow::RecordBatch& batch, const std::string& path,
                        int64_t first_row) {
  for (int c = 0; c < batch.num_columns(); ++c) {
    BadValue bad = FindBad(*batch.column(c));
    if (bad.index < 0) continue;
    return MakeError(ErrorCode::kInvalidArgument,
                     "input file '{}', row {}, column '{}{}': a STRING value is not "
                     "valid UTF-8; Delta stores strings as UTF-8, so the file's writer "
                     "must be fixed (or the column read as BINARY)",
                     EscapeForMessage(path), first_row + bad.index + 1,
                     EscapeForMessage(batch.schema()->field(c)->name()), bad.path);
  }
  return OkStatus();
}

}  // namespace deltaguard
