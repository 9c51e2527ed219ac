#include "sql_output.h"

#include <cstdlib>

// The one bridge from arrow::Status back to our Error (keeps the ErrorCode of errors
// raised while rows stream).
#include "deltaguard/arrow/status.h"

namespace deltaguard::cli {

std::string WarehouseFrom(const Args& args) {
  if (auto dir = args.Get("--warehouse")) return *dir;
  if (const char* env = std::getenv("DELTAGUARD_WAREHOUSE"); env && *env) return env;
  return "warehouse";
}

Result<SessionOptions> SessionOptionsFrom(const Args& args) {
  SessionOptions options;
  options.warehouse = WarehouseFrom(args);
  if (!args.all_values.count("--conf")) return options;
  for (const auto& kv : args.all_values.at("--conf")) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--conf '{}' is not of the form key=value", kv);
    }
    DELTA_RETURN_IF_ERROR(options.settings.Set(kv.substr(0, eq), kv.substr(eq + 1)));
  }
  return options;
}

Status PrintStatementResult(StatementResult& result, OutputFormat format,
                            std::ostream& out, std::ostream& messages) {
  for (const std::string& warning : result.warnings) {
    messages << "WARNING: " << warning << std::endl;
  }
  if (!result.schema || !result.rows) {
    if (!result.message.empty()) {
      (format == OutputFormat::kTable ? out : messages) << result.message << std::endl;
    }
    return OkStatus();
  }
  ResultWriter writer(out, format, result.schema);
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = result.rows->ReadNext(&batch);
    if (!st.ok()) {
      out.flush();
      return internal::FromArrowStatus(st, ErrorCode::kIOError,
                                       "the rows of " + result.kind);
    }
    if (!batch) break;
    DELTA_RETURN_IF_ERROR(writer.Write(*batch));
  }
  DELTA_RETURN_IF_ERROR(writer.Finish());
  out.flush();
  return OkStatus();
}

int SqlExitCode(const Error& error) {
  switch (error.code) {
    case ErrorCode::kCorruptLog:
    case ErrorCode::kCorruptData:
    case ErrorCode::kIOError:
    case ErrorCode::kInternal:
      return kExitIo;
    default:
      return kExitRefused;
  }
}

}  // namespace deltaguard::cli
