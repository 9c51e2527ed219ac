// Math kernels of the function library, with Spark's edge cases: the logarithms are
// NULL for arguments at or below zero (Spark's UnaryLogExpression) where C would give
// -inf or NaN; sqrt of a negative number and the trigonometric functions outside their
// domain are NaN as in Java.

#include <cmath>
#include <optional>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

namespace deltaguard::internal {

using arrow::Datum;

namespace {

using FB = arrow::DoubleBuilder;

// A DOUBLE function of DOUBLE arguments; nullopt gives NULL.
template <typename Fn>
Result<Datum> Doubles(const LibraryCall& c, Fn&& fn) {
  return MapRows<FB>(c, true,
                     [&](const std::vector<ArgRows>& r, int64_t i, FB& b) -> Status {
                       std::optional<double> v;
                       if constexpr (std::is_invocable_v<Fn, double>) {
                         v = fn(r[0].Dbl(i));
                       } else {
                         v = fn(r[0].Dbl(i), r[1].Dbl(i));
                       }
                       return Appended(v ? b.Append(*v) : b.AppendNull(), c);
                     });
}

std::optional<double> Log(double x, double (*log)(double)) {
  if (!(x > 0)) return std::nullopt;
  return log(x);
}

Result<Datum> Constant(const LibraryCall&, double v) {
  return Datum(std::make_shared<arrow::DoubleScalar>(v));
}

}  // namespace

std::vector<KernelEntry> MathKernels() {
  using C = const LibraryCall&;
  return {
      {"power",
       [](C c) { return Doubles(c, [](double x, double y) { return std::pow(x, y); }); }},
      {"sqrt", [](C c) { return Doubles(c, [](double x) { return std::sqrt(x); }); }},
      // cbrt in extended precision, rounded once: the double cbrt is off by an ulp
      // for exact cubes (27 gives 3.0000000000000004; Java's gives 3).
      {"cbrt",
       [](C c) {
         return Doubles(c, [](double x) {
           return static_cast<double>(std::cbrt(static_cast<long double>(x)));
         });
       }},
      {"exp", [](C c) { return Doubles(c, [](double x) { return std::exp(x); }); }},
      {"ln", [](C c) { return Doubles(c, [](double x) { return Log(x, std::log); }); }},
      {"log10",
       [](C c) { return Doubles(c, [](double x) { return Log(x, std::log10); }); }},
      // Spark computes log2 as ln(x) / ln(2), which can differ from log2(x) in the last
      // bit.
      {"log2",
       [](C c) {
         return Doubles(c, [](double x) -> std::optional<double> {
           if (!(x > 0)) return std::nullopt;
           return std::log(x) / std::log(2.0);
         });
       }},
      {"log",
       [](C c) {
         if (c.args.size() == 1) {
           return Doubles(c, [](double x) { return Log(x, std::log); });
         }
         // log(base, x): NULL when either is at or below zero (Spark's Logarithm).
         return Doubles(c, [](double base, double x) -> std::optional<double> {
           if (!(base > 0) || !(x > 0)) return std::nullopt;
           return std::log(x) / std::log(base);
         });
       }},
      {"signum",
       [](C c) {
         return Doubles(c, [](double x) {
           return std::isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x;
         });
       }},
      // Java's Math.toDegrees/toRadians multiply by these constants.
      {"degrees",
       [](C c) { return Doubles(c, [](double x) { return x * 57.29577951308232; }); }},
      {"radians",
       [](C c) { return Doubles(c, [](double x) { return x * 0.017453292519943295; }); }},
      {"sin", [](C c) { return Doubles(c, [](double x) { return std::sin(x); }); }},
      {"cos", [](C c) { return Doubles(c, [](double x) { return std::cos(x); }); }},
      {"tan", [](C c) { return Doubles(c, [](double x) { return std::tan(x); }); }},
      {"asin", [](C c) { return Doubles(c, [](double x) { return std::asin(x); }); }},
      {"acos", [](C c) { return Doubles(c, [](double x) { return std::acos(x); }); }},
      {"atan", [](C c) { return Doubles(c, [](double x) { return std::atan(x); }); }},
      {"atan2",
       [](C c) {
         return Doubles(c, [](double y, double x) { return std::atan2(y, x); });
       }},
      {"pi", [](C c) { return Constant(c, M_PI); }},
      {"e", [](C c) { return Constant(c, M_E); }},
  };
}

}  // namespace deltaguard::internal
