// Reading a table: open a snapshot (latest, by version or by timestamp), its metadata,
// the describe/history reports the CLI prints (table/table_report.h), and scans as
// Arrow C streams. A filtered scan runs as the SQL query the CLI would run (built as a
// statement, the filter parsed as one expression).

#include "py_table.h"

#include <arrow/memory_pool.h>
#include <arrow/record_batch.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/sql/catalog.h"
#include "deltaguard/sql/parse/statement.h"
#include "deltaguard/sql/session.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_report.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/timestamp_text.h"
#include "py_arrow.h"
#include "py_common.h"

namespace deltaguard::python {
namespace {

/// A TableScan as an arrow::RecordBatchReader (what the C stream exports).
class ScanReader : public arrow::RecordBatchReader {
 public:
  explicit ScanReader(std::unique_ptr<TableScan> scan) : scan_(std::move(scan)) {}
  std::shared_ptr<arrow::Schema> schema() const override {
    return scan_->output_schema();
  }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    auto next = scan_->Next();
    if (!next) return internal::ToArrowStatus(next.error());
    *batch = std::move(*next);
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<TableScan> scan_;
};

/// Decoded batches go to jemalloc (built into the pinned pyarrow's libarrow) rather
/// than pyarrow's default mimalloc, which hands freed pages back to the kernel and
/// faults them in again for the next batch; the CLI makes the same choice for its
/// whole process (tools/cli/main.cc). The buffers keep their pool, so freeing them from
/// Python is safe. nullptr (Arrow's default) when jemalloc is not built in.
arrow::MemoryPool* ScanMemoryPool() {
  static arrow::MemoryPool* pool = [] {
    arrow::MemoryPool* p = nullptr;
    return arrow::jemalloc_memory_pool(&p).ok() ? p : nullptr;
  }();
  return pool;
}

NativeTable Open(const std::string& path, std::optional<int64_t> version,
                 std::optional<int64_t> timestamp_ms,
                 std::optional<std::string> timestamp_text) {
  SnapshotSpec spec;
  spec.version = version;
  spec.timestamp_ms = timestamp_ms;
  if (timestamp_text)
    spec.timestamp_ms = Unwrap(ParseUserTimestampMillis(*timestamp_text));
  FileSystemRef fs = MakeLocalFileSystem();
  SnapshotRef snap = Unwrap(WithoutGil([&] { return OpenSnapshot(fs, path, spec); }));
  return NativeTable{fs, std::move(snap)};
}

/// The rows of `t` as a reader (needs the GIL only for raising errors). `collect`: the
/// caller keeps every batch (to_arrow), so files read ahead without a bound.
std::shared_ptr<arrow::RecordBatchReader> OpenReader(const NativeTable& t,
                                                     std::vector<std::string> columns,
                                                     std::optional<std::string> filter,
                                                     std::optional<int64_t> limit,
                                                     bool collect) {
  if (!filter) {
    ScanOptions options;
    options.columns = std::move(columns);
    options.limit = limit;
    // Files decode side by side, one per core (at least two, so reading one file's
    // footer overlaps decoding another), as pyarrow.dataset's fragment read-ahead does.
    options.read_ahead_files =
        std::clamp<size_t>(std::thread::hardware_concurrency(), 2, 8);
    options.memory_pool = ScanMemoryPool();
    if (collect) options.read_ahead_batches = 0;
    auto scan = Unwrap(WithoutGil([&] { return TableScan::Make(t.snapshot, options); }));
    return std::make_shared<ScanReader>(std::move(scan));
  }
  // SELECT <columns> FROM delta.`root` VERSION AS OF v WHERE <filter> [LIMIT n], built
  // as a statement (never as text, so the filter can only ever be one expression), and
  // planned, bound and pruned exactly as `deltaguard sql` does it.
  SelectStmt select;
  if (columns.empty()) {
    SelectItem star;
    star.star = true;
    select.items.push_back(std::move(star));
  }
  for (const auto& c : columns) {
    SelectItem item;
    item.expr = Expr::Column(Unwrap(ParseColumnPath(c)));
    item.alias = c;  // the name the unfiltered scan gives it
    item.text = c;
    select.items.push_back(std::move(item));
  }
  select.from.kind = FromClause::Kind::kTable;
  select.from.table.kind = TableRef::Kind::kPath;
  select.from.table.path = t.snapshot->table_root();
  select.from.time_travel = TimeTravel{t.snapshot->version(), nullptr};
  select.where = Unwrap(ParseExpression(*filter));
  select.limit = limit;
  Statement statement{std::move(select),
                      "to_arrow(filter=" + *filter + ") of " + t.snapshot->table_root()};
  SessionOptions options;
  options.fs = t.fs;
  auto result = WithoutGil([&] {
    Session session(options);
    return session.Execute(statement);
  });
  StatementResult r = Unwrap(std::move(result));
  return r.rows;
}

/// Streaming: batches are decoded as the consumer pulls them.
nb::object Scan(const NativeTable& t, std::vector<std::string> columns,
                std::optional<std::string> filter, std::optional<int64_t> limit) {
  return ExportReaderCapsule(
      OpenReader(t, std::move(columns), std::move(filter), limit, /*collect=*/false));
}

/// Read everything without the GIL first, so an unreadable file raises deltaguard's
/// own exception (not the consumer's), then hand the batches over.
nb::object Collect(const NativeTable& t, std::vector<std::string> columns,
                   std::optional<std::string> filter, std::optional<int64_t> limit) {
  auto reader =
      OpenReader(t, std::move(columns), std::move(filter), limit, /*collect=*/true);
  auto batches = WithoutGil([&]() -> Result<arrow::RecordBatchVector> {
    arrow::RecordBatchVector out;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      DELTA_ARROW_RETURN_NOT_OK(reader->ReadNext(&batch), ErrorCode::kIOError,
                                "reading " + t.snapshot->table_root());
      if (batch == nullptr) return out;
      out.push_back(std::move(batch));
    }
  });
  auto all = Unwrap(std::move(batches));
  auto collected = arrow::RecordBatchReader::Make(std::move(all), reader->schema());
  if (!collected.ok()) {
    RaiseError(Error{ErrorCode::kInternal, collected.status().ToString()});
  }
  return ExportReaderCapsule(*collected);
}

/// The directory of `database.table` (or `table` in `default`) in `warehouse`, as SQL
/// resolves the name; kNotFound when no such table exists.
std::string ResolveName(const std::vector<std::string>& parts,
                        const std::string& warehouse) {
  FileSystemRef fs = MakeLocalFileSystem();
  Catalog catalog(fs, warehouse);
  TableRef ref;
  ref.kind = TableRef::Kind::kName;
  ref.parts = parts;
  ResolvedTable t = Unwrap(catalog.Resolve(ref, "default"));
  if (!t.exists) {
    RaiseError(Error{ErrorCode::kNotFound, "TABLE_OR_VIEW_NOT_FOUND: table '" +
                                               ref.ToString() +
                                               "' cannot be found in database '" +
                                               t.database + "' (at '" + t.path + "')"});
  }
  return t.path;
}

}  // namespace

void BindTable(nb::module_& m) {
  nb::class_<NativeTable>(m, "NativeTable")
      .def_prop_ro("version", [](const NativeTable& t) { return t.snapshot->version(); })
      .def_prop_ro("table_root",
                   [](const NativeTable& t) { return t.snapshot->table_root(); })
      .def_prop_ro("timestamp_ms",
                   [](const NativeTable& t) { return t.snapshot->timestamp_ms(); })
      .def_prop_ro(
          "schema_json",
          [](const NativeTable& t) { return SchemaToJson(*t.snapshot->schema()); })
      .def_prop_ro(
          "partition_columns",
          [](const NativeTable& t) { return t.snapshot->metadata().partition_columns; })
      .def_prop_ro("properties",
                   [](const NativeTable& t) {
                     nb::dict out;
                     for (const auto& [k, v] : t.snapshot->metadata().configuration) {
                       out[nb::str(k.c_str())] = v;
                     }
                     return out;
                   })
      .def_prop_ro("num_files",
                   [](const NativeTable& t) { return t.snapshot->files().size(); })
      .def(
          "describe",
          [](const NativeTable& t, const std::string& format) {
            ReportFormat f = Unwrap(ParseReportFormat(format));
            return Unwrap(WithoutGil([&] { return DescribeReport(*t.snapshot, f); }));
          },
          nb::arg("format") = "json")
      .def(
          "history",
          [](const NativeTable& t, const std::string& format) {
            ReportFormat f = Unwrap(ParseReportFormat(format));
            return Unwrap(WithoutGil(
                [&] { return HistoryReport(*t.fs, t.snapshot->table_root(), f); }));
          },
          nb::arg("format") = "json")
      .def("scan", &Scan, nb::arg("columns") = std::vector<std::string>{},
           nb::arg("filter") = nb::none(), nb::arg("limit") = nb::none())
      .def("collect", &Collect, nb::arg("columns") = std::vector<std::string>{},
           nb::arg("filter") = nb::none(), nb::arg("limit") = nb::none());
  m.def("resolve_table_name", &ResolveName, nb::arg("parts"), nb::arg("warehouse"));
  // The identifier in backquotes, inner backquotes doubled: how the package writes
  // names and paths into the SQL it runs (ALTER, VACUUM).
  m.def(
      "quote_identifier", [](const std::string& name) { return BacktickQuote(name); },
      nb::arg("name"));
  m.def("open_table", &Open, nb::arg("path"), nb::arg("version") = nb::none(),
        nb::arg("timestamp_ms") = nb::none(), nb::arg("timestamp_text") = nb::none());
}

}  // namespace deltaguard::python
