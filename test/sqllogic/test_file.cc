#include "sqllogic/test_file.h"

#include <cctype>

#include "deltaguard/util/string_util.h"

namespace deltaguard::sqllogic {
namespace {

std::vector<std::string> SplitWords(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsAsciiSpace(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !IsAsciiSpace(line[i])) ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

bool IsBlank(std::string_view line) { return Trim(line).empty(); }

bool ParseInt(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  size_t pos = 0;
  bool neg = text[0] == '-';
  if (neg) pos = 1;
  if (pos == text.size()) return false;
  int64_t v = 0;
  for (; pos < text.size(); ++pos) {
    if (!std::isdigit(static_cast<unsigned char>(text[pos]))) return false;
    if (v > 100000000) return false;  // loops are small; refuse absurd bounds
    v = v * 10 + (text[pos] - '0');
  }
  *out = neg ? -v : v;
  return true;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : path_(path) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines_.emplace_back(line);
      start = end + 1;
    }
    // A final newline does not start another line.
    if (!lines_.empty() && lines_.back().empty()) lines_.pop_back();
  }

  Result<TestFile> Parse() {
    TestFile file;
    file.path = path_;
    DELTA_RETURN_IF_ERROR(ParseBlock(&file, &file.records, /*loop_line=*/0));
    return file;
  }

 private:
  template <typename... Args>
  Error Fail(size_t line_index, fmt::format_string<Args...> format, Args&&... args) {
    return MakeError(ErrorCode::kParseError, "{}:{}: {}", path_, line_index + 1,
                     fmt::format(format, std::forward<Args>(args)...));
  }

  // Lines from pos_ up to a blank line, `----` or the end; pos_ stops on the terminator.
  std::vector<std::string> ReadUntilSeparator() {
    std::vector<std::string> out;
    while (pos_ < lines_.size() && !IsBlank(lines_[pos_]) && lines_[pos_] != "----") {
      out.push_back(lines_[pos_++]);
    }
    return out;
  }

  // Lines from pos_ up to a blank line or the end (the expected section).
  std::vector<std::string> ReadUntilBlank() {
    std::vector<std::string> out;
    while (pos_ < lines_.size() && !IsBlank(lines_[pos_])) out.push_back(lines_[pos_++]);
    return out;
  }

  static std::string Join(const std::vector<std::string>& lines) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) out.push_back('\n');
      out += lines[i];
    }
    return out;
  }

  void ParseHeaderComment(TestFile* file, std::string_view line) {
    std::string_view body = Trim(line.substr(1));
    auto take = [&](std::string_view key, std::string* out) {
      if (body.size() >= key.size() &&
          EqualsIgnoreCase(body.substr(0, key.size()), key)) {
        *out = std::string(Trim(body.substr(key.size())));
        return true;
      }
      return false;
    };
    if (!take("name:", &file->name) && !take("description:", &file->description)) {
      take("group:", &file->group);
    }
  }

  Status ParseStatement(const std::vector<std::string>& words, size_t at,
                        Record* record) {
    if (words.size() < 2 || (words[1] != "ok" && words[1] != "error")) {
      return Fail(at, "expected 'statement ok' or 'statement error', got '{}'",
                  lines_[at]);
    }
    if (words.size() > 3) {
      return Fail(at, "too many arguments to statement: '{}'", lines_[at]);
    }
    record->kind =
        words[1] == "ok" ? Record::Kind::kStatementOk : Record::Kind::kStatementError;
    if (words.size() == 3) record->connection = words[2];
    auto sql = ReadUntilSeparator();
    if (sql.empty()) return Fail(at, "statement without SQL");
    record->sql = Join(sql);
    if (pos_ < lines_.size() && lines_[pos_] == "----") {
      if (record->kind == Record::Kind::kStatementOk) {
        return Fail(pos_, "'statement ok' takes no '----' section");
      }
      ++pos_;
      record->has_expected_error = true;
      record->expected_error = Join(ReadUntilBlank());
    }
    return OkStatus();
  }

  Status ParseQuery(const std::vector<std::string>& words, size_t at, Record* record) {
    record->kind = Record::Kind::kQuery;
    if (words.size() < 2)
      return Fail(at, "query needs its column types, e.g. 'query IT'");
    for (char c : words[1]) {
      if (c != 'I' && c != 'T' && c != 'R') {
        return Fail(at, "bad type letter '{}' in '{}' (expected I, T or R)", c, words[1]);
      }
    }
    record->types = words[1];
    size_t next = 2;
    if (next < words.size()) {
      const std::string& w = words[next];
      if (w == "nosort" || w == "rowsort" || w == "valuesort") {
        record->sort = w == "rowsort"     ? SortMode::kRowSort
                       : w == "valuesort" ? SortMode::kValueSort
                                          : SortMode::kNoSort;
        ++next;
      }
    }
    if (next < words.size()) record->connection = words[next++];
    if (next < words.size()) {
      return Fail(at, "too many arguments to query: '{}'", lines_[at]);
    }
    auto sql = ReadUntilSeparator();
    if (sql.empty()) return Fail(at, "query without SQL");
    record->sql = Join(sql);
    if (pos_ >= lines_.size() || lines_[pos_] != "----") {
      return Fail(at, "query without '----' and expected result");
    }
    ++pos_;
    record->expected_lines = ReadUntilBlank();
    return OkStatus();
  }

  Status ParseLoop(TestFile* file, const std::vector<std::string>& words, size_t at,
                   Record* record) {
    record->kind = Record::Kind::kLoop;
    if (words[0] == "loop") {
      int64_t begin, end;
      if (words.size() != 4 || !ParseInt(words[2], &begin) || !ParseInt(words[3], &end) ||
          begin > end) {
        return Fail(at, "expected 'loop VAR BEGIN END' with BEGIN <= END, got '{}'",
                    lines_[at]);
      }
      record->loop_var = words[1];
      for (int64_t i = begin; i < end; ++i)
        record->loop_values.push_back(std::to_string(i));
    } else {
      if (words.size() < 3) {
        return Fail(at, "expected 'foreach VAR VALUE...', got '{}'", lines_[at]);
      }
      record->loop_var = words[1];
      record->loop_values.assign(words.begin() + 2, words.end());
    }
    return ParseBlock(file, &record->body, at + 1);
  }

  // Parse records into `out` until `endloop` (when loop_line > 0) or the end.
  Status ParseBlock(TestFile* file, std::vector<Record>* out, size_t loop_line) {
    while (pos_ < lines_.size()) {
      const std::string& line = lines_[pos_];
      if (IsBlank(line)) {
        ++pos_;
        continue;
      }
      if (Trim(line).front() == '#') {
        ParseHeaderComment(file, Trim(line));
        ++pos_;
        continue;
      }
      size_t at = pos_++;
      auto words = SplitWords(line);
      const std::string& directive = words[0];
      Record record;
      record.line = static_cast<int>(at + 1);
      if (directive == "statement") {
        DELTA_RETURN_IF_ERROR(ParseStatement(words, at, &record));
      } else if (directive == "query") {
        DELTA_RETURN_IF_ERROR(ParseQuery(words, at, &record));
      } else if (directive == "restart") {
        if (words.size() != 1) return Fail(at, "restart takes no arguments");
        record.kind = Record::Kind::kRestart;
      } else if (directive == "require") {
        if (words.size() != 2) return Fail(at, "expected 'require NAME'");
        record.kind = Record::Kind::kRequire;
        record.argument = words[1];
      } else if (directive == "mode") {
        if (words.size() != 2 ||
            (words[1] != "output_result" && words[1] != "skip" && words[1] != "unskip")) {
          return Fail(at, "expected 'mode output_result|skip|unskip', got '{}'", line);
        }
        record.kind = Record::Kind::kMode;
        record.argument = words[1];
      } else if (directive == "loop" || directive == "foreach") {
        DELTA_RETURN_IF_ERROR(ParseLoop(file, words, at, &record));
      } else if (directive == "endloop") {
        if (words.size() != 1) return Fail(at, "endloop takes no arguments");
        if (loop_line == 0) return Fail(at, "endloop without loop");
        return OkStatus();
      } else {
        return Fail(at, "unknown directive '{}'", directive);
      }
      out->push_back(std::move(record));
    }
    if (loop_line > 0) return Fail(loop_line - 1, "loop without endloop");
    return OkStatus();
  }

  std::string path_;
  std::vector<std::string> lines_;
  size_t pos_ = 0;
};

}  // namespace

Result<TestFile> ParseTestFile(std::string_view text, const std::string& path) {
  return Parser(text, path).Parse();
}

std::string SubstituteVariables(std::string_view text,
                                const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      if (close != std::string_view::npos) {
        auto it = vars.find(std::string(text.substr(i + 2, close - i - 2)));
        if (it != vars.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out.push_back(text[i++]);
  }
  return out;
}

std::vector<std::string> SplitTabs(std::string_view line) {
  std::vector<std::string> out;
  for (auto part : Split(line, '\t')) out.emplace_back(part);
  return out;
}

}  // namespace deltaguard::sqllogic
