// Flat chains and long IN lists run at any length; genuine nesting stops at
// kMaxExprDepth with a clear error; nothing here may overflow the stack.
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/depth_guard.h"

namespace deltaguard {
namespace {

constexpr int kTerms = 100000;

std::string Chain(const std::string& term, const std::string& op, int n) {
  std::string out = term;
  for (int i = 1; i < n; ++i) out += " " + op + " " + term;
  return out;
}

std::string Wrap(const std::string& open, const std::string& inner,
                 const std::string& close, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += open;
  out += inner;
  for (int i = 0; i < n; ++i) out += close;
  return out;
}

// Runs `fn` on a thread with a 1 MiB stack (an eighth of the main thread's), so a
// pass that recursed per chain term, or spent much more stack per level than measured,
// would crash here. AddressSanitizer's redzones make frames several times larger, so
// under it the thread gets the main thread's default 8 MiB: the limits must still fit
// the stack an instrumented build runs on.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kTestStackBytes = size_t{8} << 20;
#else
constexpr size_t kTestStackBytes = size_t{1} << 20;
#endif

void OnSmallStack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kTestStackBytes);
  pthread_t thread;
  auto body = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&fn)),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

SchemaRef TestSchema() {
  auto s = ParseDdlSchema("x INT, y BIGINT, s STRING, ok BOOLEAN");
  EXPECT_TRUE(s);
  return *s;
}

TEST(DepthLimitsTest, FlatChainsOf100kTermsParseBindPrintAndDestroy) {
  SchemaRef schema = TestSchema();
  struct Case {
    std::string sql;
    std::string type;
  };
  std::vector<Case> cases = {
      {Chain("x", "+", kTerms), "INT"},           {Chain("y", "-", kTerms), "BIGINT"},
      {Chain("x", "*", kTerms), "INT"},           {Chain("s", "||", kTerms), "STRING"},
      {Chain("ok", "AND", kTerms), "BOOLEAN"},    {Chain("ok", "OR", kTerms), "BOOLEAN"},
      {Chain("x = 1", "AND", kTerms), "BOOLEAN"},
  };
  for (const auto& c : cases) {
    OnSmallStack([&] {
      auto e = ParseExpression(c.sql);
      ASSERT_TRUE(e) << e.error().ToString();
      EXPECT_LE(ExprDepth(**e), 3) << "a chain is one n-ary node";
      std::string printed = ToSql(**e);
      EXPECT_EQ(printed, c.sql);
      auto again = ParseExpression(printed);
      ASSERT_TRUE(again);
      EXPECT_TRUE(**again == **e);
      auto bound = Bind(**e, *schema);
      ASSERT_TRUE(bound) << bound.error().ToString();
      EXPECT_EQ(TypeToSql(*(*bound)->type), c.type);
      EXPECT_TRUE(IsDeterministic(**bound));
      EXPECT_EQ(ReferencedColumns(**bound).size(), 1u);
    });
  }
}

TEST(DepthLimitsTest, ChainThatWidensKeepsSparkTyping) {
  SchemaRef schema = TestSchema();
  // x + x is INT (may overflow as INT), then + y widens to BIGINT: two calls.
  auto e = ParseExpression("x + x + y + y");
  ASSERT_TRUE(e);
  auto b = Bind(**e, *schema);
  ASSERT_TRUE(b);
  EXPECT_EQ(TypeToSql(*(*b)->type), "BIGINT");
  ASSERT_EQ((*b)->args.size(), 3u);  // (cast(x + x) + y) + y, folded
  EXPECT_EQ((*b)->args[0]->kind, BoundKind::kCast);
  EXPECT_EQ(TypeToSql(*(*b)->args[0]->args[0]->type), "INT");
}

TEST(DepthLimitsTest, InListOf100kValuesIsOneSetLookup) {
  SchemaRef schema = TestSchema();
  std::string sql = "x IN (";
  for (int i = 0; i < kTerms; ++i) sql += (i ? ", " : "") + std::to_string(i);
  sql += ")";
  OnSmallStack([&] {
    auto e = ParseExpression(sql);
    ASSERT_TRUE(e) << e.error().ToString();
    EXPECT_EQ(ToSql(**e), sql);
    auto b = Bind(**e, *schema);
    ASSERT_TRUE(b) << b.error().ToString();
    EXPECT_EQ((*b)->fn, BoundFn::kIn);
    EXPECT_EQ((*b)->args.size(), static_cast<size_t>(kTerms) + 1);
  });
}

TEST(DepthLimitsTest, NestingUpToTheLimitWorksOnASmallStack) {
  SchemaRef schema = TestSchema();
  std::vector<std::string> deep = {
      Wrap("(", "x", ")", kMaxExprDepth),
      Wrap("abs(", "x", ")", kMaxExprDepth),
      Wrap("CASE WHEN ok THEN ", "x", " END", kMaxExprDepth),
      Wrap("NOT ", "ok", "", kMaxExprDepth),
      Wrap("-(", "x", ")", kMaxExprDepth / 2),
      Wrap("coalesce(", "x", ", 1.5)", kMaxExprDepth),  // a cast per level when bound
  };
  for (const auto& sql : deep) {
    OnSmallStack([&] {
      auto e = ParseExpression(sql);
      ASSERT_TRUE(e) << sql.substr(0, 40) << ": " << e.error().ToString();
      auto again = ParseExpression(ToSql(**e));
      ASSERT_TRUE(again) << again.error().ToString();
      EXPECT_TRUE(**again == **e);
      auto b = Bind(**e, *schema);
      EXPECT_TRUE(b) << b.error().ToString();
    });
  }
}

TEST(DepthLimitsTest, NestingBeyondTheLimitIsAParseErrorWithACaret) {
  std::vector<std::string> deep = {
      Wrap("(", "1", ")", kMaxExprDepth + 1),
      Wrap("abs(", "1", ")", kMaxExprDepth + 1),
      Wrap("CASE WHEN true THEN ", "1", " END", kMaxExprDepth + 1),
      Wrap("NOT ", "true", "", kMaxExprDepth + 1),
      Wrap("- ", "x", "", 100000),
      Wrap("(", "1", ")", 100000),
      Chain("1 + 1", "-", 2 * kMaxExprDepth),  // operators alternate: genuinely nested
  };
  for (const auto& sql : deep) {
    OnSmallStack([&] {
      auto e = ParseExpression(sql);
      ASSERT_FALSE(e) << sql.substr(0, 40);
      EXPECT_EQ(e.error().code, ErrorCode::kParseError);
      EXPECT_NE(e.error().message.find("nested too deeply"), std::string::npos)
          << e.error().message.substr(0, 200);
      EXPECT_NE(e.error().message.find("more than 256"), std::string::npos);
      EXPECT_NE(e.error().message.find("^"), std::string::npos);
    });
  }
}

TEST(DepthLimitsTest, BoundChainsWithoutOneTypeAreRefusedNotCrashed) {
  SchemaRef schema = TestSchema();
  // Each `=` compares the previous BOOLEAN result: a nested bound tree.
  auto e = ParseExpression(Chain("ok", "=", 3 * kMaxExprDepth));
  ASSERT_TRUE(e);
  auto b = Bind(**e, *schema);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(b.error().message.find("after type coercion"), std::string::npos);
}

TEST(DepthLimitsTest, HandBuiltTreesOfAnyDepthAreDestroyedIteratively) {
  OnSmallStack([] {
    ExprRef e = Expr::Column({"ok"});
    for (int i = 0; i < 1000000; ++i) e = Expr::Unary(ExprOp::kNot, e);
    auto b = Bind(*e, *TestSchema());
    ASSERT_FALSE(b);  // the binder's own guard
    EXPECT_NE(b.error().message.find("nested too deeply"), std::string::npos);
    Expr copy = *e;  // a second owner of the children: destroyed twice, each safely
    EXPECT_EQ(ExprDepth(copy), 1000001);
    EXPECT_TRUE(copy == *e);
    e.reset();
  });
  OnSmallStack([] {
    auto leaf = std::make_shared<BoundExpr>();
    BoundExprRef b = leaf;
    for (int i = 0; i < 1000000; ++i) {
      auto call = std::make_shared<BoundExpr>();
      call->kind = BoundKind::kCall;
      call->args.push_back(b);
      b = call;
    }
    EXPECT_TRUE(ContainsAggregate(*b) == false);
    b.reset();
  });
}

}  // namespace
}  // namespace deltaguard
