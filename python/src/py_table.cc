// Reading a table: open a snapshot (latest, by version or by timestamp), its metadata,
// the describe/history reports the CLI prints (table/table_report.h), and scans as
// Arrow C streams. A filtered scan runs as the SQL query the CLI would run.

#include <arrow/record_batch.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/sql/catalog.h"
#include "deltaguard/sql/session.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_report.h"
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

/// A table at one version, as Python's deltaguard.Table holds it.
struct NativeTable {
  FileSystemRef fs;
  SnapshotRef snapshot;
};

/// Backquote a path for `delta.`path`` (a backquote inside is doubled).
std::string QuotePathIdentifier(const std::string& path) {
  std::string out = "`";
  for (char c : path) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string QuoteIdentifier(const std::string& name) { return QuotePathIdentifier(name); }

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

/// The rows of `t` as a reader (needs the GIL only for raising errors).
std::shared_ptr<arrow::RecordBatchReader> OpenReader(const NativeTable& t,
                                                     std::vector<std::string> columns,
                                                     std::optional<std::string> filter,
                                                     std::optional<int64_t> limit) {
  if (!filter) {
    ScanOptions options;
    options.columns = std::move(columns);
    options.limit = limit;
    auto scan = Unwrap(WithoutGil([&] { return TableScan::Make(t.snapshot, options); }));
    return std::make_shared<ScanReader>(std::move(scan));
  }
  // SELECT <columns> FROM delta.`root` VERSION AS OF v WHERE <filter> [LIMIT n]: the
  // filter is parsed, bound and pruned exactly as `deltaguard sql` does it.
  std::string select = "*";
  if (!columns.empty()) {
    select.clear();
    for (const auto& c : columns) {
      if (!select.empty()) select += ", ";
      select += QuoteIdentifier(c);
    }
  }
  std::string sql = "SELECT " + select + " FROM delta." +
                    QuotePathIdentifier(t.snapshot->table_root()) + " VERSION AS OF " +
                    std::to_string(t.snapshot->version()) + " WHERE " + *filter;
  if (limit) sql += " LIMIT " + std::to_string(*limit);
  SessionOptions options;
  options.fs = t.fs;
  auto result = WithoutGil([&] {
    Session session(options);
    return session.ExecuteSql(sql);
  });
  StatementResult r = Unwrap(std::move(result));
  return r.rows;
}

/// Streaming: batches are decoded as the consumer pulls them.
nb::object Scan(const NativeTable& t, std::vector<std::string> columns,
                std::optional<std::string> filter, std::optional<int64_t> limit) {
  return ExportReaderCapsule(OpenReader(t, std::move(columns), std::move(filter), limit));
}

/// Read everything without the GIL first, so an unreadable file raises deltaguard's
/// own exception (not the consumer's), then hand the batches over.
nb::object Collect(const NativeTable& t, std::vector<std::string> columns,
                   std::optional<std::string> filter, std::optional<int64_t> limit) {
  auto reader = OpenReader(t, std::move(columns), std::move(filter), limit);
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
  m.def("open_table", &Open, nb::arg("path"), nb::arg("version") = nb::none(),
        nb::arg("timestamp_ms") = nb::none(), nb::arg("timestamp_text") = nb::none());
}

}  // namespace deltaguard::python
