#include "deltaguard/util/civil_date.h"

#include <gtest/gtest.h>

namespace deltaguard {
namespace {

TEST(CivilDateTest, KnownDays) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 2, 29), 11016);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(9999, 12, 31), 2932896);
}

TEST(CivilDateTest, LeapYearsAndMonthLengths) {
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);
  EXPECT_EQ(DaysInMonth(2023, 4), 30);
  EXPECT_EQ(DaysInMonth(2023, 12), 31);
}

TEST(CivilDateTest, RoundTripsEveryDayOverFiveCenturiesAndNegativeYears) {
  int64_t expected = DaysFromCivil(-200, 1, 1);
  for (int64_t y = -200; y <= 2400; ++y) {
    for (int64_t m = 1; m <= 12; ++m) {
      for (int64_t d = 1; d <= DaysInMonth(y, m); ++d) {
        const int64_t days = DaysFromCivil(y, m, d);
        ASSERT_EQ(days, expected) << y << "-" << m << "-" << d;
        const CivilDate c = CivilFromDays(days);
        ASSERT_EQ(c.year, y);
        ASSERT_EQ(c.month, m);
        ASSERT_EQ(c.day, d);
        ++expected;
      }
    }
  }
}

}  // namespace
}  // namespace deltaguard
