/// \file sqllogic/test_file.h
/// Parse golden `.test` files in DuckDB's sqllogictest format into records. Parsing is
/// pure text work (no Arrow, no Session), so every directive is unit tested alone;
/// runner.h executes the records.
///
/// Format (one record per paragraph; records are separated by blank lines):
///   # name: / # description: / # group:   header comments (other `#` lines: comments)
///   statement ok|error [CONN]             SQL lines; for `error` optionally `----` and
///                                         the expected message (a substring of the
///                                         actual error, or `<REGEX>:pattern`)
///   query TYPES [nosort|rowsort|valuesort] [CONN]
///                                         SQL lines, `----`, expected rows with values
///                                         separated by tabs (or one value per line)
///   restart | require NAME | mode MODE
///   loop VAR BEGIN END | foreach VAR V1 V2 ...   ... endloop   (nest freely)
/// Substitutions (`{TEMP_DIR}`, `{CORPORA}`, `${var}`) happen when records run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard::sqllogic {

enum class SortMode : uint8_t { kNoSort, kRowSort, kValueSort };

struct Record {
  enum class Kind : uint8_t {
    kStatementOk,
    kStatementError,
    kQuery,
    kRestart,
    kRequire,
    kMode,
    kLoop,  ///< `loop` or `foreach`; `body` holds the records up to `endloop`
  };
  Kind kind = Kind::kStatementOk;
  int line = 0;            ///< 1-based line of the directive
  std::string connection;  ///< empty = the default connection
  std::string sql;         ///< statement / query text (lines joined by '\n')
  /// statement error: the expected message (empty = any error); query: unused.
  std::string expected_error;
  bool has_expected_error = false;  ///< a `----` section was given
  std::string types;                ///< query: the type letters, e.g. "ITT"
  SortMode sort = SortMode::kNoSort;
  std::vector<std::string> expected_lines;  ///< query: the lines after `----`
  std::string argument;                     ///< require: the name; mode: the mode
  // kLoop
  std::string loop_var;
  std::vector<std::string> loop_values;  ///< every value the variable takes, in order
  std::vector<Record> body;
};

struct TestFile {
  std::string path;
  std::string name;         ///< `# name:`
  std::string description;  ///< `# description:`
  std::string group;        ///< `# group:`
  std::vector<Record> records;
};

/// Parse the text of a test file. `path` is used in messages only. Unknown directives,
/// a missing `----` or result in a query, a malformed type list, `endloop` without a
/// loop and a loop without `endloop` are kParseError naming path:line.
Result<TestFile> ParseTestFile(std::string_view text, const std::string& path);

/// Replace `${var}` for every variable in `vars`; unknown `${...}` are left as they are.
std::string SubstituteVariables(std::string_view text,
                                const std::map<std::string, std::string>& vars);

/// Split an expected-row line on tabs.
std::vector<std::string> SplitTabs(std::string_view line);

}  // namespace deltaguard::sqllogic
