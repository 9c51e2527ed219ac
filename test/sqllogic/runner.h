/// \file sqllogic/runner.h
/// Execute a parsed `.test` file against deltaguard Sessions (sql/session.h), the same
/// entry point the CLI uses. Every connection is its own Session on the warehouse
/// `{TEMP_DIR}/warehouse`; `restart` drops them all, so the next statement reopens
/// every table from its log with default settings.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "deltaguard/sql/session.h"
#include "sqllogic/test_file.h"

namespace deltaguard::sqllogic {

/// The process exit code ctest treats as "skipped" (SKIP_RETURN_CODE).
inline constexpr int kSkipExitCode = 77;

enum class Outcome { kPassed, kFailed, kSkipped };

struct RunnerOptions {
  /// The corpora directory (DELTAGUARD_CORPORA); empty when unset.
  std::string corpora;
  std::ostream* out = nullptr;  ///< progress and `mode output_result`; null = std::cout
  std::ostream* err = nullptr;  ///< failures; null = std::cerr
};

class Runner {
 public:
  Runner(TestFile file, RunnerOptions options);
  ~Runner();

  /// Run every record; stops at the first failure (later records depend on earlier
  /// ones). The temp directory is removed afterwards.
  Outcome Run();

  int records_run() const { return records_run_; }

 private:
  enum class Step { kContinue, kFail, kSkipFile };

  Step RunRecords(const std::vector<Record>& records);
  Step RunRecord(const Record& record);
  Step RunStatement(const Record& record, const std::string& sql);
  Step RunQuery(const Record& record, const std::string& sql);
  Session& Connection(const std::string& name);
  std::string Substitute(std::string_view text) const;
  Step Fail(const Record& record, const std::string& sql, const std::string& what);

  TestFile file_;
  RunnerOptions options_;
  std::string temp_dir_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
  std::map<std::string, std::string> vars_;
  bool output_result_ = false;
  bool skipping_ = false;
  int records_run_ = 0;
};

/// Read, parse and run one file; returns the process exit code (0 passed, 1 failed,
/// kSkipExitCode skipped) after printing a one-line summary.
int RunTestFile(const std::string& path, const RunnerOptions& options);

}  // namespace deltaguard::sqllogic
