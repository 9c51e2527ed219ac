// Profile rows (quality/profile_table.h): encoding a TableProfile as Arrow rows of the
// profile table and decoding them back.

#include "deltaguard/quality/profile_table.h"

#include <arrow/api.h>
#include <fmt/format.h>

#include <map>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/schema/ddl.h"

namespace deltaguard {
namespace {

constexpr const char* kSchemaDdl =
    "version BIGINT, committed_at TIMESTAMP, operation STRING, table_rows BIGINT, "
    "column STRING, type STRING, kind STRING, rows BIGINT, nulls BIGINT, "
    "numeric_count BIGINT, min DOUBLE, max DOUBLE, mean DOUBLE, m2 DOUBLE, "
    "zeros BIGINT, hours ARRAY<BIGINT>, min_length BIGINT, max_length BIGINT, "
    "total_length BIGINT, min_text STRING, max_text STRING, sampled BIGINT, "
    "quantiles BINARY, distinct BINARY, top BINARY, patterns BINARY, "
    "profiler_version INT, cast_nulls BIGINT";

// Longest min_text / max_text kept (a long value is cut; its length stats stay exact).
constexpr size_t kMaxTextBytes = 256;

std::string Cut(const std::string& s) {
  return s.size() <= kMaxTextBytes ? s : s.substr(0, kMaxTextBytes);
}

Result<ProfileKind> ParseKind(std::string_view name) {
  for (auto k : {ProfileKind::kNumber, ProfileKind::kTimestamp, ProfileKind::kDate,
                 ProfileKind::kString, ProfileKind::kBoolean, ProfileKind::kOther}) {
    if (ProfileKindName(k) == name) return k;
  }
  return MakeError(ErrorCode::kCorruptData, "unknown profile kind '{}'", name);
}

// Typed access to one decoded batch's columns by name.
class Columns {
 public:
  explicit Columns(const arrow::RecordBatch& b) : b_(b) {}
  template <typename A>
  Result<const A*> Get(const char* name) const {
    auto col = b_.GetColumnByName(name);
    if (!col) {
      return MakeError(ErrorCode::kCorruptData, "the profile table has no column '{}'",
                       name);
    }
    auto* a = dynamic_cast<const A*>(col.get());
    if (!a) {
      return MakeError(ErrorCode::kCorruptData,
                       "profile table column '{}' has type {}, not what this build reads",
                       name, col->type()->ToString());
    }
    return a;
  }

 private:
  const arrow::RecordBatch& b_;
};

}  // namespace

std::string ProfileTablePath(const std::string& table_root) {
  std::string root = table_root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root + "/_deltaguard/profiles";
}

SchemaRef ProfileTableSchema() {
  static const SchemaRef schema = [] {
    auto parsed = ParseDdlSchema(kSchemaDdl);
    return parsed ? *parsed : SchemaRef();
  }();
  return schema;
}

Result<std::shared_ptr<arrow::RecordBatch>> ProfileRows(const TableProfile& p) {
  DELTA_ASSIGN_OR_RETURN(auto schema, ToArrowSchema(*ProfileTableSchema()));
  std::unique_ptr<arrow::RecordBatchBuilder> builder;
  DELTA_ARROW_ASSIGN_OR_RETURN(
      builder, arrow::RecordBatchBuilder::Make(schema, arrow::default_memory_pool()),
      ErrorCode::kInternal, "profile rows");
  auto i64 = [&](int i) { return builder->GetFieldAs<arrow::Int64Builder>(i); };
  auto f64 = [&](int i) { return builder->GetFieldAs<arrow::DoubleBuilder>(i); };
  auto str = [&](int i) { return builder->GetFieldAs<arrow::StringBuilder>(i); };
  auto bin = [&](int i) { return builder->GetFieldAs<arrow::BinaryBuilder>(i); };
  auto* ts = builder->GetFieldAs<arrow::TimestampBuilder>(1);
  auto* hours = builder->GetFieldAs<arrow::ListBuilder>(15);
  auto* hour_values = static_cast<arrow::Int64Builder*>(hours->value_builder());
  auto* version_builder = builder->GetFieldAs<arrow::Int32Builder>(26);
  arrow::Status st;
  auto ok = [&](arrow::Status s) {
    if (st.ok()) st = std::move(s);
  };
  for (const ColumnProfile& c : p.columns) {
    ok(i64(0)->Append(p.version));
    ok(ts->Append(p.timestamp_ms * 1000));
    ok(str(2)->Append(p.operation));
    ok(i64(3)->Append(p.rows));
    ok(str(4)->Append(c.column));
    ok(str(5)->Append(c.type));
    ok(str(6)->Append(std::string(ProfileKindName(c.kind))));
    ok(i64(7)->Append(c.rows));
    ok(i64(8)->Append(c.nulls));
    ok(i64(9)->Append(c.numeric_count));
    for (auto [i, v] : {std::pair{10, c.min}, {11, c.max}, {12, c.mean}, {13, c.m2}}) {
      ok(c.numeric_count > 0 ? f64(i)->Append(v) : f64(i)->AppendNull());
    }
    ok(i64(14)->Append(c.zeros));
    ok(hours->Append());
    if (c.has_hours()) ok(hour_values->AppendValues(c.hours.data(), 24));
    for (auto [i, v] : {std::pair{16, c.min_length}, {17, c.max_length}}) {
      ok(c.max_length >= 0 ? i64(i)->Append(v) : i64(i)->AppendNull());
    }
    ok(i64(18)->Append(c.total_length));
    ok(c.max_length >= 0 ? str(19)->Append(Cut(c.min_text)) : str(19)->AppendNull());
    ok(c.max_length >= 0 ? str(20)->Append(Cut(c.max_text)) : str(20)->AppendNull());
    ok(i64(21)->Append(c.sampled));
    ok(bin(22)->Append(c.quantiles.Serialize()));
    ok(bin(23)->Append(c.distinct.Serialize()));
    ok(bin(24)->Append(c.top.Serialize()));
    ok(bin(25)->Append(c.patterns.Serialize()));
    ok(version_builder->Append(kProfilerVersion));
    ok(i64(27)->Append(c.cast_nulls));
  }
  DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, "profile rows");
  std::shared_ptr<arrow::RecordBatch> batch;
  DELTA_ARROW_ASSIGN_OR_RETURN(batch, builder->Flush(), ErrorCode::kInternal,
                               "profile rows");
  return batch;
}

Result<std::vector<TableProfile>> ProfilesFromRows(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches, int64_t from,
    int64_t to, bool number_distinct) {
  std::map<int64_t, TableProfile> by_version;
  for (const auto& b : batches) {
    Columns cols(*b);
    DELTA_ASSIGN_OR_RETURN(auto version, cols.Get<arrow::Int64Array>("version"));
    DELTA_ASSIGN_OR_RETURN(auto at, cols.Get<arrow::TimestampArray>("committed_at"));
    DELTA_ASSIGN_OR_RETURN(auto op, cols.Get<arrow::StringArray>("operation"));
    DELTA_ASSIGN_OR_RETURN(auto table_rows, cols.Get<arrow::Int64Array>("table_rows"));
    DELTA_ASSIGN_OR_RETURN(auto column, cols.Get<arrow::StringArray>("column"));
    DELTA_ASSIGN_OR_RETURN(auto type, cols.Get<arrow::StringArray>("type"));
    DELTA_ASSIGN_OR_RETURN(auto kind, cols.Get<arrow::StringArray>("kind"));
    std::vector<const arrow::Int64Array*> ints;
    for (const char* n : {"rows", "nulls", "numeric_count", "zeros", "min_length",
                          "max_length", "total_length", "sampled"}) {
      DELTA_ASSIGN_OR_RETURN(auto a, cols.Get<arrow::Int64Array>(n));
      ints.push_back(a);
    }
    std::vector<const arrow::DoubleArray*> doubles;
    for (const char* n : {"min", "max", "mean", "m2"}) {
      DELTA_ASSIGN_OR_RETURN(auto a, cols.Get<arrow::DoubleArray>(n));
      doubles.push_back(a);
    }
    DELTA_ASSIGN_OR_RETURN(auto hours, cols.Get<arrow::ListArray>("hours"));
    DELTA_ASSIGN_OR_RETURN(auto min_text, cols.Get<arrow::StringArray>("min_text"));
    DELTA_ASSIGN_OR_RETURN(auto max_text, cols.Get<arrow::StringArray>("max_text"));
    // Added after the first profiler release: absent in older profile tables (0).
    const arrow::Int64Array* cast_nulls = nullptr;
    if (b->GetColumnByName("cast_nulls")) {
      DELTA_ASSIGN_OR_RETURN(cast_nulls, cols.Get<arrow::Int64Array>("cast_nulls"));
    }
    std::vector<const arrow::BinaryArray*> sketches;
    for (const char* n : {"quantiles", "distinct", "top", "patterns"}) {
      DELTA_ASSIGN_OR_RETURN(auto a, cols.Get<arrow::BinaryArray>(n));
      sketches.push_back(a);
    }
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      const int64_t v = version->Value(r);
      if (v < from || (to >= 0 && v > to)) continue;  // not decoded: outside the range
      TableProfile& t = by_version[v];
      t.version = v;
      t.timestamp_ms = at->Value(r) / 1000;
      t.operation = op->GetString(r);
      t.rows = table_rows->Value(r);
      ColumnProfile c;
      c.column = column->GetString(r);
      c.type = type->GetString(r);
      auto where = [&](const Error& e) {
        return WithContext(e,
                           fmt::format("profile of version {} column '{}'", v, c.column));
      };
      auto k = ParseKind(kind->GetView(r));
      if (!k) return where(k.error());
      c.kind = *k;
      c.rows = ints[0]->Value(r);
      c.nulls = ints[1]->Value(r);
      c.numeric_count = ints[2]->Value(r);
      c.zeros = ints[3]->Value(r);
      c.min_length = ints[4]->IsNull(r) ? -1 : ints[4]->Value(r);
      c.max_length = ints[5]->IsNull(r) ? -1 : ints[5]->Value(r);
      c.total_length = ints[6]->Value(r);
      c.sampled = ints[7]->Value(r);
      if (cast_nulls != nullptr && !cast_nulls->IsNull(r)) {
        c.cast_nulls = cast_nulls->Value(r);
      }
      if (c.numeric_count > 0) {
        c.min = doubles[0]->Value(r);
        c.max = doubles[1]->Value(r);
        c.mean = doubles[2]->Value(r);
        c.m2 = doubles[3]->Value(r);
      }
      const int32_t n_hours = hours->IsNull(r) ? 0 : hours->value_length(r);
      if (n_hours != 0 && n_hours != 24) {
        return where(MakeError(ErrorCode::kCorruptData,
                               "an hour histogram of {} bins (24 expected)", n_hours));
      }
      if (n_hours == 24) {
        const auto& values = static_cast<const arrow::Int64Array&>(*hours->values());
        for (int h = 0; h < 24; ++h) {
          c.hours[static_cast<size_t>(h)] = values.Value(hours->value_offset(r) + h);
        }
      }
      if (!min_text->IsNull(r)) c.min_text = min_text->GetString(r);
      if (!max_text->IsNull(r)) c.max_text = max_text->GetString(r);
      auto q = QuantileSketch::Deserialize(sketches[0]->GetView(r));
      if (!q) return where(q.error());
      const bool skip_distinct = !number_distinct && (c.kind == ProfileKind::kNumber ||
                                                      c.kind == ProfileKind::kDate ||
                                                      c.kind == ProfileKind::kTimestamp);
      auto d = skip_distinct ? Result<DistinctSketch>(DistinctSketch())
                             : DistinctSketch::Deserialize(sketches[1]->GetView(r));
      if (!d) return where(d.error());
      auto top = TopValuesSketch::Deserialize(sketches[2]->GetView(r));
      if (!top) return where(top.error());
      auto pat = TopValuesSketch::Deserialize(sketches[3]->GetView(r));
      if (!pat) return where(pat.error());
      c.quantiles = std::move(*q);
      c.distinct = std::move(*d);
      c.top = std::move(*top);
      c.patterns = std::move(*pat);
      t.columns.push_back(std::move(c));
    }
  }
  std::vector<TableProfile> out;
  for (auto& [v, t] : by_version) out.push_back(std::move(t));
  return out;
}

}  // namespace deltaguard
