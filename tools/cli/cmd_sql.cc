// `deltaguard sql`: run a script of Spark SQL statements against a warehouse and print
// each statement's rows.

#include <iostream>
#include <iterator>

#include "cli_common.h"
#include "deltaguard/io/fs/file_system.h"
#include "sql_output.h"

namespace deltaguard::cli {
namespace {

constexpr const char* kSqlUsage =
    "usage: deltaguard sql [--warehouse DIR] [--format table|csv|jsonl] "
    "[--conf key=value]... (\"STATEMENT; ...\" | -f FILE.sql | -)";

std::string ReadStdin() {
  return std::string(std::istreambuf_iterator<char>(std::cin),
                     std::istreambuf_iterator<char>());
}

}  // namespace

int RunSql(const std::vector<std::string>& argv) {
  FlagSpec spec{{"--warehouse", "--format", "--conf", "-f", "--file"}, {}};
  auto args = ParseArgs(argv, spec);
  if (!args) return ReportError(args.error(), "");
  auto file = args->Get("-f");
  if (!file) file = args->Get("--file");
  if (args->positional.size() > 1 || (file && !args->positional.empty())) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                 "give one script: a quoted string, -f FILE or - for "
                                 "stdin; {}",
                                 kSqlUsage),
                       "");
  }
  auto format = ParseOutputFormat(args->Get("--format").value_or("table"));
  if (!format) return ReportError(format.error(), "");
  auto options = SessionOptionsFrom(*args);
  if (!options) return ReportError(options.error(), "");

  std::string script;
  if (file && *file != "-") {
    auto content = MakeLocalFileSystem()->ReadFile(*file);
    if (!content) {
      Error e = content.error();
      return ReportError(e, *file);
    }
    script = std::move(*content);
  } else if (file || args->positional.empty() || args->positional[0] == "-") {
    script = ReadStdin();
  } else {
    script = args->positional[0];
  }

  Session session(std::move(*options));
  auto status = session.ExecuteScript(
      script, [&](const Statement&, StatementResult& result) -> Status {
        return PrintStatementResult(result, *format, std::cout, std::cerr);
      });
  std::cout.flush();
  if (!status) {
    ReportError(status.error(), file && *file != "-" ? *file : "");
    return SqlExitCode(status.error());
  }
  return kExitOk;
}

}  // namespace deltaguard::cli
