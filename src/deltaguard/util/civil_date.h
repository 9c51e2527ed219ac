/// \file deltaguard/util/civil_date.h
/// Proleptic Gregorian calendar arithmetic on days since 1970-01-01, the encoding of
/// Delta's `date` type (and of timestamps divided by a day). Used by every parser and
/// printer of dates (literals, partition values, casts, to_date, result rendering), so
/// they all agree on leap years and on dates before 1970 and after 9999.
#pragma once

#include <cstdint>

namespace deltaguard {

struct CivilDate {
  int64_t year = 1970;
  int64_t month = 1;  ///< 1..12
  int64_t day = 1;    ///< 1..DaysInMonth(year, month)
};

constexpr bool IsLeapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/// Days of month `m` (1..12) of year `y`.
constexpr int DaysInMonth(int64_t y, int64_t m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

/// Days from 1970-01-01 to y-m-d (negative before). The era-based computation: years
/// are shifted to start in March so the leap day is the last day of a year, and a
/// 400-year era has exactly 146097 days. Valid for any y-m-d with m in 1..12.
constexpr int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;                                   // [0, 399]
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // [0, 146096]
  return era * 146097 + doe - 719468;
}

/// The inverse of DaysFromCivil.
constexpr CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  CivilDate out;
  out.day = doy - (153 * mp + 2) / 5 + 1;
  out.month = mp < 10 ? mp + 3 : mp - 9;
  out.year = yoe + era * 400 + (out.month <= 2 ? 1 : 0);
  return out;
}

}  // namespace deltaguard
