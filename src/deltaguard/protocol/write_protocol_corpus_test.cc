// Protocol decisions checked against real tables under $DELTAGUARD_CORPORA: the protocol
// Spark wrote at creation / upgrade versus what ProtocolForNewTable / ProtocolUpgradeFor
// compute from the same metadata, and column-mapped schemas against
// ValidateColumnMapping.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

namespace stdfs = std::filesystem;

struct Commit {
  std::optional<Protocol> protocol;
  bool has_metadata = false;
  StringMap configuration;
  SchemaRef schema;
};

std::optional<std::vector<std::string>> StringList(const rapidjson::Value& obj,
                                                   const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsArray()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& v : it->value.GetArray()) {
    if (v.IsString()) out.emplace_back(v.GetString());
  }
  return out;
}

std::optional<stdfs::path> CorpusRoot() {
  const char* env = std::getenv("DELTAGUARD_CORPORA");
  if (env == nullptr || !stdfs::is_directory(env)) return std::nullopt;
  return stdfs::path(env);
}

Commit ReadCommit(const stdfs::path& table, int64_t version) {
  Commit out;
  stdfs::path file = table / "_delta_log" / fmt::format("{:020d}.json", version);
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << file;
  std::string line;
  while (std::getline(in, line)) {
    rapidjson::Document doc;
    doc.Parse(line.data(), line.size());
    if (doc.HasParseError() || !doc.IsObject()) continue;
    if (auto p = doc.FindMember("protocol");
        p != doc.MemberEnd() && p->value.IsObject()) {
      if (!p->value.HasMember("minReaderVersion") ||
          !p->value.HasMember("minWriterVersion") ||
          !p->value["minReaderVersion"].IsInt() ||
          !p->value["minWriterVersion"].IsInt()) {
        continue;  // malformed on purpose in some corpora
      }
      Protocol proto;
      proto.min_reader_version = p->value["minReaderVersion"].GetInt();
      proto.min_writer_version = p->value["minWriterVersion"].GetInt();
      proto.reader_features = StringList(p->value, "readerFeatures");
      proto.writer_features = StringList(p->value, "writerFeatures");
      out.protocol = proto;
    }
    if (auto m = doc.FindMember("metaData");
        m != doc.MemberEnd() && m->value.IsObject()) {
      out.has_metadata = true;
      if (auto c = m->value.FindMember("configuration");
          c != m->value.MemberEnd() && c->value.IsObject()) {
        for (const auto& kv : c->value.GetObject()) {
          if (kv.value.IsString()) {
            out.configuration.emplace_back(kv.name.GetString(), kv.value.GetString());
          }
        }
      }
      auto ss = m->value.FindMember("schemaString");
      if (ss == m->value.MemberEnd() || !ss->value.IsString()) continue;
      auto schema = ParseSchemaJson(ss->value.GetString());
      // Unparseable schemas (geospatial types) leave `schema` null; callers that need
      // one assert on it.
      if (schema) out.schema = *schema;
    }
  }
  return out;
}

// The features a protocol supports (legacy-implied or listed), lower-cased.
std::set<std::string> FeatureSet(const Protocol& p) {
  std::set<std::string> out;
  for (const std::string& f : EffectiveFeatures(p)) out.insert(AsciiToLower(f));
  return out;
}

std::string Show(const Protocol& p) {
  std::string out = fmt::format("({},{}", p.min_reader_version, p.min_writer_version);
  if (p.reader_features)
    out += fmt::format(",r=[{}]", fmt::join(*p.reader_features, ","));
  if (p.writer_features)
    out += fmt::format(",w=[{}]", fmt::join(*p.writer_features, ","));
  return out + ")";
}

enum class Expect { kExact, kSubset };

struct NewTableCase {
  const char* table;
  Expect expect;
  const char* why;
};

TEST(WriteProtocolCorpusTest, NewTablesMatchWhatSparkCreated) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  const NewTableCase cases[] = {
      {"delta-rs/cdc_ict_table", Expect::kExact, "Spark 4.1 / Delta 4.3: CDF + ICT"},
      {"delta-kernel-rs/cdf-table-simple", Expect::kExact, "Delta 3.3: CDF ⇒ (1,7)"},
      {"delta-kernel-rs/void-column", Expect::kExact, "Delta 4.1 default (1,2)"},
      {"duckdb-delta/variant_basic", Expect::kExact, "Delta 4.1: variant"},
      {"delta-kernel-rs/v2-checkpoints-json-with-sidecars", Expect::kExact, "v2 policy"},
      {"delta/spark-shredded-variant-preview-delta", Expect::kExact, "shredding"},
      {"delta-rs/checkpoint-v2-table", Expect::kExact, "DBR 17: identity + v2"},
      {"delta/variant-stats-no-checkpoint", Expect::kExact, "DBR: variant"},
      {"delta-kernel-rs/v1-single-part-struct-stats-only", Expect::kExact, "DBR: DVs"},
      {"delta/kernel-pagination-all-jsons", Expect::kExact, "Delta 3.4 default"},
      {"delta/catalog-owned-preview", Expect::kSubset,
       "catalogManaged came from a session setting, not the metadata"},
      {"delta/variant-stats-with-struct-no-checkpoint", Expect::kExact,
       "DBR: DVs+variant"},
  };
  for (const NewTableCase& c : cases) {
    SCOPED_TRACE(fmt::format("{} ({})", c.table, c.why));
    stdfs::path table = *root / c.table;
    if (!stdfs::exists(table)) {
      ADD_FAILURE() << "missing corpus table";
      continue;
    }
    Commit v0 = ReadCommit(table, 0);
    ASSERT_TRUE(v0.protocol && v0.schema);
    auto got = ProtocolForNewTable(v0.configuration, *v0.schema);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    std::set<std::string> ours = FeatureSet(got->protocol);
    std::set<std::string> theirs = FeatureSet(*v0.protocol);
    if (c.expect == Expect::kExact) {
      EXPECT_EQ(ours, theirs) << "ours " << Show(got->protocol) << " theirs "
                              << Show(*v0.protocol);
      EXPECT_EQ(got->protocol.min_reader_version, v0.protocol->min_reader_version);
      EXPECT_EQ(got->protocol.min_writer_version, v0.protocol->min_writer_version);
    } else {
      EXPECT_TRUE(std::includes(theirs.begin(), theirs.end(), ours.begin(), ours.end()))
          << "ours " << Show(got->protocol) << " theirs " << Show(*v0.protocol);
    }
    EXPECT_EQ(got->configuration, v0.configuration);  // nothing to strip in stored config
  }
}

// Tables created with the protocol defaults switched off (writer 7 from the session):
// their feature set is ours minus the default appendOnly + invariants.
TEST(WriteProtocolCorpusTest, TablesCreatedWithoutProtocolDefaults) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  for (const char* name :
       {"delta-kernel-rs/stats-writing-all-types", "delta-kernel-rs/partition_cm/name",
        "delta-kernel-rs/partition_cm/id",
        "delta-kernel-rs/parquet_row_group_skipping"}) {
    SCOPED_TRACE(name);
    Commit v0 = ReadCommit(*root / name, 0);
    ASSERT_TRUE(v0.protocol && v0.schema);
    StringMap config = v0.configuration;
    config.emplace_back("delta.ignoreProtocolDefaults", "true");
    auto got = ProtocolForNewTable(config, *v0.schema);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(FeatureSet(got->protocol), FeatureSet(*v0.protocol))
        << "ours " << Show(got->protocol) << " theirs " << Show(*v0.protocol);
  }
}

struct UpgradeCase {
  const char* table;
  int64_t before;              // version holding the protocol in force before the change
  int64_t after;               // version of the upgrade commit
  StringMap extra_properties;  // protocol properties Spark stripped from the config
};

TEST(WriteProtocolCorpusTest, UpgradesMatchWhatSparkWrote) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  const UpgradeCase cases[] = {
      {"delta-rs/table_with_deletion_logs", 1, 2, {}},  // + DVs on (3,7,[],[ao,inv])
      {"delta-rs/table_with_partitioning_mapping",
       0,
       2,
       {{"delta.minReaderVersion", "2"}, {"delta.minWriterVersion", "5"}}},
      {"delta-kernel-rs/cdf-column-mapping-name-mode-3-7", 0, 1, {}},
  };
  for (const UpgradeCase& c : cases) {
    SCOPED_TRACE(c.table);
    Commit before = ReadCommit(*root / c.table, c.before);
    Commit after = ReadCommit(*root / c.table, c.after);
    ASSERT_TRUE(before.protocol && after.protocol && after.schema);
    StringMap config = after.configuration;
    config.insert(config.end(), c.extra_properties.begin(), c.extra_properties.end());
    auto got = ProtocolUpgradeFor(*before.protocol, config, *after.schema);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ(FeatureSet(**got), FeatureSet(*after.protocol))
        << "ours " << Show(**got) << " theirs " << Show(*after.protocol);
    EXPECT_EQ((*got)->min_reader_version, after.protocol->min_reader_version);
    EXPECT_EQ((*got)->min_writer_version, after.protocol->min_writer_version);
  }
}

// Delta 3.3 enabled the preview type-widening feature; we enable the stable one.
TEST(WriteProtocolCorpusTest, TypeWideningUpgradeUsesTheStableFeature) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  stdfs::path table = *root / "delta-kernel-rs/type-widening";
  Commit v0 = ReadCommit(table, 0);
  Commit v1 = ReadCommit(table, 1);
  ASSERT_TRUE(v0.protocol && v1.protocol && v1.schema);
  StringMap config = v1.configuration;
  config.emplace_back("delta.feature.timestampntz", "supported");
  auto got = ProtocolUpgradeFor(*v0.protocol, config, *v1.schema);
  ASSERT_TRUE(got.has_value() && got->has_value());
  std::set<std::string> theirs = FeatureSet(*v1.protocol);
  theirs.erase("typewidening-preview");
  theirs.insert("typewidening");
  EXPECT_EQ(FeatureSet(**got), theirs) << Show(**got);
}

// Every column-mapped schema in the corpora satisfies the writer-side invariants.
TEST(WriteProtocolCorpusTest, CorpusColumnMappedSchemasValidate) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  int checked = 0;
  for (const auto& entry : stdfs::recursive_directory_iterator(*root)) {
    if (!entry.is_directory() || entry.path().filename() != "_delta_log") continue;
    stdfs::path first = entry.path() / fmt::format("{:020d}.json", 0);
    if (!stdfs::exists(first)) continue;
    Commit v0 = ReadCommit(entry.path().parent_path(), 0);
    auto max_id = FindIgnoreCase(v0.configuration, kColumnMappingMaxColumnIdProperty);
    if (!v0.schema || !max_id) continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_TRUE(ValidateColumnMapping(*v0.schema, std::stoll(*max_id)));
    // Re-assigning on a fully mapped schema changes nothing.
    auto again = AssignColumnMapping(*v0.schema, std::stoll(*max_id), false);
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->max_column_id, std::stoll(*max_id));
    EXPECT_TRUE(again->schema->Equals(*v0.schema));
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

// Every table's latest protocol already supports what its latest metadata needs (no
// spurious upgrades), except the listed ones.
TEST(WriteProtocolCorpusTest, CorpusProtocolsSufficeForTheirMetadata) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  // Deliberately broken logs store 'delta.feature.catalogowned' (an unknown name) in
  // their configuration; two old tables carry identity / generation metadata under a
  // (1,2) protocol, where it is inert — Spark 4.x would also add the feature on the next
  // metadata change.
  const std::set<std::string> kExpected = {
      "delta-rs/data_err_logs/table_d",     "delta-rs/data_err_logs/table_e",
      "delta-rs/data_err_logs/table_f",     "delta-rs/data_err_logs/table_h",
      "delta-rs/data_err_logs/table_i",     "delta/identity_test_written_by_version_5",
      "delta/dbr_8_0_non_generated_columns"};
  int checked = 0;
  std::vector<std::string> needs_upgrade;
  for (const auto& entry : stdfs::recursive_directory_iterator(*root)) {
    if (!entry.is_directory() || entry.path().filename() != "_delta_log") continue;
    std::vector<int64_t> versions;
    for (const auto& f : stdfs::directory_iterator(entry.path())) {
      std::string n = f.path().filename().string();
      if (n.size() == 25 && n.ends_with(".json"))
        versions.push_back(std::stoll(n.substr(0, 20)));
    }
    std::sort(versions.begin(), versions.end());
    std::optional<Protocol> protocol;
    std::optional<Commit> metadata;
    for (int64_t v : versions) {
      Commit c = ReadCommit(entry.path().parent_path(), v);
      if (c.protocol) protocol = c.protocol;
      if (c.has_metadata) metadata = c;
    }
    if (!protocol || !metadata || !metadata->schema) continue;
    auto got = ProtocolUpgradeFor(*protocol, metadata->configuration, *metadata->schema);
    std::string rel = stdfs::relative(entry.path().parent_path(), *root).string();
    bool expected = kExpected.count(rel) > 0;
    if (!got.has_value()) {
      if (!expected) needs_upgrade.push_back(rel + " error: " + got.error().message);
    } else if (got->has_value()) {
      if (!expected) {
        needs_upgrade.push_back(rel + " " + Show(*protocol) + " -> " + Show(**got));
      }
    } else if (expected) {
      needs_upgrade.push_back(rel + " was expected to need an upgrade");
    }
    ++checked;
  }
  EXPECT_GE(checked, 100);
  for (const std::string& s : needs_upgrade) ADD_FAILURE() << s;
}

// Write gating on real tables: plain Spark tables pass, tables with features deltaguard
// cannot write are refused with the feature named.
TEST(WriteProtocolCorpusTest, WriteGatingOnRealTables) {
  auto root = CorpusRoot();
  if (!root) GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  struct Case {
    const char* table;
    int64_t version;      // a version holding both protocol and metaData
    const char* refusal;  // nullptr: writable
  };
  const Case cases[] = {
      {"delta-kernel-rs/cdf-table-simple", 0, nullptr},
      {"delta-rs/cdc_ict_table", 0, nullptr},
      {"delta-kernel-rs/stats-writing-all-types", 0, nullptr},
      {"delta/basic-dv-no-checkpoint", 0, nullptr},
      {"delta-rs/table_with_liquid_clustering", 0, "'liquid'"},
      {"delta-rs/simple_table_features", 0, "reader version 5"},
      {"delta-kernel-rs/crc-full", 0, "'rowTracking'"},
      {"duckdb-delta/variant_basic", 0, "variant"},
      {"delta-rs/checkpoint-v2-table", 0, "identity column"},
      {"delta/catalog-owned-preview", 0, "'catalogManaged'"},
      {"trino/oss-delta-3.2.0-allow-column-defaults", 0, "DEFAULT"},
      {"delta/dbr_8_1_generated_columns", 0, "generated column"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.table);
    Commit commit = ReadCommit(*root / c.table, c.version);
    ASSERT_TRUE(commit.protocol && commit.schema);
    Metadata md;
    md.configuration = commit.configuration;
    auto st = CheckWriteSupported(*commit.protocol, md, *commit.schema, c.table, true);
    if (c.refusal == nullptr) {
      EXPECT_TRUE(st.has_value()) << st.error().message;
    } else {
      ASSERT_FALSE(st.has_value());
      EXPECT_EQ(st.error().code, ErrorCode::kUnsupportedFeature);
      EXPECT_THAT(st.error().message, ::testing::HasSubstr(c.refusal));
      EXPECT_THAT(st.error().message, ::testing::HasSubstr(c.table));
    }
  }
}

}  // namespace
}  // namespace deltaguard
