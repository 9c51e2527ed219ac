// Shared pieces of `deltaguard sql` and `deltaguard shell`: the session options from
// the command line, printing one statement's result, and the exit code of a failed
// statement.
#pragma once

#include <ostream>
#include <string>

#include "cli_common.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/sql/session.h"

namespace deltaguard::cli {

/// The warehouse directory: --warehouse, else $DELTAGUARD_WAREHOUSE, else ./warehouse.
std::string WarehouseFrom(const Args& args);

/// SessionOptions from --warehouse and every --conf key=value (Spark's setting names,
/// as `SET key = value` takes them).
Result<SessionOptions> SessionOptionsFrom(const Args& args);

/// Print one statement's result. Rows go to `out` through ResultWriter in `format`.
/// A statement without rows prints its message: on `out` in table format (a person is
/// reading), on `messages` for csv/jsonl (so `out` stays machine-readable).
Status PrintStatementResult(StatementResult& result, OutputFormat format,
                            std::ostream& out, std::ostream& messages);

/// Exit code of a failed statement: 3 for I/O, corrupt tables and internal errors, 1
/// for everything else (syntax, semantic and refused statements).
int SqlExitCode(const Error& error);

}  // namespace deltaguard::cli
