// Drift reports (report.h): the fail bars and each rendering.

#include "deltaguard/drift/report.h"

#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"

namespace deltaguard {
namespace {

DriftReport Report(std::string_view before, std::string_view after, FailBar bar,
                   CompatMode mode = CompatMode::kNone) {
  DriftReport r;
  r.before_label = "t@v1";
  r.after_label = "input";
  r.before_schema = *ParseDdlSchema(before);
  r.after_schema = *ParseDdlSchema(after);
  DriftSide b, a;
  b.schema = r.before_schema;
  a.schema = r.after_schema;
  r.changes = ClassifyDrift(b, a);
  r.verdict = JudgeChanges(r.changes, mode);
  r.fail_on = bar;
  return r;
}

TEST(DriftReportTest, FailBars) {
  // A nullable column added: low risk, compatible everywhere.
  EXPECT_FALSE(ReportFails(Report("a INT", "a INT, b INT", FailBar::kHigh)));
  EXPECT_TRUE(ReportFails(Report("a INT", "a INT, b INT", FailBar::kAny)));
  // Widening: low risk, breaks FORWARD only.
  EXPECT_FALSE(ReportFails(Report("a INT", "a BIGINT", FailBar::kHigh)));
  EXPECT_FALSE(ReportFails(
      Report("a INT", "a BIGINT", FailBar::kBreaking, CompatMode::kBackward)));
  EXPECT_TRUE(
      ReportFails(Report("a INT", "a BIGINT", FailBar::kBreaking, CompatMode::kForward)));
  // A removal: high risk, BACKWARD compatible.
  EXPECT_TRUE(ReportFails(Report("a INT, b INT", "a INT", FailBar::kHigh)));
  EXPECT_FALSE(ReportFails(
      Report("a INT, b INT", "a INT", FailBar::kBreaking, CompatMode::kBackward)));
  EXPECT_TRUE(ParseFailBar("HIGH"));
  EXPECT_FALSE(ParseFailBar("medium"));
}

TEST(DriftReportTest, Json) {
  DriftReport r = Report("a INT", "a BIGINT", FailBar::kBreaking, CompatMode::kForward);
  std::string json = DriftReportJson(r);
  EXPECT_NE(json.find(R"("changes":[{"class":"TYPE_WIDENED","path":"a","old_path":"",)"
                      R"("before":"integer","after":"long","risk":"low",)"
                      R"("backward":"ok","forward":"break",)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("verdict":{"mode":"FORWARD","compatible":false,"breaking":)"
                      R"([{"change":0,"direction":"FORWARD",)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("fail_on":"breaking","fails":true,"inferred":[]})"),
            std::string::npos);
  EXPECT_NE(DriftReportJson(Report("a INT", "a INT", FailBar::kHigh))
                .find(R"("changes":[],"verdict":null)"),
            std::string::npos);
}

TEST(DriftReportTest, TextMarkdownJunitGithub) {
  DriftReport r = Report("a INT, b STRING", "a INT, c STRING", FailBar::kHigh);
  std::string text = DriftReportText(r);
  EXPECT_NE(text.find("FAIL COLUMN_REMOVED b: string -> (none) (risk high)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     COLUMN_ADDED_NULLABLE c: (none) -> string (risk low)"),
            std::string::npos);
  EXPECT_NE(text.find("way forward: mergeSchema"), std::string::npos);
  std::string md = DriftReportMarkdown(r);
  EXPECT_NE(md.find("| FAIL | `COLUMN_REMOVED` | b | string |  | high |"),
            std::string::npos)
      << md;
  std::string junit = DriftReportJunit(r);
  EXPECT_NE(junit.find("tests=\"2\" failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(
      junit.find("<testcase classname=\"drift.COLUMN_ADDED_NULLABLE\" name=\"c\"/>"),
      std::string::npos);
  std::string gh = DriftReportGithub(r);
  EXPECT_NE(gh.find("::warning title=COLUMN_ADDED_NULLABLE::"), std::string::npos) << gh;
  EXPECT_NE(gh.find("::error title=COLUMN_REMOVED::"), std::string::npos);
  EXPECT_NE(
      DriftReportJunit(Report("a INT", "a INT", FailBar::kAny)).find("no schema changes"),
      std::string::npos);
}

}  // namespace
}  // namespace deltaguard
