#include "deltaguard/evolution/write_checks.h"

#include <algorithm>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

std::vector<std::string> FieldNames(const StructType& s) {
  std::vector<std::string> out;
  out.reserve(s.num_fields());
  for (const StructField& f : s.fields()) out.push_back(f.name);
  return out;
}

std::vector<std::string> SortedLower(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(AsciiToLower(n));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Status CheckPositionalNames(const StructType& table,
                            const std::vector<std::string>& input_names,
                            std::string_view table_name) {
  const std::vector<std::string> table_names = FieldNames(table);
  if (input_names.size() != table_names.size()) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DELTA_INSERT_COLUMN_ARITY_MISMATCH: Cannot write to table '{}': {} "
                     "data columns; the table has {} column(s) ({}) but the input has {} "
                     "({}). Columns are matched by position here; list the columns to "
                     "write, or match them by name (BY NAME)",
                     table_name,
                     input_names.size() > table_names.size() ? "too many" : "not enough",
                     table_names.size(), JoinNames(table_names), input_names.size(),
                     JoinNames(input_names));
  }
  bool same_order = true;
  for (size_t i = 0; i < input_names.size(); ++i) {
    if (!EqualsIgnoreCase(input_names[i], table_names[i])) same_order = false;
  }
  if (same_order) return OkStatus();
  const std::vector<std::string> a = SortedLower(table_names);
  const std::vector<std::string> b = SortedLower(input_names);
  const bool unique = std::adjacent_find(b.begin(), b.end()) == b.end();
  if (unique && a == b) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "the input's columns are the columns of table '{}' in a different "
                     "order (table: {}; input: {}). Matched by position, values would be "
                     "written into the wrong columns; match the columns by name instead "
                     "(INSERT INTO ... BY NAME, or a CSV file with a header row)",
                     table_name, JoinNames(table_names), JoinNames(input_names));
  }
  return OkStatus();
}

Result<std::vector<std::string>> CheckPartitionColumns(
    const StructType& schema, const std::vector<std::string>& partition_columns) {
  std::vector<std::string> out;
  out.reserve(partition_columns.size());
  for (const std::string& name : partition_columns) {
    const int i = schema.FieldIndexCaseInsensitive(name);
    if (i < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "DELTA_PARTITION_COLUMN_NOT_FOUND: partition column '{}' is not a "
                       "top-level column of the schema ({})",
                       name, JoinNames(FieldNames(schema)));
    }
    const StructField& f = schema.field(static_cast<size_t>(i));
    const TypeKind k = f.type->kind();
    if (f.type->is_nested() || k == TypeKind::kVoid || k == TypeKind::kVariant) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "DELTA_INVALID_PARTITION_COLUMN_TYPE: column '{}' of type {} cannot "
          "be a partition column; partition columns must have a primitive "
          "type",
          f.name, f.type->ToString());
    }
    for (const std::string& seen : out) {
      if (seen == f.name) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "DELTA_DUPLICATE_COLUMNS_FOUND: partition column '{}' is given "
                         "more than once",
                         f.name);
      }
    }
    out.push_back(f.name);
  }
  if (!out.empty() && out.size() == schema.num_fields()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION: cannot partition by every "
        "column ({}); at least one column must hold data",
        JoinNames(out));
  }
  return out;
}

}  // namespace deltaguard
