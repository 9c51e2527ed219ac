#include "deltaguard/txn/staged_actions.h"

#include <gtest/gtest.h>

#include <string>

#include "deltaguard/txn/test_util_internal.h"

namespace deltaguard {
namespace {

using testing::TestAdd;
using testing::TestRemove;

void ExpectInvalid(const Status& st, std::string_view detail) {
  ASSERT_FALSE(st) << "expected an error mentioning " << detail;
  EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(st.error().message.find("/t"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find(detail), std::string::npos) << st.error().message;
}

StagedActions NewTable() {
  StagedActions s;
  s.protocol.push_back(testing::TestProtocol());
  s.metadata.push_back(testing::TestMetadata());
  return s;
}

TEST(StagedActionsTest, NewTableNeedsProtocolAndMetadata) {
  EXPECT_TRUE(ValidateStagedActions(NewTable(), nullptr, "/t"));
  StagedActions no_protocol = NewTable();
  no_protocol.protocol.clear();
  ExpectInvalid(ValidateStagedActions(no_protocol, nullptr, "/t"), "has protocol: false");
  StagedActions no_metadata = NewTable();
  no_metadata.metadata.clear();
  ExpectInvalid(ValidateStagedActions(no_metadata, nullptr, "/t"), "has metaData: false");
}

TEST(StagedActionsTest, AtMostOneMetadataAndProtocol) {
  StagedActions s = NewTable();
  s.metadata.push_back(testing::TestMetadata());
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "at most one metaData");
  s = NewTable();
  s.protocol.push_back(testing::TestProtocol());
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "at most one protocol");
  s = NewTable();
  s.metadata[0].id.clear();
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "empty table id");
  s = NewTable();
  s.metadata[0].schema_string.clear();
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "schemaString");
}

TEST(StagedActionsTest, DuplicateTxnAndDomain) {
  StagedActions s = NewTable();
  s.txns = {{"app", 1, 1}, {"app", 2, 1}};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "appId 'app'");
  s = NewTable();
  s.txns = {{"", 1, 1}};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "empty appId");
  s = NewTable();
  s.domains = {{"d", "{}", false}, {"d", "{}", true}};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "domain 'd'");
}

TEST(StagedActionsTest, DuplicateFileActions) {
  StagedActions s = NewTable();
  s.adds = {TestAdd("a.parquet"), TestAdd("a.parquet")};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "'a.parquet' is added twice");
  s = NewTable();
  s.removes = {TestRemove("a.parquet"), TestRemove("a.parquet")};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "'a.parquet' is removed twice");
  // add + remove of the same (path, dv) reconcile with each other.
  s = NewTable();
  s.adds = {TestAdd("a.parquet")};
  s.removes = {TestRemove("a.parquet")};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"), "both added and removed");
  // remove(path, no dv) + add(path, dv) is legal.
  DeletionVectorDescriptor dv;
  dv.storage_type = 'i';
  dv.path_or_inline_dv = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  dv.size_in_bytes = 40;
  dv.cardinality = 1;
  s.adds[0].deletion_vector = dv;
  EXPECT_TRUE(ValidateStagedActions(s, nullptr, "/t"));
}

TEST(StagedActionsTest, AddOfLivePathWithOtherDvNeedsRemove) {
  testing::TxnTestTable table;
  table.Create(testing::TestMetadata(), testing::TestProtocol(), {TestAdd("a.parquet")});
  SnapshotRef snap = table.Load();
  ASSERT_TRUE(snap);
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.size_in_bytes = 36;
  dv.cardinality = 2;
  StagedActions s;
  AddFile with_dv = TestAdd("a.parquet");
  with_dv.deletion_vector = dv;
  s.adds = {with_dv};
  ExpectInvalid(ValidateStagedActions(s, snap.get(), "/t"),
                "without removing the live one");
  s.removes = {TestRemove("a.parquet")};
  EXPECT_TRUE(ValidateStagedActions(s, snap.get(), "/t"));
  // Re-adding the same (path, dv) is a legal stats refresh.
  StagedActions refresh;
  refresh.adds = {TestAdd("a.parquet", {}, /*data_change=*/false)};
  EXPECT_TRUE(ValidateStagedActions(refresh, snap.get(), "/t"));
}

TEST(StagedActionsTest, AppendOnlyTableRefusesDeletes) {
  StagedActions s = NewTable();
  s.metadata[0].configuration = {{"delta.appendOnly", "true"}};
  s.removes = {TestRemove("a.parquet")};
  ExpectInvalid(ValidateStagedActions(s, nullptr, "/t"),
                "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  s.removes[0].data_change = false;  // compaction is allowed
  EXPECT_TRUE(ValidateStagedActions(s, nullptr, "/t"));
}

TEST(StagedActionsTest, BlindAppendAndIsolation) {
  StagedActions s;
  ReadScope read;
  s.adds = {TestAdd("a")};
  EXPECT_TRUE(IsBlindAppend(s, read));
  EXPECT_EQ(EffectiveIsolationLevel(s, IsolationLevel::kWriteSerializable),
            IsolationLevel::kWriteSerializable);
  s.metadata.push_back(testing::TestMetadata());
  EXPECT_TRUE(IsBlindAppend(s, read));  // as Spark: metaData does not matter
  read.files.insert("x");
  EXPECT_FALSE(IsBlindAppend(s, read));
  read = ReadScope();
  s.adds[0].data_change = false;
  EXPECT_FALSE(IsBlindAppend(s, read));
  s.metadata.clear();
  // Only dataChange=false file actions: SnapshotIsolation.
  EXPECT_EQ(EffectiveIsolationLevel(s, IsolationLevel::kSerializable),
            IsolationLevel::kSnapshotIsolation);
  s.removes = {TestRemove("b")};
  EXPECT_FALSE(IsBlindAppend(s, read));
  EXPECT_EQ(EffectiveIsolationLevel(s, IsolationLevel::kSerializable),
            IsolationLevel::kSerializable);
}

}  // namespace
}  // namespace deltaguard
