#include "deltaguard/util/result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>

namespace deltaguard {
namespace {

constexpr ErrorCode kAllCodes[] = {
    ErrorCode::kInvalidArgument, ErrorCode::kNotFound,
    ErrorCode::kAlreadyExists,   ErrorCode::kCorruptLog,
    ErrorCode::kCorruptData,     ErrorCode::kUnsupportedFeature,
    ErrorCode::kSchemaMismatch,  ErrorCode::kConstraintViolation,
    ErrorCode::kCommitConflict,  ErrorCode::kIOError,
    ErrorCode::kParseError,      ErrorCode::kInternal,
};

TEST(ErrorTest, EveryCodeHasADistinctStablePrefix) {
  std::set<std::string_view> seen;
  for (ErrorCode code : kAllCodes) {
    std::string_view prefix = ErrorCodePrefix(code);
    EXPECT_TRUE(prefix.ends_with("Error")) << prefix;
    EXPECT_TRUE(seen.insert(prefix).second) << "duplicate prefix " << prefix;
  }
  // Golden tests match these exact strings.
  EXPECT_EQ(ErrorCodePrefix(ErrorCode::kSchemaMismatch), "Schema Error");
  EXPECT_EQ(ErrorCodePrefix(ErrorCode::kConstraintViolation), "Constraint Error");
  EXPECT_EQ(ErrorCodePrefix(ErrorCode::kCommitConflict), "Conflict Error");
  EXPECT_EQ(ErrorCodePrefix(ErrorCode::kParseError), "Parser Error");
  EXPECT_EQ(ErrorCodePrefix(ErrorCode::kNotFound), "Not Found Error");
}

TEST(ErrorTest, MakeErrorFormatsAndToStringPrefixes) {
  Error e = MakeError(ErrorCode::kNotFound, "table '{}' has no {} at version {}", "/t",
                      "_delta_log", 3);
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_EQ(e.message, "table '/t' has no _delta_log at version 3");
  EXPECT_EQ(e.ToString(), "Not Found Error: table '/t' has no _delta_log at version 3");
}

TEST(ErrorTest, WithContextPrependsAndKeepsTheCode) {
  Error e = WithContext(MakeError(ErrorCode::kCorruptLog, "bad line 2"), "commit 5");
  EXPECT_EQ(e.code, ErrorCode::kCorruptLog);
  EXPECT_EQ(e.message, "commit 5: bad line 2");
  EXPECT_EQ(WithContext(e, "table t").ToString(),
            "Corrupt Log Error: table t: commit 5: bad line 2");
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> ok = 42;
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 42);
  Result<int> bad = MakeError(ErrorCode::kIOError, "disk");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kIOError);
  Result<int> from_unexpected = tl::unexpected(MakeError(ErrorCode::kInternal, "x"));
  ASSERT_FALSE(from_unexpected);
  EXPECT_EQ(from_unexpected.error().message, "x");
  EXPECT_TRUE(OkStatus());
  Status failed = MakeError(ErrorCode::kAlreadyExists, "y");
  EXPECT_FALSE(failed);
}

// --- macros
// ------------------------------------------------------------------------------

int g_after_return_if_error = 0;

Status FailIf(bool fail) {
  if (fail) return MakeError(ErrorCode::kCommitConflict, "lost the race");
  return OkStatus();
}

Result<int> ValueOrFail(bool fail, int value) {
  if (fail) return MakeError(ErrorCode::kSchemaMismatch, "bad value {}", value);
  return value;
}

Status UseReturnIfError(bool fail_status, bool fail_result) {
  DELTA_RETURN_IF_ERROR(FailIf(fail_status));
  DELTA_RETURN_IF_ERROR(ValueOrFail(fail_result, 1));  // works on Result<T> too
  ++g_after_return_if_error;
  return OkStatus();
}

TEST(MacroTest, ReturnIfErrorPropagatesOnlyErrors) {
  g_after_return_if_error = 0;
  EXPECT_TRUE(UseReturnIfError(false, false));
  EXPECT_EQ(g_after_return_if_error, 1);

  Status s = UseReturnIfError(true, false);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kCommitConflict);
  EXPECT_EQ(s.error().message, "lost the race");
  Status r = UseReturnIfError(false, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(g_after_return_if_error, 1);  // the line after the failing macro never ran
}

Result<int> SumTwo(bool fail_first, bool fail_second) {
  // Two uses in one scope: the temporaries get distinct names via __COUNTER__.
  DELTA_ASSIGN_OR_RETURN(int a, ValueOrFail(fail_first, 20));
  DELTA_ASSIGN_OR_RETURN(const int b, ValueOrFail(fail_second, 22));
  return a + b;
}

TEST(MacroTest, AssignOrReturnAssignsOrPropagates) {
  auto ok = SumTwo(false, false);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 42);
  auto first = SumTwo(true, false);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().message, "bad value 20");
  auto second = SumTwo(false, true);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, "bad value 22");
}

Result<std::unique_ptr<int>> MakeBox(bool fail) {
  if (fail) return MakeError(ErrorCode::kInvalidArgument, "no box");
  return std::make_unique<int>(7);
}

Result<int> Unbox(bool fail) {
  std::unique_ptr<int> box;
  DELTA_ASSIGN_OR_RETURN(box, MakeBox(fail));  // assigns to an existing variable
  return *box;
}

Status UnboxIntoStatus(bool fail) {
  // The error type converts across Result<T> and Status.
  DELTA_ASSIGN_OR_RETURN(auto box, MakeBox(fail));
  return *box == 7 ? OkStatus() : MakeError(ErrorCode::kInternal, "wrong box");
}

TEST(MacroTest, AssignOrReturnMovesMoveOnlyValues) {
  auto ok = Unbox(false);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 7);
  auto bad = Unbox(true);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(UnboxIntoStatus(false));
  Status s = UnboxIntoStatus(true);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().ToString(), "Invalid Input Error: no box");
}

TEST(MacroDeathTest, DcheckAbortsWithTheCondition) {
  EXPECT_DEATH(DELTA_DCHECK(1 + 1 == 3), "internal invariant failed: 1 \\+ 1 == 3");
}

}  // namespace
}  // namespace deltaguard
