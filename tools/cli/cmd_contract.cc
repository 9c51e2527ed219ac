// `deltaguard contract lint|init|diff|test`: data contracts (docs/contracts.md). The
// library does the work (contract/, quality/, table/contract_init.h,
// sql/contract_sql.h); this file is flags, reading files and printing.

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "cli_common.h"
#include "deltaguard/contract/diff.h"
#include "deltaguard/contract/lint.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/sql/contract_sql.h"
#include "deltaguard/table/contract_apply.h"
#include "deltaguard/table/contract_init.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

constexpr const char* kContractUsage =
    "usage: deltaguard contract lint FILE... [--format text|json|junit|github]\n"
    "       deltaguard contract init TABLE [--layer bronze|silver|gold] [--id ID]\n"
    "                                [--name NAME] [--contract-version V] "
    "[--sample-rows N]\n"
    "       deltaguard contract diff OLD NEW | FILE --against GIT_REF [--mode M]\n"
    "                                [--format text|json|junit|github]\n"
    "       deltaguard contract test TABLE --contract FILE [--object NAME]\n"
    "                                [--version N | --timestamp T]\n"
    "                                [--format text|json|junit|github] "
    "[--fail-on error|warning]\n"
    "       deltaguard contract apply TABLE FILE [--object NAME] [--output text|json]";

Status Usage() { return MakeError(ErrorCode::kInvalidArgument, "{}", kContractUsage); }

Result<std::string> ReportFormat(const Args& args) {
  std::string f = AsciiToLower(args.Get("--format").value_or("text"));
  if (f != "text" && f != "json" && f != "junit" && f != "github") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown --format '{}' (one of text, json, junit, github)", f);
  }
  return f;
}

int Lint(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--format"}, {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.empty()) return ReportError(Usage().error(), "");
  auto format = ReportFormat(*args);
  if (!format) return ReportError(format.error(), "");
  auto fs = MakeLocalFileSystem();
  std::vector<LintedFile> files;
  for (const auto& path : args->positional) {
    auto exists = fs->Exists(path);
    if (!exists || !*exists) {
      return ReportError(MakeError(ErrorCode::kNotFound, "no such contract file"), path);
    }
    files.push_back(LintContractFile(*fs, path));
  }
  if (*format == "json") {
    std::cout << LintJson(files) << "\n";
  } else if (*format == "junit") {
    std::cout << LintJunit(files);
  } else if (*format == "github") {
    std::cout << LintGithub(files);
  } else {
    std::cout << LintText(files);
  }
  for (const auto& f : files) {
    if (!f.valid()) return kExitRefused;
  }
  return kExitOk;
}

int Init(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--layer", "--id", "--name", "--contract-version",
                                        "--sample-rows", "--version", "--timestamp"},
                                       {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) return ReportError(Usage().error(), "");
  const std::string& table = args->positional[0];
  ContractInitOptions options;
  if (auto layer = args->Get("--layer")) {
    auto parsed = ParseMedallionLayer(*layer);
    if (!parsed) return ReportError(parsed.error(), table);
    options.layer = *parsed;
  }
  options.id = args->Get("--id").value_or("");
  options.name = args->Get("--name").value_or("");
  if (auto v = args->Get("--contract-version")) {
    auto semver = ParseSemVer(*v);
    if (!semver) return ReportError(semver.error(), table);
    options.version = *v;
  }
  if (auto rows = args->Get("--sample-rows")) {
    auto n = ParseInt64(*rows, "--sample-rows");
    if (!n) return ReportError(n.error(), table);
    if (*n < 1) {
      return ReportError(
          MakeError(ErrorCode::kInvalidArgument, "--sample-rows must be at least 1"),
          table);
    }
    options.sample_rows = *n;
  }
  auto spec = SnapshotSpecFromArgs(*args);
  if (!spec) return ReportError(spec.error(), table);
  auto snapshot = OpenSnapshot(table, *spec);
  if (!snapshot) return ReportError(snapshot.error(), table);
  auto yaml = InitContract(**snapshot, options);
  if (!yaml) return ReportError(yaml.error(), table);
  std::cout << *yaml;
  return kExitOk;
}

// Runs `argv` (no shell) and returns its exit status and what it printed (stdout and
// stderr together).
Result<std::pair<int, std::string>> RunProcess(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) return MakeError(ErrorCode::kIOError, "cannot create a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return MakeError(ErrorCode::kIOError, "cannot run {}: {}", argv[0],
                     std::strerror(rc));
  }
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    out.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : 128, out);
}

// The text of `path` at git revision `ref` (`git show REF:./name` in the file's folder).
Result<std::string> GitShow(const std::string& ref, const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  if (ref.empty() || ref[0] == '-') {
    return MakeError(ErrorCode::kInvalidArgument, "--against '{}' is not a git revision",
                     EscapeForMessage(ref));
  }
  DELTA_ASSIGN_OR_RETURN(auto result, RunProcess({"git", "-C", dir, "show",
                                                  ref + ":./" + p.filename().string()}));
  if (result.first != 0) {
    return MakeError(ErrorCode::kNotFound, "{} at git revision {}: {}", path, ref,
                     EscapeForMessage(std::string(Trim(result.second))));
  }
  return std::move(result.second);
}

int Diff(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--against", "--mode", "--format"}, {}});
  if (!args) return ReportError(args.error(), "");
  auto format = ReportFormat(*args);
  if (!format) return ReportError(format.error(), "");
  auto against = args->Get("--against");
  size_t want = against ? 1 : 2;
  if (args->positional.size() != want) return ReportError(Usage().error(), "");
  std::optional<CompatMode> mode;
  if (auto m = args->Get("--mode")) {
    auto parsed = ParseCompatMode(*m);
    if (!parsed) return ReportError(parsed.error(), "");
    mode = *parsed;
  }
  auto fs = MakeLocalFileSystem();
  Result<Contract> before = MakeError(ErrorCode::kInternal, "unset");
  const std::string& new_path = args->positional.back();
  if (against) {
    auto text = GitShow(*against, new_path);
    if (!text) return ReportError(text.error(), new_path);
    before = LoadContractText(*text, fmt::format("{}@{}", new_path, *against));
  } else {
    before = LoadContract(*fs, args->positional[0]);
  }
  if (!before) return ReportError(before.error(), "");
  auto after = LoadContract(*fs, new_path);
  if (!after) return ReportError(after.error(), "");
  auto diff = DiffContracts(*before, *after, mode);
  if (!diff) return ReportError(diff.error(), new_path);
  if (*format == "json") {
    std::cout << ContractDiffJson(*diff) << "\n";
  } else if (*format == "junit") {
    std::cout << ContractDiffJunit(*diff);
  } else if (*format == "github") {
    std::cout << ContractDiffGithub(*diff);
  } else {
    std::cout << ContractDiffText(*diff);
  }
  return diff->fails ? kExitRefused : kExitOk;
}

int Test(const std::vector<std::string>& argv) {
  auto args =
      ParseArgs(argv, FlagSpec{{"--contract", "--object", "--version", "--timestamp",
                                "--format", "--fail-on", "--warehouse"},
                               {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1 || !args->Get("--contract")) {
    return ReportError(Usage().error(), "");
  }
  const std::string& table = args->positional[0];
  auto format = ReportFormat(*args);
  if (!format) return ReportError(format.error(), table);
  std::string fail_on = AsciiToLower(args->Get("--fail-on").value_or("error"));
  if (fail_on != "error" && fail_on != "warning") {
    return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                 "unknown --fail-on '{}' (error or warning)", fail_on),
                       table);
  }
  auto fs = MakeLocalFileSystem();
  std::vector<ContractDiagnostic> warnings;
  auto contract = LoadContract(*fs, *args->Get("--contract"), &warnings);
  if (!contract) return ReportError(contract.error(), "");
  auto object = contract->Object(args->Get("--object").value_or(""));
  if (!object) return ReportError(object.error(), table);
  auto spec = SnapshotSpecFromArgs(*args);
  if (!spec) return ReportError(spec.error(), table);
  auto snapshot = OpenSnapshot(fs, table, *spec);
  if (!snapshot) return ReportError(snapshot.error(), table);
  SessionOptions session;
  session.fs = fs;
  if (auto w = args->Get("--warehouse")) session.warehouse = *w;
  auto report = TestContractWithSql(*contract, **object, *snapshot, session);
  if (!report) return ReportError(report.error(), table);
  for (const auto& w : warnings) std::cerr << "WARNING: " << w.ToString() << "\n";
  if (*format == "json") {
    std::cout << ContractTestJson(*report) << "\n";
  } else if (*format == "junit") {
    std::cout << ContractTestJunit(*report);
  } else if (*format == "github") {
    std::cout << ContractTestGithub(*report);
  } else {
    std::cout << ContractTestText(*report);
  }
  bool fails = report->Count(CheckOutcome::kFailed) > 0 ||
               report->Count(CheckOutcome::kError) > 0 ||
               (fail_on == "warning" && report->Count(CheckOutcome::kWarning) > 0);
  return fails ? kExitRefused : kExitOk;
}

int Apply(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--object", "--output"}, {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 2) return ReportError(Usage().error(), "");
  const std::string& table = args->positional[0];
  const std::string& file = args->positional[1];
  auto fs = MakeLocalFileSystem();
  auto text = fs->ReadFile(file);
  if (!text) return ReportError(text.error(), file);
  auto contract = LoadContractText(*text, file);
  if (!contract) return ReportError(contract.error(), "");
  auto object = contract->Object(args->Get("--object").value_or(""));
  if (!object) return ReportError(object.error(), table);
  auto result = ApplyContract(fs, table, *contract, **object, *text);
  if (!result) return ReportError(result.error(), table);
  if (AsciiToLower(args->Get("--output").value_or("text")) == "json") {
    std::string out = "{";
    AppendJsonRawField(&out, "version", std::to_string(result->version));
    std::string changes;
    AppendJsonStringArray(result->changes, &changes);
    AppendJsonRawField(&out, "changes", changes);
    std::cout << out << "}" << std::endl;
  } else {
    std::cout << fmt::format("{}: version {}: contract {} {} applied\n", table,
                             result->version, contract->id, contract->version);
    for (const auto& c : result->changes) std::cout << "  " << c << "\n";
  }
  return kExitOk;
}

}  // namespace

int RunContract(const std::vector<std::string>& argv) {
  if (argv.empty()) return ReportError(Usage().error(), "");
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  const std::string& sub = argv[0];
  if (sub == "lint") return Lint(rest);
  if (sub == "init") return Init(rest);
  if (sub == "diff") return Diff(rest);
  if (sub == "test") return Test(rest);
  if (sub == "apply") return Apply(rest);
  return ReportError(
      MakeError(ErrorCode::kInvalidArgument, "unknown contract command '{}'\n{}",
                EscapeForMessage(sub), kContractUsage),
      "");
}

}  // namespace deltaguard::cli
