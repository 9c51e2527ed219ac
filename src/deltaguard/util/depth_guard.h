/// \file deltaguard/util/depth_guard.h
/// The one mechanism that bounds recursion over untrusted input, and the nesting limits
/// (docs/behaviour.md "Limits on nesting" gives the reasons).
///
/// Every recursive parser, binder, evaluator and printer of nested input keeps a
/// RecursionBudget and enters a DepthGuard per level; when `exceeded()` it fails with a
/// clear error naming the limit instead of overflowing the stack. Flat chains (`a + b +
/// ...`, `x AND y AND ...`, long lists) are not nesting: they are n-ary nodes or loops,
/// so the budget counts only genuine nesting. Parsers added later (YAML, ingestion)
/// inherit the limits by using these constants and the guard.
#pragma once

#include <cstddef>
#include <string_view>

namespace deltaguard {

/// SQL expressions: depth of the expression tree after parsing (each parenthesis,
/// function call, CASE, CAST, NOT or unary minus that wraps an operand, and each change
/// of operator in a chain, is one level). Parsing spends about ten stack frames per
/// level, so 1000 levels stay far below a 1 MiB stack even under AddressSanitizer
/// (measured in expr/depth_limits_test.cc).
inline constexpr int kMaxExprDepth = 256;

/// Bound expression trees (binder and evaluator): binding may add one implicit cast per
/// source level, so twice the source limit.
inline constexpr int kMaxBoundExprDepth = 2 * kMaxExprDepth;

/// Nested data types (ARRAY/MAP/STRUCT) in DDL, schema JSON and Arrow/Parquet schemas.
/// Arrow's IPC reader refuses schemas nested deeper than 64 (arrow::ipc
/// kMaxNestingDepth), so a deeper table could not be handed to pyarrow or other Arrow
/// engines; no real schema comes close.
inline constexpr int kMaxTypeDepth = 64;

/// JSON documents the engine parses (commit files, checkpoint JSON columns, schema
/// strings, catalog files): objects and arrays nested at most this deep. This is the
/// default nesting limit of Jackson (StreamReadConstraints), the JSON library Spark and
/// Delta read logs with, so every log they accept is accepted here; a Delta action
/// nests 4 levels.
inline constexpr int kMaxJsonDepth = 1000;

/// NDJSON records written to a table: the record object plus kMaxTypeDepth levels, the
/// deepest value a column of a Delta type can hold.
inline constexpr int kMaxInputJsonDepth = kMaxTypeDepth + 1;

/// How deep a recursion over one input may go.
class RecursionBudget {
 public:
  explicit RecursionBudget(int limit) : limit_(limit) {}
  int depth() const { return depth_; }
  int limit() const { return limit_; }
  bool exceeded() const { return depth_ > limit_; }

 private:
  friend class DepthGuard;
  int depth_ = 0;
  int limit_;
};

/// One level of recursion: enter it at the top of the recursive function and check
/// `exceeded()` before going deeper.
class DepthGuard {
 public:
  explicit DepthGuard(RecursionBudget* budget) : budget_(budget) { ++budget_->depth_; }
  ~DepthGuard() { --budget_->depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  bool exceeded() const { return budget_->exceeded(); }

 private:
  RecursionBudget* budget_;
};

/// Result of JsonNestingDepth: the deepest nesting of objects and arrays, and the byte
/// offset where `limit` was first exceeded (npos when it never was).
struct JsonDepthScan {
  int max_depth = 0;
  size_t exceeded_at = std::string_view::npos;
};

/// Scan JSON text for its nesting depth without parsing it: brackets outside strings
/// are counted, escapes inside strings skipped. Malformed text is not diagnosed (the
/// parser that runs next does that); the scan only guarantees that a text it passes has
/// no bracket nesting deeper than `limit`, so the recursive code after the parser is
/// safe. Stops at the first offset beyond the limit.
JsonDepthScan JsonNestingDepth(std::string_view text, int limit);

}  // namespace deltaguard
