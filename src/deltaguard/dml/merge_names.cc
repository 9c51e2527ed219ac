// MERGE name resolution (merge_names_internal.h).

#include "deltaguard/dml/merge_names_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal {

std::string Columns(const StructType& s, const std::string& alias) {
  std::string out;
  for (const auto& f : s.fields()) {
    out += (out.empty() ? "" : ", ") + alias + "." + QuoteIdentifier(f.name);
  }
  return out.empty() ? "(none)" : out;
}

std::string JoinList(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Result<ExprRef> Names::Qualify(const ExprRef& e, const Scope& scope,
                               unsigned* sides) const {
  if (e->kind == ExprKind::kColumn) return QualifyColumn(*e, scope, sides);
  if (e->children.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& child : copy->children) {
    DELTA_ASSIGN_OR_RETURN(child, Qualify(child, scope, sides));
  }
  return ExprRef(std::move(copy));
}

Result<std::pair<std::string, bool>> Names::AssignedColumn(
    const std::vector<std::string>& path, const std::string& what) const {
  std::vector<std::string> p = path;
  if (p.size() >= 2 && EqualsIgnoreCase(p[0], ta_)) p.erase(p.begin());
  if (p.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: empty column name", what);
  }
  if (p.size() > 1) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "{}: assignment to the nested field '{}' is not supported; assign "
                     "the whole top-level column",
                     what, JoinList(p));
  }
  int i = t_->FieldIndexCaseInsensitive(p[0]);
  if (i >= 0) return std::make_pair(t_->field(static_cast<size_t>(i)).name, true);
  return std::make_pair(p[0], false);
}

Result<ExprRef> Names::QualifyColumn(const Expr& e, const Scope& scope,
                                     unsigned* sides) const {
  const auto& p = e.path;
  auto has = [](const StructType& s, const std::string& n) {
    return s.FieldIndexCaseInsensitive(n) >= 0;
  };
  unsigned side = kNoSide;
  size_t skip = 0;
  if (p.size() >= 2 && EqualsIgnoreCase(p[0], ta_) && has(*t_, p[1])) {
    side = kTargetSide;
    skip = 1;
  } else if (p.size() >= 2 && EqualsIgnoreCase(p[0], sa_) && has(*s_, p[1])) {
    side = kSourceSide;
    skip = 1;
  } else {
    bool in_t = has(*t_, p[0]);
    bool in_s = has(*s_, p[0]);
    if (in_t && in_s && scope.target && scope.source) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "AMBIGUOUS_REFERENCE: column '{}' in {} is ambiguous: it could "
                       "be {}.{} (target) or {}.{} (source); qualify it",
                       ToSql(e), scope.what, ta_, QuoteIdentifier(p[0]), sa_,
                       QuoteIdentifier(p[0]));
    }
    if (in_t && (scope.target || !in_s)) {
      side = kTargetSide;
    } else if (in_s) {
      side = kSourceSide;
    }
  }
  if (side == kNoSide) {
    std::string available;
    if (scope.target) available = Columns(*t_, ta_);
    if (scope.source) {
      available += (available.empty() ? "" : ", ") + Columns(*s_, sa_);
    }
    return MakeError(ErrorCode::kNotFound,
                     "DELTA_MERGE_UNRESOLVED_EXPRESSION: cannot resolve '{}' in {}; "
                     "available columns: {}",
                     ToSql(e), scope.what, available);
  }
  if (side == kTargetSide && !scope.target) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_MERGE_UNRESOLVED_EXPRESSION: {} cannot reference the target "
                     "column '{}': only source columns are visible there ({})",
                     scope.what, ToSql(e), Columns(*s_, sa_));
  }
  if (side == kSourceSide && !scope.source) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_MERGE_UNRESOLVED_EXPRESSION: {} cannot reference the source "
                     "column '{}': only target columns are visible there ({})",
                     scope.what, ToSql(e), Columns(*t_, ta_));
  }
  const StructType& s = side == kTargetSide ? *t_ : *s_;
  const auto& f = s.field(static_cast<size_t>(s.FieldIndexCaseInsensitive(p[skip])));
  std::vector<std::string> path{JoinedName(side == kTargetSide ? ta_ : sa_, f.name)};
  path.insert(path.end(), p.begin() + static_cast<std::ptrdiff_t>(skip) + 1, p.end());
  *sides |= side;
  return Expr::Column(std::move(path), e.position);
}

std::set<std::string> ExceptSet(const MergeWhen& when, const Names& names,
                                const StructType& t, const StructType& s,
                                const std::string& what, Status* status) {
  std::set<std::string> out;
  for (auto path : when.except_columns) {
    if (path.size() >= 2 && (EqualsIgnoreCase(path[0], names.target_alias()) ||
                             EqualsIgnoreCase(path[0], names.source_alias()))) {
      path.erase(path.begin());
    }
    if (path.size() != 1 || (t.FieldIndexCaseInsensitive(path[0]) < 0 &&
                             s.FieldIndexCaseInsensitive(path[0]) < 0)) {
      *status = MakeError(ErrorCode::kNotFound,
                          "{}: EXCEPT column '{}' is neither a source nor a target "
                          "column (source: {}; target: {})",
                          what, JoinList(path), Columns(s, names.source_alias()),
                          Columns(t, names.target_alias()));
      return out;
    }
    out.insert(AsciiToLower(path[0]));
  }
  return out;
}

}  // namespace deltaguard::dml_internal
