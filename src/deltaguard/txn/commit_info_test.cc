#include "deltaguard/txn/commit_info.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <set>
#include <string>

#include "deltaguard/util/uuid.h"

namespace deltaguard {
namespace {

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

OperationInfo SampleOp() {
  OperationInfo op;
  op.operation = "WRITE";
  op.parameters_json = {
      {"mode", "\"Append\""}, {"partitionBy", "[\"a\"]"}, {"overwriteSchema", "true"}};
  op.metrics = {{"numFiles", 2}, {"numOutputRows", 10}};
  op.user_metadata = "nightly \"job\"";
  return op;
}

TEST(CommitInfoTest, FieldsInSparkOrderAndForm) {
  CommitInfoFields f;
  f.timestamp_ms = 1700000000123;
  f.read_version = 4;
  f.isolation_level = IsolationLevel::kSerializable;
  f.is_blind_append = true;
  f.engine_info = "deltaguard/0.1.0";
  f.txn_id = "abc";
  std::string json = BuildCommitInfoJson(SampleOp(), f);
  rapidjson::Document doc = ParseJson(json);
  ASSERT_TRUE(doc.IsObject());
  std::vector<std::string> keys;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    keys.push_back(it->name.GetString());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "timestamp", "operation", "operationParameters", "readVersion",
                      "isolationLevel", "isBlindAppend", "operationMetrics",
                      "userMetadata", "engineInfo", "txnId"}));
  EXPECT_EQ(doc["timestamp"].GetInt64(), 1700000000123);
  EXPECT_STREQ(doc["operation"].GetString(), "WRITE");
  // Spark writes parameter values as strings: strings as themselves, other JSON as text.
  EXPECT_STREQ(doc["operationParameters"]["mode"].GetString(), "Append");
  EXPECT_STREQ(doc["operationParameters"]["partitionBy"].GetString(), "[\"a\"]");
  EXPECT_STREQ(doc["operationParameters"]["overwriteSchema"].GetString(), "true");
  EXPECT_EQ(doc["readVersion"].GetInt64(), 4);
  EXPECT_STREQ(doc["isolationLevel"].GetString(), "Serializable");
  EXPECT_TRUE(doc["isBlindAppend"].GetBool());
  ASSERT_TRUE(doc["operationMetrics"]["numFiles"].IsString());
  EXPECT_STREQ(doc["operationMetrics"]["numFiles"].GetString(), "2");
  EXPECT_STREQ(doc["operationMetrics"]["numOutputRows"].GetString(), "10");
  EXPECT_STREQ(doc["userMetadata"].GetString(), "nightly \"job\"");
  EXPECT_STREQ(doc["engineInfo"].GetString(), "deltaguard/0.1.0");
  EXPECT_STREQ(doc["txnId"].GetString(), "abc");
}

TEST(CommitInfoTest, InCommitTimestampFirstAndReadVersionOmittedForNewTable) {
  CommitInfoFields f;
  f.timestamp_ms = 5;
  f.in_commit_timestamp = 5;
  f.isolation_level = IsolationLevel::kSnapshotIsolation;
  OperationInfo op;
  op.operation = "CREATE TABLE";
  std::string json = BuildCommitInfoJson(op, f);
  EXPECT_EQ(json.rfind("{\"inCommitTimestamp\":5,\"timestamp\":5,", 0), 0u) << json;
  rapidjson::Document doc = ParseJson(json);
  EXPECT_FALSE(doc.HasMember("readVersion"));
  EXPECT_FALSE(doc.HasMember("userMetadata"));
  EXPECT_FALSE(doc["isBlindAppend"].GetBool());
  EXPECT_STREQ(doc["isolationLevel"].GetString(), "SnapshotIsolation");
  EXPECT_TRUE(doc["operationParameters"].IsObject());
  EXPECT_EQ(doc["operationParameters"].MemberCount(), 0u);
}

TEST(CommitInfoTest, ValidateRejectsBadInput) {
  EXPECT_TRUE(ValidateOperationInfo(SampleOp()));
  OperationInfo empty;
  auto st = ValidateOperationInfo(empty);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);

  OperationInfo bad = SampleOp();
  bad.parameters_json.push_back({"predicate", "[\"a\" "});
  st = ValidateOperationInfo(bad);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("'predicate'"), std::string::npos)
      << st.error().message;

  OperationInfo two_values = SampleOp();
  two_values.parameters_json.push_back({"x", "1 2"});
  EXPECT_FALSE(ValidateOperationInfo(two_values));

  OperationInfo bad_utf8 = SampleOp();
  bad_utf8.user_metadata = std::string("\xff\xfe");
  st = ValidateOperationInfo(bad_utf8);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("userMetadata"), std::string::npos);
}

TEST(CommitInfoTest, UuidV4FormatAndUniqueness) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string u = GenerateUuidV4();
    ASSERT_EQ(u.size(), 36u) << u;
    EXPECT_EQ(u[8], '-');
    EXPECT_EQ(u[13], '-');
    EXPECT_EQ(u[18], '-');
    EXPECT_EQ(u[23], '-');
    EXPECT_EQ(u[14], '4') << u;
    EXPECT_NE(std::string("89ab").find(u[19]), std::string::npos) << u;
    EXPECT_EQ(u.find_first_not_of("0123456789abcdef-"), std::string::npos) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(CommitInfoTest, IsolationLevels) {
  EXPECT_EQ(IsolationLevelName(IsolationLevel::kWriteSerializable), "WriteSerializable");
  auto a = ParseIsolationLevel("serializable");
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, IsolationLevel::kSerializable);
  auto b = ParseIsolationLevel(" WriteSerializable ");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, IsolationLevel::kWriteSerializable);
  auto c = ParseIsolationLevel("SnapshotIsolation");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(c.error().message.find("SnapshotIsolation"), std::string::npos);
}

}  // namespace
}  // namespace deltaguard
