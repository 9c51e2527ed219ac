/// \file deltaguard/ingest/csv_fields.h
/// Splitting one CSV record into fields, as Spark's CSV reader reads them: fields
/// separated by the delimiter, a field in quotes may hold delimiters, line breaks and
/// doubled quotes ("" is one quote), and the escape character (backslash by default)
/// makes the next character literal inside quotes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace deltaguard {

/// The fields of `record` into `fields` (cleared first); nullopt when it is well
/// formed, else what is wrong (a quote left open, text after a closing quote).
std::optional<std::string> SplitCsvRecord(std::string_view record, char delimiter,
                                          char quote, char escape,
                                          std::vector<std::string>* fields);

/// True when `record` ends inside a quoted field (multiLine: the record goes on on
/// the next line).
bool CsvQuoteOpen(std::string_view record, char delimiter, char quote, char escape);

}  // namespace deltaguard
