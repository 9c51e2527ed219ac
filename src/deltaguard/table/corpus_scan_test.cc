// Corpus test: open, count and scan every Delta table of $DELTAGUARD_CORPORA/INDEX.json,
// and read every loose Parquet file, comparing with the expected row counts. Prints a
// summary of passes and failures with reasons.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/io/parquet/row_count.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/table.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

namespace stdfs = std::filesystem;

std::string CorporaDir() {
  const char* env = std::getenv("DELTAGUARD_CORPORA");
  return env == nullptr ? std::string() : std::string(env);
}

// Top-level names of an INDEX.json schema_latest string like
// "a:integer, s:struct<x: int, y: string>, m:map<…" (possibly truncated with "…").
std::vector<std::string> SchemaNames(const std::string& schema) {
  std::vector<std::string> names;
  bool truncated =
      schema.size() >= 3 && schema.compare(schema.size() - 3, 3, "\xE2\x80\xA6") == 0;
  int depth = 0;
  std::string current;
  auto flush = [&](bool complete) {
    size_t colon = std::string::npos;
    int d = 0;
    for (size_t i = 0; i < current.size(); ++i) {
      if (current[i] == '<') ++d;
      if (current[i] == '>') --d;
      if (current[i] == ':' && d == 0) {
        colon = i;
        break;
      }
    }
    if (complete && colon != std::string::npos) names.push_back(current.substr(0, colon));
    current.clear();
  };
  for (size_t i = 0; i < schema.size(); ++i) {
    char c = schema[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == ',' && depth == 0 && i + 1 < schema.size() && schema[i + 1] == ' ') {
      flush(true);
      ++i;
      continue;
    }
    current.push_back(c);
  }
  flush(!truncated);
  return names;
}

// Tables whose scan is expected to fail, with the reason (documented in the corpus
// README).
const std::map<std::string, std::string>& KnownScanFailures() {
  static const std::map<std::string, std::string> known = {
      {"delta/table-with-dv-special-char",
       "its 'p' DV path holds the unexpanded test placeholder "
       "{{FOLDER_WITH_SPECIAL_CHAR}}"},
  };
  return known;
}

// Files whose footer num_rows is wrong (documented in the corpus README).
const std::map<std::string, std::string>& KnownFooterMismatch() {
  static const std::map<std::string, std::string> known = {
      {"parquet-testing/data/repeated_no_annotation.parquet",
       "footer num_rows is 0 but the row group holds 6 rows"},
  };
  return known;
}

// Loose Parquet files that Arrow C++ cannot read although they are not in bad_data/.
const std::map<std::string, std::string>& KnownUnreadableParquet() {
  static const std::map<std::string, std::string> known = {
      {"parquet-testing/data/incorrect_map_schema.parquet",
       "MAP key not annotated REQUIRED (Arrow rejects the schema)"},
      {"parquet-testing/data/large_string_map.brotli.parquet",
       "map column > 2 GiB uncompressed (refused before decoding)"},
  };
  return known;
}

struct Summary {
  int passed = 0;
  std::vector<std::string> failures;
  std::map<std::string, int> notes;  // category -> count
};

class CorpusScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = CorporaDir();
    if (root_.empty() || !stdfs::exists(root_ + "/INDEX.json")) {
      GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or has no INDEX.json";
    }
    std::string text = testing::ReadTextFile(root_ + "/INDEX.json");
    index_.Parse(text.c_str());
    ASSERT_FALSE(index_.HasParseError());
    ASSERT_TRUE(index_.IsArray());
  }

  static std::string Str(const rapidjson::Value& v, const char* key) {
    auto it = v.FindMember(key);
    return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
  }

  std::string root_;
  rapidjson::Document index_;
};

// Scan all rows; returns the count or the error.
Result<int64_t> ScanRowCount(const SnapshotRef& snapshot,
                             std::vector<std::string>* names) {
  DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, {}));
  if (names != nullptr) *names = scan->output_schema()->field_names();
  int64_t rows = 0;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (batch == nullptr) break;
    rows += batch->num_rows();
  }
  return rows;
}

TEST_F(CorpusScanTest, EveryDeltaTable) {
  Summary s;
  for (const auto& e : index_.GetArray()) {
    if (!e.HasMember("latest_version")) continue;
    const std::string rel = Str(e, "path");
    const std::string path = root_ + "/" + rel;
    const bool data_absent = e["row_count_note"].IsString();
    const bool replay_errors = e["errors_when_replayed"].Size() > 0;
    // Null when neither files nor numRecords stats exist (nothing can count the rows).
    const std::optional<int64_t> expected_count =
        e["row_count_latest"].IsInt64()
            ? std::optional<int64_t>(e["row_count_latest"].GetInt64())
            : std::nullopt;
    const int64_t expected = expected_count.value_or(-1);
    auto fail = [&](const std::string& why) { s.failures.push_back(rel + ": " + why); };

    auto snapshot = OpenSnapshot(path);
    if (replay_errors) {
      if (snapshot)
        fail("opened although the log cannot be replayed");
      else
        ++s.passed, ++s.notes["refused (log cannot be replayed)"];
      continue;
    }
    if (!snapshot) {
      if (snapshot.error().code == ErrorCode::kUnsupportedFeature) {
        ++s.passed;  // a clean refusal of an unsupported reader feature
        ++s.notes["refused: " +
                  snapshot.error().message.substr(
                      snapshot.error().message.find("requires") == std::string::npos
                          ? 0
                          : snapshot.error().message.find("requires"))];
      } else {
        fail("OpenSnapshot: " + snapshot.error().ToString());
      }
      continue;
    }
    auto counted = CountRows(**snapshot);
    if (!expected_count) {
      if (counted)
        fail("CountRows succeeded without data files or stats");
      else
        ++s.passed, ++s.notes["log only without stats: CountRows failed cleanly"];
      continue;
    }
    if (!counted) {
      fail("CountRows: " + counted.error().ToString());
      continue;
    }
    if (counted->num_rows != expected) {
      fail(fmt::format("CountRows gave {} rows, expected {}", counted->num_rows,
                       expected));
      continue;
    }
    std::vector<std::string> names;
    auto scanned = ScanRowCount(*snapshot, &names);
    if (data_absent) {
      if (scanned && expected > 0)
        fail("scan succeeded although data files are absent");
      else
        ++s.passed, ++s.notes["log only: counted from stats, scan failed cleanly"];
      continue;
    }
    if (!scanned) {
      const Error& err = scanned.error();
      if (err.code == ErrorCode::kUnsupportedFeature &&
          err.message.find("variant") != std::string::npos) {
        ++s.passed, ++s.notes["variant: counted, scan refused"];
      } else if (KnownScanFailures().count(rel)) {
        ++s.passed, ++s.notes["known scan failure: " + KnownScanFailures().at(rel)];
      } else {
        fail("scan: " + err.ToString());
      }
      continue;
    }
    if (*scanned != expected) {
      fail(fmt::format("scan gave {} rows, expected {}", *scanned, expected));
      continue;
    }
    std::vector<std::string> want = SchemaNames(Str(e, "schema_latest"));
    std::vector<std::string> got(names.begin(),
                                 names.begin() + std::min(names.size(), want.size()));
    if (got != want) {
      fail(fmt::format("output columns [{}] differ from schema_latest [{}]",
                       fmt::join(names, ", "), fmt::join(want, ", ")));
      continue;
    }
    ++s.passed, ++s.notes["scanned: rows and columns match"];
  }
  std::printf("[ corpus ] Delta tables: %d passed, %zu failed\n", s.passed,
              s.failures.size());
  for (const auto& [note, n] : s.notes)
    std::printf("[ corpus ]   %3d  %s\n", n, note.c_str());
  for (const auto& f : s.failures) std::printf("[ corpus ] FAIL %s\n", f.c_str());
  EXPECT_THAT(s.failures, ::testing::IsEmpty());
  EXPECT_GT(s.passed, 100);
}

TEST_F(CorpusScanTest, EveryLooseParquetFile) {
  // Expected footer counts from INDEX.json, plus every other .parquet under
  // parquet-testing.
  std::map<std::string, std::optional<int64_t>> files;
  for (const auto& e : index_.GetArray()) {
    if (e.HasMember("latest_version")) continue;
    std::string rel = Str(e, "path");
    if (rel.find(".parquet") == std::string::npos) continue;
    auto it = e.FindMember("num_rows_footer");
    files[rel] = it != e.MemberEnd() && it->value.IsInt64()
                     ? std::optional<int64_t>(it->value.GetInt64())
                     : std::nullopt;
  }
  for (const auto& entry :
       stdfs::recursive_directory_iterator(root_ + "/parquet-testing")) {
    std::string rel = stdfs::relative(entry.path(), root_).string();
    if (entry.is_regular_file() && entry.path().extension() == ".parquet" &&
        !files.count(rel)) {
      files[rel] = std::nullopt;
    }
  }
  Summary s;
  auto fs = MakeLocalFileSystem();
  for (const auto& [rel, footer] : files) {
    std::string path = root_ + "/" + rel;
    bool must_fail = rel.find(".encrypted") != std::string::npos;
    bool bad_data = rel.find("bad_data/") != std::string::npos;
    auto rows = ScanParquetFile(fs, path);
    auto fail = [&](const std::string& why) { s.failures.push_back(rel + ": " + why); };
    if (must_fail) {
      if (rows)
        fail("encrypted file read without keys");
      else
        ++s.passed, ++s.notes["encrypted: refused"];
      continue;
    }
    if (bad_data) {
      ++s.passed;
      ++s.notes[rows ? "bad_data: read without error (Arrow copes)"
                     : "bad_data: clean error"];
      if (rows)
        std::printf("[ corpus ] note: %s read %lld rows\n", rel.c_str(),
                    static_cast<long long>(*rows));
      continue;
    }
    if (!rows) {
      if (KnownUnreadableParquet().count(rel)) {
        ++s.passed, ++s.notes["known Arrow limitation: clean error"];
        if (rel.find("large_string_map") != std::string::npos) {
          // Refused by the 2 GiB column-chunk guard, before anything is decoded.
          EXPECT_EQ(rows.error().code, ErrorCode::kUnsupportedFeature)
              << rows.error().message;
        }
      } else {
        fail(rows.error().ToString());
      }
      continue;
    }
    std::optional<int64_t> expected = footer;
    if (!expected) {
      auto f = ReadParquetFooterRowCount(fs, path);
      if (f) expected = *f;
    }
    if (KnownFooterMismatch().count(rel)) {
      ++s.passed, ++s.notes["known wrong footer count: " + KnownFooterMismatch().at(rel)];
      continue;
    }
    if (expected && *expected != *rows) {
      fail(fmt::format("read {} rows, footer says {}", *rows, *expected));
      continue;
    }
    ++s.passed, ++s.notes["read: row count matches footer"];
  }
  std::printf("[ corpus ] Parquet files: %d passed, %zu failed\n", s.passed,
              s.failures.size());
  for (const auto& [note, n] : s.notes)
    std::printf("[ corpus ]   %3d  %s\n", n, note.c_str());
  for (const auto& f : s.failures) std::printf("[ corpus ] FAIL %s\n", f.c_str());
  EXPECT_THAT(s.failures, ::testing::IsEmpty());
}

}  // namespace
}  // namespace deltaguard
