// CSV records into fields (ingest/csv_fields.h).

#include "deltaguard/ingest/csv_fields.h"

#include <fmt/format.h>

namespace deltaguard {

std::optional<std::string> SplitCsvRecord(std::string_view record, char delimiter,
                                          char quote, char escape,
                                          std::vector<std::string>* fields) {
  fields->clear();
  std::string field;
  size_t i = 0;
  const size_t n = record.size();
  while (true) {
    field.clear();
    if (i < n && record[i] == quote) {
      const size_t opened = i;
      ++i;
      bool closed = false;
      while (i < n) {
        const char c = record[i];
        if (c == escape && escape != quote && i + 1 < n) {
          field.push_back(record[i + 1]);
          i += 2;
        } else if (c == quote) {
          if (i + 1 < n && record[i + 1] == quote) {
            field.push_back(quote);
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          field.push_back(c);
          ++i;
        }
      }
      if (!closed) {
        return fmt::format("the quote opened at character {} is not closed", opened + 1);
      }
      if (i < n && record[i] != delimiter) {
        return fmt::format("text follows the closing quote at character {}", i + 1);
      }
    } else {
      while (i < n && record[i] != delimiter) field.push_back(record[i++]);
    }
    fields->push_back(field);
    if (i >= n) break;
    ++i;  // the delimiter
  }
  return std::nullopt;
}

bool CsvQuoteOpen(std::string_view record, char delimiter, char quote, char escape) {
  bool open = false;
  bool at_field_start = true;
  for (size_t i = 0; i < record.size(); ++i) {
    const char c = record[i];
    if (open) {
      if (c == escape && escape != quote && i + 1 < record.size()) {
        ++i;
      } else if (c == quote) {
        if (i + 1 < record.size() && record[i + 1] == quote) {
          ++i;
        } else {
          open = false;
        }
      }
    } else if (c == quote && at_field_start) {
      open = true;
    }
    at_field_start = !open && c == delimiter;
  }
  return open;
}

}  // namespace deltaguard
