#include "deltaguard/exec/spill_memory_pool.h"

#include <arrow/array.h>
#include <arrow/array/concatenate.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace deltaguard {
namespace {

std::unique_ptr<SpillMemoryPool> MakePool() {
  auto pool = SpillMemoryPool::Make("/tmp");
  EXPECT_TRUE(pool) << pool.error().ToString();
  return pool ? std::move(*pool) : nullptr;
}

TEST(SpillMemoryPoolTest, AllocatesWritableMemoryAndTracksBytes) {
  auto pool = MakePool();
  ASSERT_NE(pool, nullptr);
  uint8_t* a = nullptr;
  ASSERT_TRUE(pool->Allocate(10000, 64, &a).ok());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 7, 10000);
  EXPECT_EQ(pool->bytes_allocated(), 10000);
  ASSERT_TRUE(pool->Reallocate(10000, 50000, 64, &a).ok());
  EXPECT_EQ(a[9999], 7);  // the old bytes moved with the buffer
  std::memset(a + 10000, 8, 40000);
  EXPECT_EQ(pool->bytes_allocated(), 50000);
  uint8_t* empty = nullptr;
  ASSERT_TRUE(pool->Allocate(0, 64, &empty).ok());
  EXPECT_NE(empty, nullptr);
  pool->Free(empty, 0, 64);
  pool->Free(a, 50000, 64);
  EXPECT_EQ(pool->bytes_allocated(), 0);
  EXPECT_EQ(pool->max_memory(), 60000);   // both buffers were live during Reallocate
  EXPECT_EQ(pool->num_allocations(), 2);  // zero-size requests are not allocations
}

TEST(SpillMemoryPoolTest, ArraysBuiltInThePoolReadBack) {
  auto pool = MakePool();
  ASSERT_NE(pool, nullptr);
  auto a = arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["x", null, "yy"])");
  auto b = arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["zzz"])");
  ASSERT_TRUE(a.ok() && b.ok());
  {
    auto joined = arrow::Concatenate({*a, *b}, pool.get());
    ASSERT_TRUE(joined.ok()) << joined.status().ToString();
    EXPECT_GT(pool->bytes_allocated(), 0);
    auto expected =
        arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["x", null, "yy", "zzz"])");
    EXPECT_TRUE((*joined)->Equals(**expected)) << (*joined)->ToString();
  }
  EXPECT_EQ(pool->bytes_allocated(), 0);  // freed with the array
}

TEST(SpillMemoryPoolTest, MissingDirectoryIsAnIoErrorNamingIt) {
  auto pool = SpillMemoryPool::Make("/nonexistent/deltaguard-dir");
  ASSERT_FALSE(pool);
  EXPECT_EQ(pool.error().code, ErrorCode::kIOError);
  EXPECT_NE(pool.error().message.find("/nonexistent/deltaguard-dir"), std::string::npos);
}

}  // namespace
}  // namespace deltaguard
