#include "deltaguard/util/depth_guard.h"

#include <gtest/gtest.h>

#include <string>

namespace deltaguard {
namespace {

int Guarded(RecursionBudget* budget, int n) {
  DepthGuard guard(budget);
  if (guard.exceeded()) return -1;
  return n == 0 ? budget->depth() : Guarded(budget, n - 1);
}

TEST(DepthGuardTest, CountsLevelsAndStopsPastTheLimit) {
  RecursionBudget budget(10);
  EXPECT_EQ(Guarded(&budget, 9), 10);
  EXPECT_EQ(budget.depth(), 0);  // every guard released its level
  EXPECT_EQ(Guarded(&budget, 10), -1);
  EXPECT_EQ(budget.depth(), 0);
}

TEST(DepthGuardTest, JsonScanCountsBracketsOutsideStringsOnly) {
  EXPECT_EQ(JsonNestingDepth(R"({"a": [1, {"b": []}]})", 10).max_depth, 4);
  EXPECT_EQ(JsonNestingDepth(R"({"a": "[[[[{{{{"})", 10).max_depth, 1);
  EXPECT_EQ(JsonNestingDepth(R"({"a": "\"[[[[", "b": [[]]})", 10).max_depth, 3);
  EXPECT_EQ(JsonNestingDepth(R"(["\\", [[]]])", 10).max_depth, 3);
  EXPECT_EQ(JsonNestingDepth("", 10).max_depth, 0);
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  JsonDepthScan scan = JsonNestingDepth(deep, kMaxJsonDepth);
  EXPECT_EQ(scan.exceeded_at, static_cast<size_t>(kMaxJsonDepth));
  EXPECT_EQ(JsonNestingDepth(deep, 200000).exceeded_at, std::string_view::npos);
}

}  // namespace
}  // namespace deltaguard
