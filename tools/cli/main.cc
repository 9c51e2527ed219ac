// deltaguard: the command-line front end. Each subcommand lives in its own file and
// uses only the library's public facade; errors become one stderr line and an exit code.

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli_common.h"

namespace {

constexpr const char* kUsage =
    R"(deltaguard - Delta Lake tables with deliberate schema changes

usage: deltaguard <command> [arguments]

commands:
  describe TABLE [--version N | --timestamp T] [--format text|json]
      schema tree, partitioning, protocol and features, properties, version,
      number of files and rows
  scan TABLE [--version N | --timestamp T] [--columns a,b.c] [--limit N]
       [--format table|csv|jsonl]
      print the rows of the table
  history TABLE [--format text|json] [--drift]
      one entry per version: timestamp, operation, parameters, schema changes;
      --drift adds the classified changes (docs/drift.md) to the text form, the
      json form always has them as "drift"
  log TABLE VERSION [--format text|json]
      the actions of one commit
  create TABLE (--schema 'DDL or JSON' | --schema-file F | --from-file DATAFILE)
         [--partition-by a,b] [--property k=v]... [--name N] [--comment TEXT]
         [--if-not-exists] [--output text|json]
      create an empty table; the protocol is the minimal one its properties need
  write TABLE FILE... [--mode append|overwrite|error|ignore] [--merge-schema]
        [--overwrite-schema] [--replace-where PRED] [--format parquet|csv|json|arrow]
        [--no-header] [--delimiter C] [--partition-by a,b] [--property k=v]...
        [--txn-app-id ID --txn-version N] [--compression snappy|zstd]
        [--target-file-size BYTES] [--conf key=value]... [--no-checkpoint]
        [--contract FILE [--contract-object NAME]] [--on-violation fail|quarantine=Q]
        [--check auto|TESTS_FILE [--on-check-failure fail|warn|quarantine=Q]
        [--baseline trailing:N|trailing:Nd]] [--output text|json]
      write Parquet, CSV, NDJSON or Arrow IPC files (directories and globs too);
      creates the table when it does not exist. Every write is checked against the
      table schema: new columns need --merge-schema, types are cast only when lossless,
      NOT NULL columns must have values. Under a contract (--contract, or the one the
      table carries) the input is conformed to it first (docs/contracts.md). --check
      runs data tests on the incoming rows against the table's baseline before the
      commit (docs/data_tests.md "At commit time").
  sql [--warehouse DIR] [--format table|csv|jsonl] [--conf key=value]...
      ("STATEMENT; ..." | -f FILE.sql | -)
      run Spark SQL statements (CREATE TABLE, INSERT, SELECT, DESCRIBE, ...) in order,
      stopping at the first error; `-` or no script reads stdin. Names resolve in the
      warehouse (default ./warehouse, or $DELTAGUARD_WAREHOUSE). Rows go to stdout;
      statements without rows print their message (stdout for table, else stderr).
  shell [--warehouse DIR] [--format table|csv|jsonl] [--conf key=value]...
      interactive SQL prompt with line editing and history (~/.deltaguard_history or
      $DELTAGUARD_HISTORY); .help lists its dot commands
  vacuum TABLE [--retain-hours N] [--dry-run] [--conf key=value]...
         [--format text|json]
      delete the files no version within the retention (default the table's
      delta.deletedFileRetentionDuration, 7 days) references, and abandoned
      temporary files of killed writes; --dry-run lists them. A retention below the
      table's needs --conf spark.databricks.delta.retentionDurationCheck.enabled=false
  drift TABLE INPUT... [--mode M] [--format text|json|markdown|junit|github]
        [--fail-on breaking|high|any] [--input-format parquet|csv|json|arrow]
        [--no-header] [--delimiter C] [--version N | --timestamp T]
      classify how the inputs' schema differs from the table's (docs/drift.md):
      class, risk, what Spark and deltaguard do on append, the way forward; for
      CSV/JSON the inferred types and casts. Reads footers and one bounded batch.
      M is NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL,
      FULL_TRANSITIVE; exit 1 when a change fails --fail-on (default breaking with
      --mode, else high)
  diff A B [--mode M] [--format F] [--fail-on breaking|high|any]
      the same between any two of: a table (TABLE, TABLE@vN, TABLE@TIMESTAMP), a
      data file or directory, a schema file, schema text (DDL or Delta schema JSON)
  contract lint FILE... [--format text|json|junit|github]
      check ODCS v3.1 contract files (docs/contracts.md): structure, types that
      parse, ids, rules that bind; exit 1 when a file has errors
  contract init TABLE [--layer bronze|silver|gold] [--id ID] [--name N]
                [--contract-version V] [--sample-rows N]
      print a contract for the table: its schema, NOT NULL, comments, partitioning
      and CHECK constraints, plus proposals from the data marked by comments
  contract diff OLD NEW | FILE --against GIT_REF [--mode M] [--format F]
      changes keyed by property id, judged with the contract's compatibility mode;
      exit 1 for a breaking change without a major version bump
  contract test TABLE --contract FILE [--object NAME] [--version N | --timestamp T]
                [--format text|json|junit|github] [--fail-on error|warning]
      the table against the contract: schema through the drift classifier, every
      implied check and quality rule in one pass; exit 1 when a check fails
  contract apply TABLE FILE [--object NAME] [--output text|json]
      make the table carry the contract natively in one commit: NOT NULL for required
      columns, CHECK constraints for accepted values and ranges (existing rows are
      checked first), comments, and the contract itself (later writes follow it)
  profile TABLE [--versions A..B] [--format text|json]
      column profiles of the commits (docs/profiles.md): profile every commit in
      the range that has none (written by another engine, or before profiles were
      on) from the files it added, and store it in TABLE/_deltaguard/profiles
  profile TABLE --show [--versions A..B] [--column C] [--format text|json]
      print the stored profiles: per column rows, nulls, min, quantiles, max, mean,
      distinct count, top values, hour-of-day histogram, string lengths and patterns
  check TABLE [--tests FILE [--contract-object NAME]] [--version N]
        [--baseline trailing:N|trailing:Nd] [--format text|json|junit|github]
      data tests of one commit (default the latest) against the baseline of earlier
      commits' profiles (docs/data_tests.md): null-rate shifts, scale changes (cents
      to dollars), time-zone shifts, new or dropped categories, format changes,
      distribution shifts and volume anomalies, plus the named tests of a tests file
      (or an ODCS contract's rules); exit 1 when a test fails, 3 when one could not
      run
  ingest SOURCE_DIR TABLE --checkpoint DIR [--format json|csv|text]
        [--option key=value]... [--schema DDL]
        [--trigger once|available-now|continuous[=INTERVAL]]
        [--check auto|TESTS_FILE [--on-check-failure fail|warn|quarantine=QTABLE]]
        [--output text|json]
      take the new files of a directory into the table with Databricks Auto Loader's
      semantics and option names (docs/ingest.md): schema inferred once and kept in
      the schema location, evolution modes (cloudFiles.schemaEvolutionMode), every
      field that does not fit in _rescued_data, one commit per batch, exactly once
  help
      this text

TABLE is the path of a Delta table directory (the one holding _delta_log).
T is a timestamp: 2024-01-31, '2024-01-31 12:00:00', 2024-01-31T12:00:00Z or epoch ms.

exit codes: 0 success; 1 refused or check failed; 2 usage or invalid input;
            3 I/O or internal error (e.g. a corrupt table)
            (sql/shell: a failed statement is 1, or 3 for I/O and internal errors)
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace deltaguard::cli;
  // Arrow's allocator: jemalloc (built into the pinned pyarrow's libarrow) unless the
  // user picked one through ARROW_DEFAULT_MEMORY_POOL; it is read at Arrow's first
  // allocation. mimalloc, Arrow's default, hands the pages of freed batches back to the
  // kernel and faults them in again for the next ones: measured with jemalloc, system
  // time drops by a quarter (10M-row append 4.49 -> 4.24 s, MERGE bench 1.62 -> 1.55 s,
  // medians of alternating runs).
  ::setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  std::string command = args.front();
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "deltaguard 0.1.0" << std::endl;
    return kExitOk;
  }
  if (command == "describe") return RunDescribe(rest);
  if (command == "scan") return RunScan(rest);
  if (command == "history") return RunHistory(rest);
  if (command == "log") return RunLog(rest);
  if (command == "create") return RunCreate(rest);
  if (command == "write") return RunWrite(rest);
  if (command == "sql") return RunSql(rest);
  if (command == "shell") return RunShell(rest);
  if (command == "vacuum") return RunVacuum(rest);
  if (command == "drift") return RunDrift(rest);
  if (command == "diff") return RunDiff(rest);
  if (command == "contract") return RunContract(rest);
  if (command == "profile") return RunProfile(rest);
  if (command == "check") return RunCheck(rest);
  if (command == "ingest") return RunIngest(rest);
  std::cerr << "deltaguard: unknown command '" << command << "'\n\n" << kUsage;
  return kExitUsage;
}
