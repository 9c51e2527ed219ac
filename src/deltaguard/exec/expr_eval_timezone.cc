// Time zone kernels of the function library: from_utc_timestamp, to_utc_timestamp and
// the zone argument of make_timestamp, on Arrow's time zone database (the system's
// tzdata). Zones are named as Spark accepts them: region IDs ('Europe/Paris'),
// offsets ('+08:00', 'GMT+8', 'UTC-5:30') and Java's three-letter short IDs ('PST').
// A local time that does not exist (a DST gap) moves forward by the gap, and one that
// exists twice (an overlap) takes the earlier instant, as Java's ZonedDateTime, which
// Spark uses.

#include <arrow/compute/api.h>

#include <cctype>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

using arrow::Datum;
namespace cp = arrow::compute;

namespace {

// java.time.ZoneId.SHORT_IDS, which Spark's zone lookup consults.
constexpr std::pair<std::string_view, std::string_view> kShortIds[] = {
    {"ACT", "Australia/Darwin"},
    {"AET", "Australia/Sydney"},
    {"AGT", "America/Argentina/Buenos_Aires"},
    {"ART", "Africa/Cairo"},
    {"AST", "America/Anchorage"},
    {"BET", "America/Sao_Paulo"},
    {"BST", "Asia/Dhaka"},
    {"CAT", "Africa/Harare"},
    {"CNT", "America/St_Johns"},
    {"CST", "America/Chicago"},
    {"CTT", "Asia/Shanghai"},
    {"EAT", "Africa/Addis_Ababa"},
    {"ECT", "Europe/Paris"},
    {"IET", "America/Indiana/Indianapolis"},
    {"IST", "Asia/Kolkata"},
    {"JST", "Asia/Tokyo"},
    {"MIT", "Pacific/Apia"},
    {"NET", "Asia/Yerevan"},
    {"NST", "Pacific/Auckland"},
    {"PLT", "Asia/Karachi"},
    {"PNT", "America/Phoenix"},
    {"PRT", "America/Puerto_Rico"},
    {"PST", "America/Los_Angeles"},
    {"SST", "Pacific/Guadalcanal"},
    {"VST", "Asia/Ho_Chi_Minh"},
    {"EST", "-05:00"},
    {"MST", "-07:00"},
    {"HST", "-10:00"},
};

// An offset zone ('+8', '-05:30', 'GMT+8', 'UTC+08:00', 'UT-1') as '+HH:MM'; empty
// when `zone` is not one.
std::string OffsetZone(std::string_view zone) {
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (zone.size() > prefix.size() && zone.substr(0, prefix.size()) == prefix &&
        (zone[prefix.size()] == '+' || zone[prefix.size()] == '-')) {
      zone.remove_prefix(prefix.size());
      break;
    }
  }
  if (zone.empty() || (zone[0] != '+' && zone[0] != '-')) return "";
  const char sign = zone[0];
  std::string_view rest = zone.substr(1);
  int hours = 0, minutes = 0;
  size_t k = 0;
  while (k < rest.size() && k < 2 && std::isdigit(static_cast<unsigned char>(rest[k]))) {
    hours = hours * 10 + (rest[k++] - '0');
  }
  if (k == 0) return "";
  rest.remove_prefix(k);
  if (!rest.empty()) {
    if (rest[0] == ':') rest.remove_prefix(1);
    if (rest.size() != 2 || !std::isdigit(static_cast<unsigned char>(rest[0])) ||
        !std::isdigit(static_cast<unsigned char>(rest[1]))) {
      return "";
    }
    minutes = (rest[0] - '0') * 10 + (rest[1] - '0');
  }
  if (hours > 18 || minutes > 59) return "";
  return fmt::format("{}{:02d}:{:02d}", sign, hours, minutes);
}

Result<std::string> ArrowZone(const LibraryCall& c, std::string_view zone) {
  if (EqualsIgnoreCase(zone, "UTC") || EqualsIgnoreCase(zone, "GMT") ||
      EqualsIgnoreCase(zone, "Z") || EqualsIgnoreCase(zone, "UT")) {
    return std::string("UTC");
  }
  for (const auto& [id, region] : kShortIds) {
    if (zone == id) return std::string(region);
  }
  std::string offset = OffsetZone(zone);
  if (!offset.empty()) return offset;
  // A region: checked against the database by converting one value.
  auto probe = arrow::MakeArrayFromScalar(
      arrow::TimestampScalar(0,
                             arrow::timestamp(arrow::TimeUnit::MICRO, std::string(zone))),
      1);
  if (probe.ok() && cp::CallFunction("local_timestamp", {*probe}).ok()) {
    return std::string(zone);
  }
  return MakeError(
      ErrorCode::kInvalidArgument,
      "INVALID_TIMEZONE: function {}(): unknown time zone '{}'; use a region "
      "such as 'Europe/Paris' or an offset such as '+08:00'",
      c.e.name, zone);
}

Result<std::shared_ptr<arrow::Array>> AsArray(
    const LibraryCall& c, const Datum& d, const std::shared_ptr<arrow::DataType>& as) {
  DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(c, d, c.all_scalar() ? 1 : c.length));
  auto data = a->data()->Copy();
  data->type = as;  // the same microseconds read in another zone
  return arrow::MakeArray(data);
}

std::shared_ptr<arrow::DataType> Micros(const std::string& zone) {
  return arrow::timestamp(arrow::TimeUnit::MICRO, zone);
}

// from_utc_timestamp(ts, zone): the wall time in `zone` of the instant `ts` (read as
// UTC), as a timestamp whose UTC fields show that wall time.
Result<Datum> FromUtc(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(std::string zone, ArrowZone(c, c.StrLiteral(1)));
  DELTA_ASSIGN_OR_RETURN(auto in, AsArray(c, c.args[0], Micros(zone)));
  DELTA_ASSIGN_OR_RETURN(Datum local, CallArrow(c, "local_timestamp", {in}));
  DELTA_ASSIGN_OR_RETURN(auto out, AsArray(c, local, Micros("UTC")));
  return Shaped(c, out);
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> LocalToUtc(
    const LibraryCall& c, const std::shared_ptr<arrow::Array>& local,
    std::string_view zone_name) {
  DELTA_ASSIGN_OR_RETURN(std::string zone, ArrowZone(c, zone_name));
  auto data = local->data()->Copy();
  data->type = Micros("");
  auto naive = arrow::MakeArray(data);
  cp::AssumeTimezoneOptions later(zone, cp::AssumeTimezoneOptions::AMBIGUOUS_EARLIEST,
                                  cp::AssumeTimezoneOptions::NONEXISTENT_LATEST);
  DELTA_ASSIGN_OR_RETURN(Datum utc, CallArrow(c, "assume_timezone", {naive}, &later));
  auto result = utc.make_array();
  // A local time in a gap: Arrow gives the gap's end; Java moves the time forward by
  // the gap, i.e. reads it with the offset in force before the gap.
  cp::AssumeTimezoneOptions earlier(zone, cp::AssumeTimezoneOptions::AMBIGUOUS_EARLIEST,
                                    cp::AssumeTimezoneOptions::NONEXISTENT_EARLIEST);
  DELTA_ASSIGN_OR_RETURN(Datum before,
                         CallArrow(c, "assume_timezone", {naive}, &earlier));
  auto before_gap = before.make_array();
  DELTA_ASSIGN_OR_RETURN(Datum before_local,
                         CallArrow(c, "local_timestamp", {before_gap}));
  const auto& l = static_cast<const arrow::TimestampArray&>(*naive);
  const auto& r = static_cast<const arrow::TimestampArray&>(*result);
  const auto& e = static_cast<const arrow::TimestampArray&>(*before_gap);
  const auto before_local_array = before_local.make_array();  // held: `el` reads it
  const auto& el = static_cast<const arrow::TimestampArray&>(*before_local_array);
  std::vector<int64_t> fixed;
  for (int64_t i = 0; i < l.length(); ++i) {
    if (l.IsNull(i) || r.Value(i) != e.Value(i) + 1 || r.Value(i) == e.Value(i)) {
      continue;  // not in a gap (outside one both options agree)
    }
    if (fixed.empty()) fixed.assign(r.raw_values(), r.raw_values() + r.length());
    const int64_t offset_before = el.Value(i) - e.Value(i);
    fixed[i] = l.Value(i) - offset_before;
  }
  if (fixed.empty()) {
    auto out = result->data()->Copy();
    out->type = Micros("UTC");
    return arrow::MakeArray(out);
  }
  arrow::TimestampBuilder b(Micros("UTC"), arrow::default_memory_pool());
  DELTA_RETURN_IF_ERROR(Appended(b.Reserve(l.length()), c));
  for (int64_t i = 0; i < l.length(); ++i) {
    if (l.IsNull(i)) {
      b.UnsafeAppendNull();
    } else {
      b.UnsafeAppend(fixed[i]);
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Appended(b.Finish(&out), c));
  return out;
}

namespace {

// to_utc_timestamp(ts, zone): the instant whose wall time in `zone` is the UTC fields
// of `ts`.
Result<Datum> ToUtc(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto in, ArgArray(c, c.args[0], c.all_scalar() ? 1 : c.length));
  DELTA_ASSIGN_OR_RETURN(auto out, LocalToUtc(c, in, c.StrLiteral(1)));
  return Shaped(c, out);
}

}  // namespace

std::vector<KernelEntry> TimezoneKernels() {
  return {{"from_utc_timestamp", FromUtc}, {"to_utc_timestamp", ToUtc}};
}

}  // namespace deltaguard::internal
