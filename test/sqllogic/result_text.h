/// \file sqllogic/result_text.h
/// Render query results as golden-test text and compare them with a record's expected
/// rows. Values use exec/result_format.h's AppendTextValue (the text the CLI's table
/// shows), NULL as `NULL` and the empty string as `(empty)`, so a value never renders
/// as a blank line (which would end the record).
#pragma once

#include <arrow/table.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/util/result.h"
#include "sqllogic/test_file.h"

namespace deltaguard::sqllogic {

using TextRows = std::vector<std::vector<std::string>>;

/// Every row of `table` as text values.
Result<TextRows> RenderRows(const arrow::Table& table);

/// Render `rows` as the expected section of a test file (tab-separated lines).
std::string FormatRows(const TextRows& rows);

/// Compare a query's actual rows (with `num_columns` columns) with the record's
/// expected lines after applying its sort mode. Returns nullopt when they match, else
/// a message with the first difference and both results in full. An expected value
/// `<REGEX>:pattern` matches an actual value that the pattern matches entirely (use it
/// with nosort: sorting happens before matching).
std::optional<std::string> CompareQueryResult(const Record& record,
                                              const std::vector<std::string>& expected,
                                              int num_columns, TextRows actual);

}  // namespace deltaguard::sqllogic
