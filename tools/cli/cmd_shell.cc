// `deltaguard shell`: an interactive SQL prompt with line editing and history (libedit),
// multi-line statements, dot commands and per-statement timing. When stdin is not a
// terminal, lines are read plainly (no prompt, no history), so scripts can be piped in.

#include <editline/readline.h>
#include <stdio.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli_common.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/sql/parse/sql_parser.h"
#include "deltaguard/util/string_util.h"
#include "sql_output.h"

namespace deltaguard::cli {
namespace {

constexpr const char* kPrompt = "deltaguard> ";
constexpr const char* kContinuationPrompt = "      ...> ";
constexpr int kHistoryLines = 1000;

constexpr const char* kShellHelp =
    R"(Enter SQL statements ending with ';' (they may span lines). Dot commands:
  .help                     this text
  .quit | .exit             leave the shell (also Ctrl-D)
  .mode table|csv|jsonl     how rows are printed (now: {mode})
  .timer on|off             print "Time: 0.012s" after each statement (now: {timer})
  .read FILE                run the statements of a SQL file
Warehouse: {warehouse}
)";

constexpr const char* kShellUsage =
    "usage: deltaguard shell [--warehouse DIR] [--format table|csv|jsonl] "
    "[--conf key=value]...";

std::string HistoryPath() {
  if (const char* path = std::getenv("DELTAGUARD_HISTORY"); path && *path) return path;
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.deltaguard_history";
  }
  return "";
}

std::string_view FormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kCsv:
      return "csv";
    case OutputFormat::kJsonLines:
      return "jsonl";
  }
  return "table";
}

class Shell {
 public:
  Shell(SessionOptions options, OutputFormat format, bool interactive)
      : warehouse_(options.warehouse),
        session_(std::move(options)),
        format_(format),
        interactive_(interactive) {}

  int Run() {
    if (interactive_) {
      history_ = HistoryPath();
      using_history();
      stifle_history(kHistoryLines);
      if (!history_.empty()) read_history(history_.c_str());
      std::cout << "deltaguard shell: Spark SQL on Delta tables in " << warehouse_
                << "\nEnter \".help\" for usage hints." << std::endl;
    }
    std::string buffer;
    while (true) {
      auto line = ReadLine(buffer.empty() ? kPrompt : kContinuationPrompt);
      if (!line) {
        if (interactive_) std::cout << std::endl;
        if (!Trim(buffer).empty()) Execute(buffer);
        break;
      }
      if (buffer.empty() && !Trim(*line).empty() && Trim(*line).front() == '.') {
        Remember(std::string(Trim(*line)));
        if (!DotCommand(Trim(*line))) break;
        continue;
      }
      if (!buffer.empty()) buffer.push_back('\n');
      buffer += *line;
      if (Trim(buffer).empty()) {
        buffer.clear();
      } else if (EndsWithCompleteStatement(buffer)) {
        Remember(buffer);
        Execute(buffer);
        buffer.clear();
      }
    }
    if (interactive_ && !history_.empty()) write_history(history_.c_str());
    // Piped scripts report failure like `deltaguard sql`; a person at the prompt saw
    // every error already.
    return !interactive_ && errors_ > 0 ? kExitRefused : kExitOk;
  }

 private:
  std::optional<std::string> ReadLine(const char* prompt) {
    if (interactive_) {
      char* raw = readline(prompt);
      if (raw == nullptr) return std::nullopt;
      std::string line(raw);
      free(raw);
      return line;
    }
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

  void Remember(const std::string& entry) {
    if (interactive_) add_history(entry.c_str());
  }

  void PrintError(const Error& error) {
    ++errors_;
    std::string msg = EscapeControlCharacters(error.ToString());
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    std::cout.flush();
    std::cerr << msg << std::endl;
  }

  void Execute(const std::string& script) {
    using Clock = std::chrono::steady_clock;
    auto mark = Clock::now();
    auto status = session_.ExecuteScript(
        script, [&](const Statement&, StatementResult& result) -> Status {
          DELTA_RETURN_IF_ERROR(
              PrintStatementResult(result, format_, std::cout, std::cerr));
          if (timer_) {
            std::chrono::duration<double> elapsed = Clock::now() - mark;
            std::cout << fmt::format("Time: {:.3f}s", elapsed.count()) << std::endl;
          }
          mark = Clock::now();
          return OkStatus();
        });
    if (!status) PrintError(status.error());
  }

  // Returns false when the shell should exit.
  bool DotCommand(std::string_view line) {
    std::vector<std::string> words;
    for (auto part : Split(line, ' ')) {
      if (!Trim(part).empty()) words.emplace_back(Trim(part));
    }
    const std::string& cmd = words[0];
    std::string arg = words.size() > 1 ? words[1] : "";
    if (cmd == ".quit" || cmd == ".exit") return false;
    if (cmd == ".help") {
      std::cout << fmt::format(
          fmt::runtime(kShellHelp), fmt::arg("mode", FormatName(format_)),
          fmt::arg("timer", timer_ ? "on" : "off"), fmt::arg("warehouse", warehouse_));
    } else if (cmd == ".timer" && words.size() == 2 && (arg == "on" || arg == "off")) {
      timer_ = arg == "on";
    } else if (cmd == ".mode" && words.size() == 1) {
      std::cout << FormatName(format_) << std::endl;
    } else if (cmd == ".mode" && words.size() == 2) {
      auto format = ParseOutputFormat(arg);
      if (!format) {
        PrintError(format.error());
      } else {
        format_ = *format;
      }
    } else if (cmd == ".read" && words.size() >= 2) {
      // The file name is the rest of the line (it may contain spaces).
      std::string path(Trim(Trim(line).substr(cmd.size())));
      auto content = MakeLocalFileSystem()->ReadFile(path);
      if (!content) {
        PrintError(content.error());
      } else {
        Execute(*content);
      }
    } else if (cmd == ".timer" || cmd == ".read" || cmd == ".mode") {
      PrintError(MakeError(ErrorCode::kInvalidArgument,
                           "usage: .timer on|off, .mode table|csv|jsonl, .read FILE"));
    } else {
      PrintError(MakeError(ErrorCode::kInvalidArgument,
                           "unknown command '{}'; enter .help for the list", cmd));
    }
    return true;
  }

  std::string warehouse_;
  Session session_;
  OutputFormat format_;
  bool interactive_;
  bool timer_ = true;
  int errors_ = 0;
  std::string history_;
};

}  // namespace

int RunShell(const std::vector<std::string>& argv) {
  FlagSpec spec{{"--warehouse", "--format", "--conf"}, {}};
  auto args = ParseArgs(argv, spec);
  if (!args) return ReportError(args.error(), "");
  if (!args->positional.empty()) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument, "{}", kShellUsage), "");
  }
  auto format = ParseOutputFormat(args->Get("--format").value_or("table"));
  if (!format) return ReportError(format.error(), "");
  auto options = SessionOptionsFrom(*args);
  if (!options) return ReportError(options.error(), "");
  Shell shell(std::move(*options), *format, isatty(STDIN_FILENO) != 0);
  return shell.Run();
}

}  // namespace deltaguard::cli
