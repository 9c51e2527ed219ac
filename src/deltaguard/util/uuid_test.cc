#include "deltaguard/util/uuid.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace deltaguard {
namespace {

TEST(UuidTest, FormatIsVersion4Rfc4122) {
  const std::regex pattern(
      "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(std::regex_match(GenerateUuidV4(), pattern));
}

TEST(UuidTest, Unique) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(GenerateUuidV4());
  EXPECT_EQ(seen.size(), 10000u);
}

}  // namespace
}  // namespace deltaguard
