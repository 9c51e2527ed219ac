#include "cli_common.h"

#include <cstdio>
#include <iostream>

#include "deltaguard/quality/detectors.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/timestamp_text.h"

namespace deltaguard::cli {

int ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
    case ErrorCode::kParseError:
      return kExitUsage;
    case ErrorCode::kAlreadyExists:
    case ErrorCode::kUnsupportedFeature:
    case ErrorCode::kSchemaMismatch:
    case ErrorCode::kConstraintViolation:
    case ErrorCode::kCommitConflict:
      return kExitRefused;
    case ErrorCode::kCorruptLog:
    case ErrorCode::kCorruptData:
    case ErrorCode::kIOError:
    case ErrorCode::kInternal:
      return kExitIo;
  }
  return kExitIo;
}

std::optional<std::string> Args::Get(const std::string& flag) const {
  auto it = values.find(flag);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

Result<Args> ParseArgs(const std::vector<std::string>& argv, const FlagSpec& spec) {
  Args args;
  bool only_positional = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (only_positional || a.size() < 2 || a[0] != '-' || a == "-") {
      args.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string flag = a, value;
    bool has_inline = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_inline = true;
    }
    if (spec.boolean.count(flag)) {
      if (has_inline) {
        return MakeError(ErrorCode::kInvalidArgument, "flag {} takes no value", flag);
      }
      args.switches.insert(flag);
    } else if (spec.with_value.count(flag)) {
      if (!has_inline) {
        if (i + 1 >= argv.size()) {
          return MakeError(ErrorCode::kInvalidArgument, "flag {} needs a value", flag);
        }
        value = argv[++i];
      }
      args.values[flag] = value;
      args.all_values[flag].push_back(value);
    } else {
      return MakeError(ErrorCode::kInvalidArgument, "unknown flag '{}'", a);
    }
  }
  return args;
}

Result<int64_t> ParseInt64(const std::string& text, const std::string& what) {
  if (text.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "{} must be an integer, got ''", what);
  }
  size_t pos = 0;
  bool neg = text[0] == '-';
  if (neg || text[0] == '+') pos = 1;
  if (pos >= text.size()) {
    return MakeError(ErrorCode::kInvalidArgument, "{} must be an integer, got '{}'", what,
                     text);
  }
  int64_t v = 0;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c < '0' || c > '9' || v > (INT64_MAX - (c - '0')) / 10) {
      return MakeError(ErrorCode::kInvalidArgument, "{} must be an integer, got '{}'",
                       what, text);
    }
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
}

Result<int64_t> ParseTimestampMillis(const std::string& text) {
  return ParseUserTimestampMillis(text);
}

Result<std::string> TextOrJsonFormat(const Args& args) {
  std::string format = AsciiToLower(args.Get("--format").value_or("text"));
  if (format != "text" && format != "json") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown format '{}' (expected text or json)", format);
  }
  return format;
}

int ReportError(const Error& error, const std::string& table) {
  // Multi-line messages (schemas side by side) keep their layout: the first line names
  // the table, the rest follows verbatim.
  // The last line of defence: no control character of a message (or of the table
  // path) reaches the terminal, whoever built the message.
  std::string msg = EscapeControlCharacters(error.ToString());
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  if (table.empty()) {
    std::cerr << "deltaguard: " << msg << std::endl;
  } else {
    std::cerr << "deltaguard: " << EscapeControlCharacters(table) << ": " << msg
              << std::endl;
  }
  return ExitCodeFor(error.code);
}

Result<std::optional<WriteCheckOptions>> CheckOptionsFrom(const Args& args) {
  auto tests = args.Get("--check");
  if (!tests) {
    if (args.Get("--on-check-failure") || args.Get("--baseline")) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--on-check-failure and --baseline need --check auto|TESTS_FILE");
    }
    return std::optional<WriteCheckOptions>();
  }
  WriteCheckOptions check;
  check.tests = *tests;
  check.baseline = args.Get("--baseline").value_or("");
  if (!check.baseline.empty()) {
    auto spec = ParseBaselineSpec(check.baseline);
    if (!spec) return spec.error();
  }
  const std::string action = args.Get("--on-check-failure").value_or("fail");
  constexpr std::string_view kPrefix = "quarantine=";
  if (action == "fail") {
    check.on_failure = CheckFailureAction::kFail;
  } else if (action == "warn") {
    check.on_failure = CheckFailureAction::kWarn;
  } else if (action.rfind(kPrefix, 0) == 0 && action.size() > kPrefix.size()) {
    check.on_failure = CheckFailureAction::kQuarantine;
    check.quarantine = action.substr(kPrefix.size());
  } else {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "--on-check-failure must be fail, warn or quarantine=QTABLE, got '{}'", action);
  }
  return std::optional<WriteCheckOptions>(std::move(check));
}

}  // namespace deltaguard::cli
