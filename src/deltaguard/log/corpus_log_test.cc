// Log-level checks over the shared corpora ($DELTAGUARD_CORPORA/INDEX.json):
//  - every table whose log is JSON-only replays to the expected latest version and number
//    of live files (or is refused for an unsupported reader feature);
//  - for every table, listing + checkpoint selection agrees with INDEX.json (checkpoints
//    need Parquet, which this module does not read; io/parquet tests cover them);
//  - tables with errors_when_replayed fail cleanly.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "deltaguard/log/log_segment.h"
#include "deltaguard/log/log_test_util.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

struct CorpusTable {
  std::string path;
  int64_t latest_version = -1;
  int64_t active_files = -1;
  bool json_only = false;
  int64_t newest_checkpoint = -1;
  bool expect_error = false;
  bool readable = true;  // by the reader-feature rules in the brief
};

// Independent of protocol/: the reader features deltaguard is specified to support.
bool ReadableProtocol(const rapidjson::Value& p) {
  if (!p.IsObject()) return true;
  int r = p["minReaderVersion"].GetInt();
  if (r > 3) return false;
  if (r < 3) return true;
  static const std::set<std::string> kSupported = {"columnmapping",
                                                   "deletionvectors",
                                                   "timestampntz",
                                                   "typewidening",
                                                   "typewidening-preview",
                                                   "v2checkpoint",
                                                   "vacuumprotocolcheck",
                                                   "varianttype",
                                                   "varianttype-preview",
                                                   "variantshredding",
                                                   "variantshredding-preview"};
  for (const auto& f : p["readerFeatures"].GetArray()) {
    if (!kSupported.count(AsciiToLower(f.GetString()))) return false;
  }
  return true;
}

class CorpusLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("DELTAGUARD_CORPORA");
    if (dir == nullptr || !std::ifstream(std::string(dir) + "/INDEX.json")) {
      GTEST_SKIP() << "DELTAGUARD_CORPORA not set or has no INDEX.json";
    }
    root_ = dir;
    std::ifstream in(root_ + "/INDEX.json");
    std::stringstream ss;
    ss << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(ss.str().c_str());
    ASSERT_FALSE(doc.HasParseError());
    for (const auto& t : doc.GetArray()) {
      if (!t.HasMember("latest_version")) continue;  // parquet-testing files
      CorpusTable ct;
      ct.path = t["path"].GetString();
      ct.latest_version = t["latest_version"].GetInt64();
      if (t["active_files"].IsInt64()) ct.active_files = t["active_files"].GetInt64();
      ct.json_only = t["checkpoints"].IsObject() && t["checkpoints"].MemberCount() == 0;
      for (const auto& cp : t["checkpoints"].GetObject()) {
        int64_t v = std::stoll(cp.name.GetString());
        if (v <= ct.latest_version)
          ct.newest_checkpoint = std::max(ct.newest_checkpoint, v);
      }
      ct.expect_error = t["errors_when_replayed"].Size() > 0;
      ct.readable = ReadableProtocol(t["protocol"]);
      tables_.push_back(ct);
    }
    ASSERT_GT(tables_.size(), 100u);
  }

  std::string root_;
  std::vector<CorpusTable> tables_;
};

TEST_F(CorpusLogTest, JsonOnlyTablesReplay) {
  testing::FakeCheckpointReader reader;  // never used: these logs have no checkpoint
  auto fs = MakeLocalFileSystem();
  int loaded = 0, refused = 0;
  for (const CorpusTable& t : tables_) {
    if (!t.json_only) continue;
    SCOPED_TRACE(t.path);
    auto snap = Snapshot::Load(fs, root_ + "/" + t.path, reader);
    if (!t.readable) {
      ASSERT_FALSE(snap.has_value());
      EXPECT_EQ(snap.error().code, ErrorCode::kUnsupportedFeature)
          << snap.error().message;
      ++refused;
      continue;
    }
    ASSERT_TRUE(snap.has_value()) << snap.error().ToString();
    EXPECT_EQ((*snap)->version(), t.latest_version);
    EXPECT_EQ(static_cast<int64_t>((*snap)->files().size()), t.active_files);
    EXPECT_NE((*snap)->schema(), nullptr);
    ++loaded;
  }
  EXPECT_GE(loaded, 70);
  EXPECT_GE(refused, 4);  // catalogManaged, geospatial, reader v5 "blahabl", ...
  EXPECT_TRUE(reader.reads().empty());
}

TEST_F(CorpusLogTest, SegmentsMatchIndex) {
  auto fs = MakeLocalFileSystem();
  int checked = 0;
  for (const CorpusTable& t : tables_) {
    if (t.expect_error) continue;
    SCOPED_TRACE(t.path);
    auto seg = BuildLogSegment(*fs, root_ + "/" + t.path, std::nullopt);
    ASSERT_TRUE(seg.has_value()) << seg.error().ToString();
    EXPECT_EQ(seg->version, t.latest_version);
    if (t.newest_checkpoint >= 0) {
      ASSERT_FALSE(seg->checkpoints.empty());
      EXPECT_EQ(seg->checkpoints.front().version, t.newest_checkpoint);
    } else {
      EXPECT_TRUE(seg->checkpoints.empty());
      EXPECT_TRUE(seg->can_start_from_zero);
    }
    ++checked;
  }
  EXPECT_GE(checked, 120);
}

TEST_F(CorpusLogTest, ErrorTablesFailCleanly) {
  testing::FakeCheckpointReader reader;  // cannot read real Parquet: reports an error
  auto fs = MakeLocalFileSystem();
  int checked = 0;
  for (const CorpusTable& t : tables_) {
    if (!t.expect_error) continue;
    SCOPED_TRACE(t.path);
    auto snap = Snapshot::Load(fs, root_ + "/" + t.path, reader);
    ASSERT_FALSE(snap.has_value());
    EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog) << snap.error().message;
    EXPECT_THAT(snap.error().message, ::testing::HasSubstr("missing commit version"));
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace deltaguard
