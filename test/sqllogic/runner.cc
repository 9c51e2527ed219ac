#include "sqllogic/runner.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "sqllogic/result_text.h"

namespace deltaguard::sqllogic {
namespace {

constexpr std::string_view kRegexPrefix = "<REGEX>:";

std::string Indent(std::string_view text) {
  std::string out = "    ";
  for (char c : text) {
    out.push_back(c);
    if (c == '\n') out += "    ";
  }
  return out;
}

// Run a statement to the end: execute it and read its rows, if any (errors can surface
// while rows stream).
Result<std::shared_ptr<arrow::Table>> ExecuteAndCollect(Session& session,
                                                        const std::string& sql) {
  DELTA_ASSIGN_OR_RETURN(StatementResult result, session.ExecuteSql(sql));
  return CollectRows(result);
}

bool ReplaceAll(std::string* text, std::string_view from, std::string_view to) {
  bool any = false;
  size_t pos = 0;
  while ((pos = text->find(from, pos)) != std::string::npos) {
    text->replace(pos, from.size(), to);
    pos += to.size();
    any = true;
  }
  return any;
}

}  // namespace

Runner::Runner(TestFile file, RunnerOptions options)
    : file_(std::move(file)), options_(std::move(options)) {
  if (!options_.out) options_.out = &std::cout;
  if (!options_.err) options_.err = &std::cerr;
}

Runner::~Runner() {
  sessions_.clear();
  if (!temp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir_, ec);
  }
}

Outcome Runner::Run() {
  const char* tmp = getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dg-sqllogic-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    *options_.err << file_.path << ": cannot create a temp directory under " << pattern
                  << std::endl;
    return Outcome::kFailed;
  }
  temp_dir_ = pattern;
  Step step = RunRecords(file_.records);
  sessions_.clear();
  std::error_code ec;
  std::filesystem::remove_all(temp_dir_, ec);
  temp_dir_.clear();
  if (step == Step::kFail) return Outcome::kFailed;
  if (step == Step::kSkipFile) return Outcome::kSkipped;
  return Outcome::kPassed;
}

Runner::Step Runner::RunRecords(const std::vector<Record>& records) {
  for (const auto& record : records) {
    Step step = RunRecord(record);
    if (step != Step::kContinue) return step;
  }
  return Step::kContinue;
}

Session& Runner::Connection(const std::string& name) {
  auto& slot = sessions_[name];
  if (!slot) {
    SessionOptions options;
    options.warehouse = temp_dir_ + "/warehouse";
    slot = std::make_unique<Session>(std::move(options));
  }
  return *slot;
}

std::string Runner::Substitute(std::string_view text) const {
  std::string out = SubstituteVariables(text, vars_);
  ReplaceAll(&out, "{TEMP_DIR}", temp_dir_);
  // The folder of the .test file, for fixtures kept beside it (contract files, ...).
  ReplaceAll(&out, "{TEST_DIR}",
             std::filesystem::absolute(file_.path).parent_path().string());
  if (!options_.corpora.empty()) ReplaceAll(&out, "{CORPORA}", options_.corpora);
  return out;
}

Runner::Step Runner::Fail(const Record& record, const std::string& sql,
                          const std::string& what) {
  std::ostream& err = *options_.err;
  err << "FAILED " << file_.path << ":" << record.line;
  for (const auto& [var, value] : vars_) err << " [" << var << "=" << value << "]";
  err << "\n  SQL:\n" << Indent(sql) << "\n  " << what;
  if (what.empty() || what.back() != '\n') err << "\n";
  err.flush();
  return Step::kFail;
}

Runner::Step Runner::RunRecord(const Record& record) {
  if (skipping_) {
    if (record.kind == Record::Kind::kMode && record.argument == "unskip") {
      skipping_ = false;
    }
    return Step::kContinue;
  }
  switch (record.kind) {
    case Record::Kind::kStatementOk:
    case Record::Kind::kStatementError:
    case Record::Kind::kQuery: {
      std::string sql = Substitute(record.sql);
      if (sql.find("{CORPORA}") != std::string::npos) {
        return Fail(record, sql,
                    "{CORPORA} is used but DELTAGUARD_CORPORA is not set: add "
                    "'require corpora' to the file");
      }
      ++records_run_;
      return record.kind == Record::Kind::kQuery ? RunQuery(record, sql)
                                                 : RunStatement(record, sql);
    }
    case Record::Kind::kRestart:
      sessions_.clear();
      return Step::kContinue;
    case Record::Kind::kRequire: {
      if (record.argument != "corpora") {
        return Fail(
            record, "",
            fmt::format("unknown requirement '{}' (known: corpora)", record.argument));
      }
      std::error_code ec;
      if (options_.corpora.empty() ||
          !std::filesystem::is_directory(options_.corpora, ec)) {
        *options_.out << "SKIPPED " << file_.path << ": require corpora: "
                      << (options_.corpora.empty()
                              ? std::string("DELTAGUARD_CORPORA is not set")
                              : "no directory " + options_.corpora)
                      << std::endl;
        return Step::kSkipFile;
      }
      return Step::kContinue;
    }
    case Record::Kind::kMode:
      if (record.argument == "output_result") output_result_ = true;
      if (record.argument == "skip") skipping_ = true;
      return Step::kContinue;
    case Record::Kind::kLoop: {
      auto saved = vars_.find(record.loop_var) != vars_.end()
                       ? std::optional<std::string>(vars_[record.loop_var])
                       : std::nullopt;
      for (const auto& value : record.loop_values) {
        vars_[record.loop_var] = value;
        Step step = RunRecords(record.body);
        if (step != Step::kContinue) return step;
      }
      if (saved) {
        vars_[record.loop_var] = *saved;
      } else {
        vars_.erase(record.loop_var);
      }
      return Step::kContinue;
    }
  }
  return Step::kContinue;
}

Runner::Step Runner::RunStatement(const Record& record, const std::string& sql) {
  auto result = ExecuteAndCollect(Connection(record.connection), sql);
  if (record.kind == Record::Kind::kStatementOk) {
    if (!result) {
      return Fail(record, sql,
                  "expected success, got error:\n" + Indent(result.error().ToString()));
    }
    return Step::kContinue;
  }
  if (result) return Fail(record, sql, "expected an error, but the statement succeeded");
  std::string actual = result.error().ToString();
  if (output_result_)
    *options_.out << "-- error of line " << record.line << ":\n" << actual << "\n";
  if (!record.has_expected_error || record.expected_error.empty()) return Step::kContinue;
  std::string expected = Substitute(record.expected_error);
  bool match;
  if (expected.rfind(kRegexPrefix, 0) == 0) {
    try {
      std::regex re(expected.substr(kRegexPrefix.size()));
      match = std::regex_search(actual, re);
    } catch (const std::regex_error& e) {
      return Fail(record, sql, fmt::format("bad regex '{}': {}", expected, e.what()));
    }
  } else {
    match = actual.find(expected) != std::string::npos;
  }
  if (!match) {
    return Fail(
        record, sql,
        fmt::format("error message does not match\n  expected:\n{}\n  actual:\n{}",
                    Indent(expected), Indent(actual)));
  }
  return Step::kContinue;
}

Runner::Step Runner::RunQuery(const Record& record, const std::string& sql) {
  auto table = ExecuteAndCollect(Connection(record.connection), sql);
  if (!table) {
    return Fail(record, sql,
                "expected rows, got error:\n" + Indent(table.error().ToString()));
  }
  if (*table == nullptr) return Fail(record, sql, "the statement returned no rows");
  auto rows = RenderRows(**table);
  if (!rows) return Fail(record, sql, rows.error().ToString());
  if (output_result_) {
    *options_.out << "query " << std::string((*table)->num_columns(), 'T') << "\n"
                  << sql << "\n----\n"
                  << FormatRows(*rows) << std::endl;
    return Step::kContinue;
  }
  std::vector<std::string> expected;
  for (const auto& line : record.expected_lines) expected.push_back(Substitute(line));
  auto diff =
      CompareQueryResult(record, expected, (*table)->num_columns(), std::move(*rows));
  if (diff) return Fail(record, sql, *diff);
  return Step::kContinue;
}

int RunTestFile(const std::string& path, const RunnerOptions& options) {
  std::ostream& err = options.err ? *options.err : std::cerr;
  std::ostream& out = options.out ? *options.out : std::cout;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << "FAILED " << path << ": cannot read the file" << std::endl;
    return 1;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto file = ParseTestFile(buffer.str(), path);
  if (!file) {
    err << "FAILED " << file.error().ToString() << std::endl;
    return 1;
  }
  Runner runner(std::move(*file), options);
  switch (runner.Run()) {
    case Outcome::kPassed:
      out << "PASSED " << path << " (" << runner.records_run() << " statements)"
          << std::endl;
      return 0;
    case Outcome::kSkipped:
      return kSkipExitCode;
    case Outcome::kFailed:
      return 1;
  }
  return 1;
}

}  // namespace deltaguard::sqllogic
