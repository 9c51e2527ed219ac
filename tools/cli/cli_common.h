// Shared pieces of the deltaguard command-line tool: argument parsing, exit codes and
// error reporting. The CLI uses only the library's public headers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard::cli {

/// Exit codes, stable for every command:
///   0 success; 1 the operation was refused or a check failed; 2 usage or invalid
///   input; 3 I/O or internal error (e.g. a corrupt table).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIo = 3;

int ExitCodeFor(ErrorCode code);

struct FlagSpec {
  std::set<std::string> with_value;  ///< e.g. "--version", "--format"
  std::set<std::string> boolean;     ///< e.g. "--help"
};

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  ///< the last value of each flag
  std::map<std::string, std::vector<std::string>> all_values;  ///< every value, in order
  std::set<std::string> switches;

  std::optional<std::string> Get(const std::string& flag) const;
  bool Has(const std::string& flag) const { return switches.count(flag) > 0; }
};

/// Parse `--flag value`, `--flag=value`, boolean `--flag` and positionals. Unknown flags
/// and missing values are kInvalidArgument.
Result<Args> ParseArgs(const std::vector<std::string>& argv, const FlagSpec& spec);

Result<int64_t> ParseInt64(const std::string& text, const std::string& what);

/// Parse a user timestamp into epoch milliseconds: an integer (ms since the epoch),
/// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fff]]` or with `T`, optionally ending in `Z` or
/// `+HH:MM`/`-HH:MM`. Without an offset the time is UTC.
Result<int64_t> ParseTimestampMillis(const std::string& text);

/// The --format value of commands that print text or json (default text), lower-cased;
/// anything else is kInvalidArgument.
Result<std::string> TextOrJsonFormat(const Args& args);

/// Print "deltaguard: <table>: <Prefix: message>" as one line on stderr and return the
/// exit code for the error.
int ReportError(const Error& error, const std::string& table);

/// --version / --timestamp into a SnapshotSpec (both together is kInvalidArgument).
Result<SnapshotSpec> SnapshotSpecFromArgs(const Args& args);

int RunDescribe(const std::vector<std::string>& argv);
int RunScan(const std::vector<std::string>& argv);
int RunHistory(const std::vector<std::string>& argv);
int RunLog(const std::vector<std::string>& argv);
int RunCreate(const std::vector<std::string>& argv);
int RunWrite(const std::vector<std::string>& argv);
int RunSql(const std::vector<std::string>& argv);       // cmd_sql.cc
int RunShell(const std::vector<std::string>& argv);     // cmd_shell.cc
int RunVacuum(const std::vector<std::string>& argv);    // cmd_vacuum.cc
int RunDrift(const std::vector<std::string>& argv);     // cmd_drift.cc
int RunDiff(const std::vector<std::string>& argv);      // cmd_drift.cc
int RunContract(const std::vector<std::string>& argv);  // cmd_contract.cc
int RunProfile(const std::vector<std::string>& argv);   // cmd_profile.cc
int RunCheck(const std::vector<std::string>& argv);     // cmd_check.cc
int RunIngest(const std::vector<std::string>& argv);    // cmd_ingest.cc

/// --check, --on-check-failure, --baseline: the data tests of a write or an ingestion
/// (nullopt without --check; the others without it are kInvalidArgument).
Result<std::optional<WriteCheckOptions>> CheckOptionsFrom(const Args& args);

}  // namespace deltaguard::cli
