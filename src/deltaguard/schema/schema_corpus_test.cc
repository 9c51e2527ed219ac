// Round trip of every metaData.schemaString in the real Delta tables under
// $DELTAGUARD_CORPORA: parse, re-serialize, expect the identical bytes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "deltaguard/schema/schema_json.h"

namespace deltaguard {
namespace {

namespace stdfs = std::filesystem;

struct CorpusSchema {
  std::string where;  // "<commit file>:<line>"
  std::string schema_string;
};

// Every schemaString of every metaData action in every `_delta_log/*.json` commit.
std::vector<CorpusSchema> CollectSchemas(const stdfs::path& root, int* tables) {
  std::vector<CorpusSchema> out;
  std::vector<stdfs::path> logs;
  for (const auto& entry : stdfs::recursive_directory_iterator(root)) {
    if (entry.is_directory() && entry.path().filename() == "_delta_log") {
      logs.push_back(entry.path());
    }
  }
  std::sort(logs.begin(), logs.end());
  *tables = static_cast<int>(logs.size());
  for (const stdfs::path& log : logs) {
    std::vector<stdfs::path> commits;
    for (const auto& entry : stdfs::directory_iterator(log)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json") {
        commits.push_back(entry.path());
      }
    }
    std::sort(commits.begin(), commits.end());
    for (const stdfs::path& commit : commits) {
      std::ifstream in(commit);
      std::string line;
      for (int line_no = 1; std::getline(in, line); ++line_no) {
        rapidjson::Document doc;
        doc.Parse(line.data(), line.size());
        if (doc.HasParseError() || !doc.IsObject()) continue;  // not an action line
        auto md = doc.FindMember("metaData");
        if (md == doc.MemberEnd() || !md->value.IsObject()) continue;
        auto schema = md->value.FindMember("schemaString");
        if (schema == md->value.MemberEnd() || !schema->value.IsString()) continue;
        out.push_back(
            {fmt::format("{}:{}", stdfs::relative(commit, root).string(), line_no),
             std::string(schema->value.GetString(), schema->value.GetStringLength())});
      }
    }
  }
  return out;
}

TEST(SchemaCorpusTest, EverySchemaStringRoundTripsByteForByte) {
  const char* env = std::getenv("DELTAGUARD_CORPORA");
  if (env == nullptr || !stdfs::is_directory(env)) {
    GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  }
  int tables = 0;
  std::vector<CorpusSchema> schemas = CollectSchemas(env, &tables);
  ASSERT_GT(tables, 100) << "expected the shared corpora (133 tables) at " << env;
  ASSERT_GT(schemas.size(), 100u);

  int byte_equal = 0;
  int semantic_only = 0;
  int unsupported = 0;
  std::ostringstream report;
  for (const CorpusSchema& s : schemas) {
    auto parsed = ParseSchemaJson(s.schema_string);
    if (!parsed) {
      // Only the geospatial types (a reader feature we do not implement) may fail, and
      // then with kUnsupportedFeature rather than a parse error.
      EXPECT_EQ(parsed.error().code, ErrorCode::kUnsupportedFeature)
          << s.where << ": " << parsed.error().ToString();
      EXPECT_THAT(parsed.error().message, ::testing::HasSubstr("geo")) << s.where;
      ++unsupported;
      report << "  unsupported: " << s.where << ": " << parsed.error().ToString() << "\n";
      continue;
    }
    std::string out = SchemaToJson(**parsed);
    auto reparsed = ParseSchemaJson(out);
    ASSERT_TRUE(reparsed) << s.where << ": " << reparsed.error().ToString();
    EXPECT_EQ(**reparsed, **parsed) << s.where;
    if (out == s.schema_string) {
      ++byte_equal;
    } else {
      ++semantic_only;
      report << "  semantic only: " << s.where << "\n";
    }
  }
  std::cout << "schema corpus: " << tables << " tables, " << schemas.size()
            << " schemaStrings, " << byte_equal << " byte-for-byte, " << semantic_only
            << " semantically equal only, " << unsupported << " unsupported\n"
            << report.str();
  RecordProperty("byte_equal", byte_equal);
  // Every writer in the corpora (Spark, Databricks, delta-rs, kernel test engines) emits
  // Spark's compact key order, so every parseable schema must come back identical.
  EXPECT_EQ(semantic_only, 0) << report.str();
  EXPECT_LE(unsupported, 2) << report.str();
}

}  // namespace
}  // namespace deltaguard
