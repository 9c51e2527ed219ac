// Properties of bound trees (binder.h): destruction without recursion, determinism,
// aggregates, the columns a tree reads, and the names of lambda parameters' columns.

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/expr/binder.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

// Pre-order visit with an explicit stack: bound trees built in code may be deep.
void Walk(const BoundExpr& e, const std::function<void(const BoundExpr&)>& f) {
  std::vector<const BoundExpr*> pending{&e};
  while (!pending.empty()) {
    const BoundExpr* node = pending.back();
    pending.pop_back();
    f(*node);
    for (size_t i = node->args.size(); i-- > 0;) pending.push_back(node->args[i].get());
  }
}

}  // namespace

BoundExpr::~BoundExpr() {
  // As ~Expr (ast.cc): take over solely owned operands so destruction is a loop.
  std::vector<BoundExprRef> pending = std::move(args);
  while (!pending.empty()) {
    BoundExprRef node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) {
      auto& mutable_args = const_cast<BoundExpr&>(*node).args;
      for (auto& a : mutable_args) pending.push_back(std::move(a));
      mutable_args.clear();
    }
  }
}

bool IsDeterministic(const BoundExpr& expr) {
  bool det = true;
  Walk(expr, [&](const BoundExpr& e) {
    if (e.fn == BoundFn::kCurrentDate || e.fn == BoundFn::kCurrentTimestamp) det = false;
    if (e.fn == BoundFn::kLibrary && e.name == "unix_timestamp" && e.args.empty()) {
      det = false;
    }
  });
  return det;
}

bool IsWindowOnlyFunction(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "row_number", "rank", "dense_rank",  "percent_rank", "cume_dist", "ntile",
      "lag",        "lead", "first_value", "last_value",   "nth_value"};
  for (std::string_view n : kNames) {
    if (EqualsIgnoreCase(n, name)) return true;
  }
  return false;
}

bool ContainsAggregate(const BoundExpr& expr) {
  bool agg = false;
  Walk(expr, [&](const BoundExpr& e) { agg = agg || e.fn == BoundFn::kAggregate; });
  return agg;
}

std::vector<std::vector<std::string>> ReferencedColumns(const BoundExpr& expr) {
  std::vector<std::vector<std::string>> out;
  Walk(expr, [&](const BoundExpr& e) {
    if (e.kind == BoundKind::kColumn && !IsLambdaColumn(e.path[0]) &&
        std::find(out.begin(), out.end(), e.path) == out.end()) {
      out.push_back(e.path);
    }
  });
  return out;
}

// "\x01" starts no column name a user writes or a Delta table holds.
constexpr std::string_view kLambdaPrefix = "\x01lambda";

bool IsLambdaColumn(std::string_view name) { return name.starts_with(kLambdaPrefix); }

std::string LambdaColumnName(int n, std::string_view param) {
  return fmt::format("{}{}_{}", kLambdaPrefix, n, param);
}

}  // namespace deltaguard
