#include "sqllogic/result_text.h"

#include <arrow/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "deltaguard/exec/result_format.h"

namespace deltaguard::sqllogic {

Result<TextRows> RenderRows(const arrow::Table& table) {
  TextRows rows;
  arrow::TableBatchReader reader(table);
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = reader.ReadNext(&batch);
    if (!st.ok()) {
      return MakeError(ErrorCode::kInternal, "reading the result: {}", st.ToString());
    }
    if (!batch) break;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::vector<std::string> row;
      row.reserve(batch->num_columns());
      for (int c = 0; c < batch->num_columns(); ++c) {
        std::string value;
        AppendTextValue(*batch->column(c), r, /*csv=*/false, &value);
        if (value.empty() && !batch->column(c)->IsNull(r)) value = "(empty)";
        row.push_back(std::move(value));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string FormatRows(const TextRows& rows) {
  std::string out;
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) out.push_back('\t');
      out += row[c];
    }
    out.push_back('\n');
  }
  return out;
}

namespace {

// The expected lines as rows: tab-separated values per line, or DuckDB's one value per
// line (then the values fill rows of `num_columns` in order).
std::optional<TextRows> ExpectedRows(const std::vector<std::string>& lines,
                                     int num_columns) {
  TextRows rows;
  bool row_wise = true;
  for (const auto& line : lines) {
    auto values = SplitTabs(line);
    if (static_cast<int>(values.size()) != num_columns) row_wise = false;
    rows.push_back(std::move(values));
  }
  if (row_wise) return rows;
  if (num_columns <= 1 || lines.size() % num_columns != 0) return std::nullopt;
  TextRows value_wise;
  for (size_t i = 0; i < lines.size(); i += num_columns) {
    std::vector<std::string> row;
    for (int c = 0; c < num_columns; ++c) {
      if (lines[i + c].find('\t') != std::string::npos) return std::nullopt;
      row.push_back(lines[i + c]);
    }
    value_wise.push_back(std::move(row));
  }
  return value_wise;
}

void ApplySort(SortMode mode, TextRows* rows) {
  if (mode == SortMode::kRowSort) {
    std::sort(rows->begin(), rows->end());
  } else if (mode == SortMode::kValueSort) {
    std::vector<std::string> values;
    for (auto& row : *rows) {
      for (auto& v : row) values.push_back(std::move(v));
    }
    std::sort(values.begin(), values.end());
    size_t width = rows->empty() ? 0 : (*rows)[0].size();
    size_t k = 0;
    for (auto& row : *rows) {
      for (size_t c = 0; c < width; ++c) row[c] = values[k++];
    }
  }
}

constexpr std::string_view kRegexPrefix = "<REGEX>:";

// An expected value matches when equal, or, written `<REGEX>:pattern`, when the whole
// actual value matches the pattern (for timestamps, ids and engine versions).
bool ValueMatches(const std::string& expected, const std::string& actual) {
  if (expected == actual) return true;
  if (expected.rfind(kRegexPrefix, 0) != 0) return false;
  try {
    return std::regex_match(actual, std::regex(expected.substr(kRegexPrefix.size())));
  } catch (const std::regex_error&) {
    return false;  // a bad pattern never matches; the diff shows it
  }
}

bool RowsMatch(const TextRows& expected, const TextRows& actual) {
  if (expected.size() != actual.size()) return false;
  for (size_t r = 0; r < actual.size(); ++r) {
    if (expected[r].size() != actual[r].size()) return false;
    for (size_t c = 0; c < actual[r].size(); ++c) {
      if (!ValueMatches(expected[r][c], actual[r][c])) return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> CompareQueryResult(const Record& record,
                                              const std::vector<std::string>& expected,
                                              int num_columns, TextRows actual) {
  if (static_cast<int>(record.types.size()) != num_columns) {
    return fmt::format(
        "query declares {} column(s) ('{}') but the result has {} column(s); actual:\n{}",
        record.types.size(), record.types, num_columns, FormatRows(actual));
  }
  auto expected_rows = ExpectedRows(expected, num_columns);
  if (!expected_rows) {
    std::string text;
    for (const auto& line : expected) text += line + "\n";
    return fmt::format(
        "expected rows do not have {} tab-separated values each; "
        "expected:\n{}actual:\n{}",
        num_columns, text, FormatRows(actual));
  }
  ApplySort(record.sort, &*expected_rows);
  ApplySort(record.sort, &actual);
  if (RowsMatch(*expected_rows, actual)) return std::nullopt;
  std::string first;
  if (expected_rows->size() != actual.size()) {
    first = fmt::format("expected {} row(s) but got {}", expected_rows->size(),
                        actual.size());
  } else {
    for (size_t r = 0; r < actual.size(); ++r) {
      if (!RowsMatch({(*expected_rows)[r]}, {actual[r]})) {
        first = fmt::format("row {} differs", r + 1);
        break;
      }
    }
  }
  return fmt::format("{}\nexpected:\n{}actual:\n{}", first, FormatRows(*expected_rows),
                     FormatRows(actual));
}

}  // namespace deltaguard::sqllogic
