// Date and time kernels of the function library. Dates are days since 1970-01-01 and
// timestamps microseconds since the epoch; the session time zone is UTC
// (exec/datetime_format.h), so a timestamp's fields are those of its UTC wall time.

#include <cmath>
#include <string>
#include <vector>

#include "deltaguard/exec/datetime_format.h"
#include "deltaguard/exec/expr_eval_library_internal.h"
#include "deltaguard/util/civil_date.h"

namespace deltaguard::internal {

using arrow::Datum;

namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

using IB = arrow::Int32Builder;
using LB = arrow::Int64Builder;
using DB = arrow::Date32Builder;
using TB = arrow::TimestampBuilder;

int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday).
int64_t WeekdayOf(int64_t days) { return FloorMod(days + 3, 7); }

// ISO-8601 week number: the week with the year's first Thursday is week 1.
int32_t IsoWeek(int64_t days) {
  const int64_t thursday = days - WeekdayOf(days) + 3;  // the Thursday of this week
  const CivilDate t = CivilFromDays(thursday);
  return static_cast<int32_t>((thursday - DaysFromCivil(t.year, 1, 1)) / 7 + 1);
}

// A field of a timestamp (micros) or a date (days), as an INT.
template <typename Field>
Result<Datum> IntField(const LibraryCall& c, Field&& field) {
  return MapRows<IB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, IB& b) -> Status {
        return Appended(b.Append(static_cast<int32_t>(field(r[0].Int(i)))), c);
      });
}

Status FieldRange(const LibraryCall& c, std::string_view field, int64_t v, int64_t lo,
                  int64_t hi) {
  if (v >= lo && v <= hi) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument,
                   "DATETIME_FIELD_OUT_OF_BOUNDS: {}(): {} {} is out of range {}..{}; "
                   "use try_* functions or check the inputs",
                   c.e.name, field, v, lo, hi);
}

Result<Datum> DateDiff(const LibraryCall& c) {
  return MapRows<IB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, IB& b) -> Status {
        return Appended(b.Append(static_cast<int32_t>(r[0].Int(i) - r[1].Int(i))), c);
      });
}

// Spark's DateTimeUtils.monthsBetween: whole months when the days of month are equal
// or both the last of their months; otherwise the remainder counts in 31-day months,
// with the time of day in whole seconds, and is rounded to 8 digits unless told not to.
double MonthsBetween(int64_t t1, int64_t t2, bool round_off) {
  const int64_t d1 = FloorDiv(t1, kMicrosPerDay), d2 = FloorDiv(t2, kMicrosPerDay);
  const CivilDate c1 = CivilFromDays(d1), c2 = CivilFromDays(d2);
  const int64_t months = (c1.year * 12 + c1.month) - (c2.year * 12 + c2.month);
  const bool last1 = c1.day == DaysInMonth(c1.year, c1.month);
  const bool last2 = c2.day == DaysInMonth(c2.year, c2.month);
  if (c1.day == c2.day || (last1 && last2)) return static_cast<double>(months);
  const int64_t s1 = (t1 - d1 * kMicrosPerDay) / kMicrosPerSecond;
  const int64_t s2 = (t2 - d2 * kMicrosPerDay) / kMicrosPerSecond;
  const int64_t seconds = (c1.day - c2.day) * 86'400 + s1 - s2;
  const double diff =
      static_cast<double>(months) + static_cast<double>(seconds) / (31.0 * 86'400);
  // Java's Math.round: floor(x + 0.5).
  return round_off ? std::floor(diff * 1e8 + 0.5) / 1e8 : diff;
}

Result<Datum> MonthsBetweenKernel(const LibraryCall& c) {
  using FB = arrow::DoubleBuilder;
  return MapRows<FB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, FB& b) -> Status {
        const bool round_off = r.size() < 3 || r[2].Bool(i);
        return Appended(b.Append(MonthsBetween(r[0].Int(i), r[1].Int(i), round_off)), c);
      });
}

// add_months: the same day of the month `n` months on, or that month's last day.
int64_t AddMonths(int64_t days, int64_t n) {
  const CivilDate d = CivilFromDays(days);
  const int64_t m0 = d.year * 12 + (d.month - 1) + n;
  const int64_t y = FloorDiv(m0, 12), m = FloorMod(m0, 12) + 1;
  return DaysFromCivil(y, m, std::min<int64_t>(d.day, DaysInMonth(y, m)));
}

Result<Datum> AddMonthsKernel(const LibraryCall& c) {
  return MapRows<DB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, DB& b) -> Status {
        return Appended(
            b.Append(static_cast<int32_t>(AddMonths(r[0].Int(i), r[1].Int(i)))), c);
      });
}

Result<Datum> LastDay(const LibraryCall& c) {
  return MapRows<DB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, DB& b) -> Status {
        const CivilDate d = CivilFromDays(r[0].Int(i));
        return Appended(b.Append(static_cast<int32_t>(DaysFromCivil(
                            d.year, d.month, DaysInMonth(d.year, d.month)))),
                        c);
      });
}

// The first day of the unit containing `days` (units of a day or longer).
int64_t TruncDays(int64_t days, int unit) {
  const CivilDate d = CivilFromDays(days);
  switch (unit) {
    case kTruncYear:
      return DaysFromCivil(d.year, 1, 1);
    case kTruncQuarter:
      return DaysFromCivil(d.year, (d.month - 1) / 3 * 3 + 1, 1);
    case kTruncMonth:
      return DaysFromCivil(d.year, d.month, 1);
    case kTruncWeek:
      return days - WeekdayOf(days);
    default:
      return days;
  }
}

Result<Datum> DateTrunc(const LibraryCall& c) {
  const int unit = TruncUnitOf(c.StrLiteral(0), true);
  return MapRows<TB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, TB& b) -> Status {
        const int64_t t = r[1].Int(i);
        const int64_t days = FloorDiv(t, kMicrosPerDay);
        int64_t out;
        if (unit <= kTruncDay) {
          out = TruncDays(days, unit) * kMicrosPerDay;
        } else {
          const int64_t step = unit == kTruncHour          ? 3'600 * kMicrosPerSecond
                               : unit == kTruncMinute      ? 60 * kMicrosPerSecond
                               : unit == kTruncSecond      ? kMicrosPerSecond
                               : unit == kTruncMillisecond ? 1'000
                                                           : 1;
          out = FloorDiv(t, step) * step;
        }
        return Appended(b.Append(out), c);
      });
}

Result<Datum> Trunc(const LibraryCall& c) {
  const int unit = TruncUnitOf(c.StrLiteral(1), false);
  return MapRows<DB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, DB& b) -> Status {
        return Appended(b.Append(static_cast<int32_t>(TruncDays(r[0].Int(i), unit))), c);
      });
}

Result<Datum> DateFormat(const LibraryCall& c) {
  const std::string& pattern = c.StrLiteral(1);
  DELTA_RETURN_IF_ERROR(CheckFormatPattern(pattern));
  using SB = arrow::StringBuilder;
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        DELTA_ASSIGN_OR_RETURN(std::string s, FormatWithPattern(r[0].Int(i), pattern));
        return Appended(b.Append(s), c);
      });
}

constexpr std::string_view kDefaultPattern = "yyyy-MM-dd HH:mm:ss";

Result<Datum> UnixTimestamp(const LibraryCall& c) {
  if (c.args.empty()) {
    return Datum(
        std::make_shared<arrow::Int64Scalar>(FloorDiv(c.now_micros, kMicrosPerSecond)));
  }
  const bool parse = c.e.args[0]->type->kind() == TypeKind::kString;
  std::string pattern =
      c.args.size() > 1 ? c.StrLiteral(1) : std::string(kDefaultPattern);
  if (parse) DELTA_RETURN_IF_ERROR(CheckDatetimePattern(pattern));
  return MapRows<LB>(
      c, false, [&](const std::vector<ArgRows>& r, int64_t i, LB& b) -> Status {
        if (r[0].IsNull(i)) return Appended(b.AppendNull(), c);
        int64_t micros = 0;
        if (parse) {
          DELTA_ASSIGN_OR_RETURN(micros, ParseWithPattern(r[0].Str(i), pattern));
        } else {
          micros = r[0].Int(i);
        }
        return Appended(b.Append(FloorDiv(micros, kMicrosPerSecond)), c);
      });
}

constexpr int64_t kMaxSeconds = INT64_MAX / kMicrosPerSecond;

// Seconds since the epoch as microseconds; ARITHMETIC_OVERFLOW outside TIMESTAMP.
Result<int64_t> SecondsToMicros(const LibraryCall& c, int64_t s) {
  if (s > kMaxSeconds || s < -kMaxSeconds) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "ARITHMETIC_OVERFLOW: {}(): {} seconds is out of the TIMESTAMP range", c.e.name,
        s);
  }
  return s * kMicrosPerSecond;
}

Result<Datum> FromUnixtime(const LibraryCall& c) {
  std::string pattern =
      c.args.size() > 1 ? c.StrLiteral(1) : std::string(kDefaultPattern);
  DELTA_RETURN_IF_ERROR(CheckFormatPattern(pattern));
  using SB = arrow::StringBuilder;
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        DELTA_ASSIGN_OR_RETURN(int64_t micros, SecondsToMicros(c, r[0].Int(i)));
        DELTA_ASSIGN_OR_RETURN(std::string out, FormatWithPattern(micros, pattern));
        return Appended(b.Append(out), c);
      });
}

Result<Datum> MakeDate(const LibraryCall& c) {
  return MapRows<DB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, DB& b) -> Status {
        const int64_t y = r[0].Int(i), m = r[1].Int(i), d = r[2].Int(i);
        DELTA_RETURN_IF_ERROR(FieldRange(c, "year", y, -290307, 294247));
        DELTA_RETURN_IF_ERROR(FieldRange(c, "month", m, 1, 12));
        DELTA_RETURN_IF_ERROR(FieldRange(c, "day", d, 1, DaysInMonth(y, m)));
        return Appended(b.Append(static_cast<int32_t>(DaysFromCivil(y, m, d))), c);
      });
}

// make_timestamp(year, month, day, hour, min, sec [, zone]): sec holds microseconds
// in its fraction; 60 is the next minute when the fraction is zero (Spark). With a
// zone the fields are its wall time.
Result<Datum> MakeTimestamp(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(
      Datum local,
      MapRows<TB>(
          c, true, [&](const std::vector<ArgRows>& r, int64_t i, TB& b) -> Status {
            const int64_t y = r[0].Int(i), mo = r[1].Int(i), d = r[2].Int(i);
            const int64_t h = r[3].Int(i), mi = r[4].Int(i);
            const double sec = r[5].Dbl(i);
            DELTA_RETURN_IF_ERROR(FieldRange(c, "year", y, -290307, 294247));
            DELTA_RETURN_IF_ERROR(FieldRange(c, "month", mo, 1, 12));
            DELTA_RETURN_IF_ERROR(FieldRange(c, "day", d, 1, DaysInMonth(y, mo)));
            DELTA_RETURN_IF_ERROR(FieldRange(c, "hour", h, 0, 23));
            DELTA_RETURN_IF_ERROR(FieldRange(c, "minute", mi, 0, 59));
            const int64_t micros = std::isfinite(sec) ? std::llround(sec * 1e6) : -1;
            if (micros < 0 || micros > 60 * kMicrosPerSecond ||
                (micros >= 60 * kMicrosPerSecond && micros != 60 * kMicrosPerSecond)) {
              return MakeError(ErrorCode::kInvalidArgument,
                               "INVALID_FRACTION_OF_SECOND: {}(): seconds {} are out of "
                               "range [0, 60] (60 only without a fraction)",
                               c.e.name, sec);
            }
            const int64_t day = DaysFromCivil(y, mo, d);
            return Appended(b.Append(day * kMicrosPerDay +
                                     (h * 3600 + mi * 60) * kMicrosPerSecond + micros),
                            c);
          }));
  if (c.args.size() < 7) return local;
  DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(c, local, c.all_scalar() ? 1 : c.length));
  DELTA_ASSIGN_OR_RETURN(auto utc, LocalToUtc(c, a, c.StrLiteral(6)));
  return Shaped(c, utc);
}

Result<Datum> TimestampSeconds(const LibraryCall& c) {
  return MapRows<TB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, TB& b) -> Status {
        DELTA_ASSIGN_OR_RETURN(int64_t micros, SecondsToMicros(c, r[0].Int(i)));
        return Appended(b.Append(micros), c);
      });
}

Result<Datum> UnixSeconds(const LibraryCall& c) {
  return MapRows<LB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, LB& b) -> Status {
        return Appended(b.Append(FloorDiv(r[0].Int(i), kMicrosPerSecond)), c);
      });
}

Result<Datum> DaysAsInt(const LibraryCall& c) {
  return IntField(c, [](int64_t days) { return days; });
}

Result<Datum> DaysAsDate(const LibraryCall& c) {
  return MapRows<DB>(c, true,
                     [&](const std::vector<ArgRows>& r, int64_t i, DB& b) -> Status {
                       return Appended(b.Append(static_cast<int32_t>(r[0].Int(i))), c);
                     });
}

}  // namespace

std::vector<KernelEntry> DatetimeKernels() {
  return {
      {"hour",
       [](const LibraryCall& c) {
         return IntField(
             c, [](int64_t t) { return FloorMod(t, kMicrosPerDay) / 3'600'000'000; });
       }},
      {"minute",
       [](const LibraryCall& c) {
         return IntField(
             c, [](int64_t t) { return FloorMod(t, 3'600'000'000) / 60'000'000; });
       }},
      {"second",
       [](const LibraryCall& c) {
         return IntField(
             c, [](int64_t t) { return FloorMod(t, 60'000'000) / kMicrosPerSecond; });
       }},
      // dayofweek: 1 = Sunday ... 7 = Saturday; weekday: 0 = Monday ... 6 = Sunday.
      {"dayofweek",
       [](const LibraryCall& c) {
         return IntField(c, [](int64_t d) { return (WeekdayOf(d) + 1) % 7 + 1; });
       }},
      {"weekday", [](const LibraryCall& c) { return IntField(c, WeekdayOf); }},
      {"dayofyear",
       [](const LibraryCall& c) {
         return IntField(c, [](int64_t d) {
           return d - DaysFromCivil(CivilFromDays(d).year, 1, 1) + 1;
         });
       }},
      {"weekofyear", [](const LibraryCall& c) { return IntField(c, IsoWeek); }},
      {"quarter",
       [](const LibraryCall& c) {
         return IntField(c,
                         [](int64_t d) { return (CivilFromDays(d).month - 1) / 3 + 1; });
       }},
      {"datediff", DateDiff},
      {"months_between", MonthsBetweenKernel},
      {"add_months", AddMonthsKernel},
      {"last_day", LastDay},
      {"date_format", DateFormat},
      {"date_trunc", DateTrunc},
      {"trunc", Trunc},
      {"unix_timestamp", UnixTimestamp},
      {"from_unixtime", FromUnixtime},
      {"make_date", MakeDate},
      {"make_timestamp", MakeTimestamp},
      {"timestamp_seconds", TimestampSeconds},
      {"unix_seconds", UnixSeconds},
      {"unix_date", DaysAsInt},
      {"date_from_unix_date", DaysAsDate},
  };
}

}  // namespace deltaguard::internal
