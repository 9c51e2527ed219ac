// Exact row tests over batches (quality/row_tests.h).

#include "deltaguard/quality/row_tests.h"

#include <arrow/array.h>
#include <fmt/format.h>

#include <unordered_set>

#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr size_t kMaxSamples = 5;

struct PredicateTest {
  size_t test;
  BoundExprRef predicate;
  std::vector<std::vector<std::string>> columns;
  RowTestCount count;
};

struct UniqueTest {
  size_t test;
  std::vector<std::string> columns;  // as the batch spells them
  std::unordered_set<std::string> seen;
  RowTestCount count;
};

std::string ColumnList(const StructType& schema) {
  std::string out;
  for (const auto& f : schema.fields()) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

// The schema's spelling of a (possibly dotted) column, or nullopt.
std::optional<std::string> Resolve(const StructType& schema, const std::string& path) {
  auto parts = Split(path, '.');
  const StructType* st = &schema;
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    int at = st->FieldIndexCaseInsensitive(parts[i]);
    if (at < 0) return std::nullopt;
    const StructField& f = st->field(static_cast<size_t>(at));
    out += (out.empty() ? "" : ".") + f.name;
    if (i + 1 < parts.size()) {
      if (f.type->kind() != TypeKind::kStruct) return std::nullopt;
      st = static_cast<const StructType*>(f.type.get());
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> RowKey(const std::vector<const arrow::Array*>& arrays,
                                  int64_t row) {
  std::string key;
  for (const arrow::Array* a : arrays) {
    if (a->IsNull(row)) return std::nullopt;
    std::string value;
    AppendTextValue(*a, row, /*csv=*/true, &value);
    key += std::to_string(value.size());
    key += ':';
    key += value;
  }
  return key;
}

struct RowTestRunner::Impl {
  std::vector<PredicateTest> predicates;
  std::vector<UniqueTest> uniques;
  int64_t rows = 0;
};

RowTestRunner::RowTestRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RowTestRunner::RowTestRunner(RowTestRunner&&) noexcept = default;
RowTestRunner& RowTestRunner::operator=(RowTestRunner&&) noexcept = default;
RowTestRunner::~RowTestRunner() = default;

Result<RowTestRunner> RowTestRunner::Make(const DataTestSuite& suite,
                                          const StructType& schema,
                                          std::string_view table) {
  auto impl = std::make_unique<Impl>();
  for (size_t i = 0; i < suite.tests.size(); ++i) {
    const DataTest& t = suite.tests[i];
    if (!t.is_row_test() || t.severity == TestSeverity::kOff) continue;
    const std::string where = t.line > 0 ? fmt::format("{}:{}: ", suite.file, t.line)
                                         : fmt::format("{}: ", suite.file);
    auto missing = [&](const std::string& column) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}test {}: column '{}' is not in table '{}' (columns: {})", where,
                       t.id, column, table, ColumnList(schema));
    };
    if (!t.column.empty() && !Resolve(schema, t.column)) return missing(t.column);
    if (!t.key_columns.empty()) {
      UniqueTest u{i, {}, {}, {}};
      u.count.test = i;
      for (const auto& c : t.key_columns) {
        auto resolved = Resolve(schema, c);
        if (!resolved) return missing(c);
        u.columns.push_back(*resolved);
      }
      impl->uniques.push_back(std::move(u));
      continue;
    }
    auto parsed = ParseExpression(t.predicate);
    if (!parsed) {
      return MakeError(ErrorCode::kInvalidArgument, "{}test {}: {}", where, t.id,
                       parsed.error().message);
    }
    auto bound = BindPredicate(**parsed, schema);
    if (!bound) {
      return MakeError(ErrorCode::kInvalidArgument, "{}test {} on table '{}': {}", where,
                       t.id, table, bound.error().message);
    }
    PredicateTest p{i, std::move(*bound), {}, {}};
    p.columns = ReferencedColumns(*p.predicate);
    p.count.test = i;
    impl->predicates.push_back(std::move(p));
  }
  return RowTestRunner(std::move(impl));
}

Status RowTestRunner::Add(const arrow::RecordBatch& batch) {
  impl_->rows += batch.num_rows();
  for (auto& p : impl_->predicates) {
    DELTA_ASSIGN_OR_RETURN(
        int64_t n, CountPredicateViolations(*p.predicate, p.columns, batch, kMaxSamples,
                                            &p.count.samples));
    p.count.violating += n;
  }
  for (auto& u : impl_->uniques) {
    std::vector<const arrow::Array*> arrays;
    std::vector<std::shared_ptr<arrow::Array>> owned;
    for (const auto& c : u.columns) {
      // Top-level columns by name; a nested key is read through its struct.
      auto parts = Split(c, '.');
      std::shared_ptr<arrow::Array> a = batch.GetColumnByName(std::string(parts[0]));
      for (size_t i = 1; a && i < parts.size(); ++i) {
        auto* st = dynamic_cast<arrow::StructArray*>(a.get());
        a = st ? st->GetFieldByName(std::string(parts[i])) : nullptr;
      }
      if (!a) {
        return MakeError(ErrorCode::kInternal, "column '{}' is not in the batch", c);
      }
      arrays.push_back(a.get());
      owned.push_back(std::move(a));
    }
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      auto key = RowKey(arrays, row);
      if (!key || u.seen.insert(std::move(*key)).second) continue;
      ++u.count.violating;
      if (u.count.samples.size() < kMaxSamples) {
        std::string sample = "{";
        for (size_t c = 0; c < arrays.size(); ++c) {
          sample += (c ? ", " : "") + u.columns[c] + ": ";
          AppendTextValue(*arrays[c], row, /*csv=*/false, &sample);
        }
        u.count.samples.push_back(EscapeForMessage(sample + "}", 300));
      }
    }
  }
  return OkStatus();
}

int64_t RowTestRunner::rows() const { return impl_->rows; }

std::vector<RowTestCount> RowTestRunner::Counts() const {
  std::vector<RowTestCount> out;
  for (const auto& p : impl_->predicates) out.push_back(p.count);
  for (const auto& u : impl_->uniques) out.push_back(u.count);
  return out;
}

Status RowTestObserver::OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                                const BatchInfo& /*info*/) {
  std::lock_guard<std::mutex> lock(mutex_);
  return runner_.Add(**batch);
}

std::vector<RowTestCount> RowTestObserver::Counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return runner_.Counts();
}

}  // namespace deltaguard
