#include "deltaguard/txn/transaction.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <string>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/log/log_test_util.h"
#include "deltaguard/txn/test_util_internal.h"

namespace deltaguard {
namespace {

using testing::TestAdd;
using testing::TestMetadata;
using testing::TestProtocol;
using testing::TestRemove;
using testing::TxnTestTable;
using testing::WriteOp;

void ExpectConflict(const Result<CommitResult>& r, std::string_view error_class,
                    std::string_view detail) {
  ASSERT_FALSE(r) << "committed version " << r->version << ", expected " << error_class;
  EXPECT_EQ(r.error().code, ErrorCode::kCommitConflict);
  EXPECT_EQ(r.error().message.rfind(error_class, 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find(detail), std::string::npos) << r.error().message;
}

std::vector<std::string> LogFiles(const std::string& log_dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(log_dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

rapidjson::Document CommitInfoOf(const std::string& commit_text) {
  std::string first = commit_text.substr(0, commit_text.find('\n'));
  rapidjson::Document doc;
  doc.Parse(first.data(), first.size());
  EXPECT_FALSE(doc.HasParseError()) << first;
  EXPECT_TRUE(doc.IsObject() && doc.HasMember("commitInfo")) << first;
  return doc;
}

TEST(TransactionTest, CreateTableWritesVersionZeroInActionOrder) {
  TxnTestTable table;
  auto txn = Transaction::Begin(table.fs(), table.root(), nullptr, table.Options());
  ASSERT_TRUE(txn) << txn.error().ToString();
  EXPECT_EQ((*txn)->read_version(), -1);
  EXPECT_EQ((*txn)->read_snapshot(), nullptr);
  (*txn)->AddFile(TestAdd("part-0.parquet"));
  (*txn)->SetMetadata(TestMetadata());
  (*txn)->SetProtocol(TestProtocol());
  (*txn)->SetAppTransaction("app", 3);
  OperationInfo op = WriteOp();
  op.operation = "CREATE TABLE AS SELECT";
  auto r = (*txn)->Commit(op);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->version, 0);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_TRUE(r->winning_versions.empty());

  std::string text = table.ReadText(table.CommitPath(0));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  auto actions = ParseCommitFile(text, "v0");
  ASSERT_TRUE(actions) << actions.error().ToString();
  std::vector<std::string_view> names;
  for (const Action& a : *actions) names.push_back(ActionName(a));
  EXPECT_EQ(names, (std::vector<std::string_view>{"commitInfo", "protocol", "metaData",
                                                  "txn", "add"}));
  auto doc = CommitInfoOf(text);
  EXPECT_FALSE(doc["commitInfo"].HasMember("readVersion"));
  EXPECT_STREQ(doc["commitInfo"]["operation"].GetString(), "CREATE TABLE AS SELECT");
  EXPECT_EQ(std::string(doc["commitInfo"]["txnId"].GetString()).size(), 36u);

  SnapshotRef snap = table.Load();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->version(), 0);
  EXPECT_EQ(snap->metadata().id, TestMetadata().id);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].path, "part-0.parquet");
  ASSERT_EQ(snap->transactions().count("app"), 1u);
  EXPECT_EQ(snap->transactions().at("app").version, 3);
  EXPECT_EQ(snap->transactions().at("app").last_updated, 1800000000000);
}

TEST(TransactionTest, AppendRecordsCommitInfoFields) {
  TxnTestTable table;
  table.Create();
  auto txn = table.Begin();
  ASSERT_TRUE(txn);
  EXPECT_EQ(txn->read_version(), 0);
  txn->AddFile(TestAdd("part-1.parquet"));
  OperationInfo op = WriteOp();
  op.user_metadata = "batch 1";
  auto r = txn->Commit(op);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->version, 1);
  std::string text = table.ReadText(table.CommitPath(1));
  auto doc = CommitInfoOf(text);
  const auto& ci = doc["commitInfo"];
  EXPECT_EQ(ci["readVersion"].GetInt64(), 0);
  EXPECT_TRUE(ci["isBlindAppend"].GetBool());
  EXPECT_STREQ(ci["isolationLevel"].GetString(), "Serializable");
  EXPECT_STREQ(ci["engineInfo"].GetString(), "deltaguard/0.1.0");
  EXPECT_STREQ(ci["operationMetrics"]["numFiles"].GetString(), "1");
  EXPECT_STREQ(ci["operationParameters"]["mode"].GetString(), "Append");
  EXPECT_STREQ(ci["operationParameters"]["partitionBy"].GetString(), "[]");
  EXPECT_STREQ(ci["userMetadata"].GetString(), "batch 1");
  EXPECT_EQ(ci["timestamp"].GetInt64(), 1800000000000);
  EXPECT_FALSE(ci.HasMember("inCommitTimestamp"));
  // commit_info_json is exactly what was written.
  EXPECT_NE(text.find(r->commit_info_json), std::string::npos);

  auto commit = ReadCommit(*table.fs(), table.root(), 1);
  ASSERT_TRUE(commit);
  const auto* parsed = std::get_if<CommitInfo>(&commit->front());
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(parsed->operation, "WRITE");
  EXPECT_EQ(parsed->engine_info, "deltaguard/0.1.0");
  EXPECT_EQ(table.Load()->files().size(), 1u);
}

TEST(TransactionTest, ReadingTxnIsNotBlindAppendAndDeleteIsSerializable) {
  TxnTestTable table;
  table.Create(TestMetadata(), TestProtocol(), {TestAdd("a.parquet")});
  auto txn = table.Begin();
  txn->ReadFiles({"a.parquet"});
  txn->RemoveFile(TestRemove("a.parquet"));
  auto r = txn->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
  auto doc = CommitInfoOf(table.ReadText(table.CommitPath(1)));
  EXPECT_FALSE(doc["commitInfo"]["isBlindAppend"].GetBool());
  EXPECT_STREQ(doc["commitInfo"]["isolationLevel"].GetString(), "Serializable");
  EXPECT_TRUE(table.Load()->files().empty());
}

TEST(TransactionTest, CompactionIsSnapshotIsolation) {
  TxnTestTable table;
  table.Create(TestMetadata(), TestProtocol(),
               {TestAdd("a.parquet"), TestAdd("b.parquet")});
  auto txn = table.Begin();
  txn->ReadFiles({"a.parquet", "b.parquet"});
  txn->RemoveFile(TestRemove("a.parquet", false));
  txn->RemoveFile(TestRemove("b.parquet", false));
  txn->AddFile(TestAdd("ab.parquet", {}, false));
  auto r = txn->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
  auto doc = CommitInfoOf(table.ReadText(table.CommitPath(1)));
  EXPECT_STREQ(doc["commitInfo"]["isolationLevel"].GetString(), "SnapshotIsolation");
}

TEST(TransactionTest, TwoConcurrentBlindAppendsBothLand) {
  TxnTestTable table;
  table.Create();
  auto t1 = table.Begin();
  auto t2 = table.Begin();
  t1->AddFile(TestAdd("one.parquet"));
  t2->AddFile(TestAdd("two.parquet"));
  auto r1 = t1->Commit(WriteOp());
  ASSERT_TRUE(r1) << r1.error().ToString();
  EXPECT_EQ(r1->version, 1);
  auto r2 = t2->Commit(WriteOp());
  ASSERT_TRUE(r2) << r2.error().ToString();
  EXPECT_EQ(r2->version, 2);
  EXPECT_EQ(r2->attempts, 2);
  EXPECT_EQ(r2->winning_versions, std::vector<int64_t>{1});
  // readVersion stays the version read.
  auto doc = CommitInfoOf(table.ReadText(table.CommitPath(2)));
  EXPECT_EQ(doc["commitInfo"]["readVersion"].GetInt64(), 0);
  SnapshotRef snap = table.Load();
  EXPECT_EQ(snap->version(), 2);
  EXPECT_EQ(snap->files().size(), 2u);
}

TEST(TransactionTest, MetadataChangeConflictsWithAppend) {
  TxnTestTable table;
  table.Create();
  auto writer = table.Begin();
  auto alter = table.Begin();
  writer->AddFile(TestAdd("w.parquet"));
  Metadata m = TestMetadata({{"delta.appendOnly", "false"}});
  alter->SetMetadata(m);
  OperationInfo op;
  op.operation = "SET TBLPROPERTIES";
  ASSERT_TRUE(alter->Commit(op));
  ExpectConflict(writer->Commit(WriteOp()), "DELTA_METADATA_CHANGED", "version 1");
  EXPECT_EQ(LogFiles(table.log_dir()).size(), 2u);  // v0, v1 only
}

TEST(TransactionTest, DeleteReadConflict) {
  TxnTestTable table;
  table.Create(TestMetadata(), TestProtocol(),
               {TestAdd("a.parquet"), TestAdd("b.parquet")});
  auto update = table.Begin();
  update->ReadFiles({"a.parquet"});
  update->RemoveFile(TestRemove("a.parquet"));
  update->AddFile(TestAdd("a2.parquet"));
  auto del = table.Begin();
  del->ReadWholeTable();
  del->RemoveFile(TestRemove("a.parquet"));
  ASSERT_TRUE(del->Commit(WriteOp()));
  ExpectConflict(update->Commit(WriteOp()), "DELTA_CONCURRENT_DELETE_READ", "a.parquet");
  // A transaction that read only b is unaffected by the removal of a.
  TxnTestTable other;
  other.Create(TestMetadata(), TestProtocol(),
               {TestAdd("a.parquet"), TestAdd("b.parquet")});
  auto reader_b = other.Begin();
  reader_b->ReadFiles({"b.parquet"});
  reader_b->RemoveFile(TestRemove("b.parquet"));
  auto del_a = other.Begin();
  del_a->RemoveFile(TestRemove("a.parquet"));
  ASSERT_TRUE(del_a->Commit(WriteOp()));
  auto r = reader_b->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_TRUE(other.Load()->files().empty());
}

TEST(TransactionTest, DeleteDeleteConflict) {
  TxnTestTable table;
  table.Create(TestMetadata(), TestProtocol(), {TestAdd("a.parquet")});
  auto t1 = table.Begin();
  auto t2 = table.Begin();
  t1->RemoveFile(TestRemove("a.parquet"));
  t2->RemoveFile(TestRemove("a.parquet"));
  ASSERT_TRUE(t1->Commit(WriteOp()));
  ExpectConflict(t2->Commit(WriteOp()), "DELTA_CONCURRENT_DELETE_DELETE", "a.parquet");
}

TEST(TransactionTest, ConcurrentAppendIntoReadPartition) {
  TxnTestTable table;
  table.Create(TestMetadata({}, true), TestProtocol());
  auto overwrite = table.Begin();
  overwrite->ReadPartitions(
      [](const PartitionValues& pv) { return !pv.empty() && pv[0].second == "x"; });
  overwrite->AddFile(TestAdd("part=x/new.parquet", {{"part", "x"}}));
  auto append = table.Begin();
  append->AddFile(TestAdd("part=x/other.parquet", {{"part", "x"}}));
  ASSERT_TRUE(append->Commit(WriteOp()));
  ExpectConflict(overwrite->Commit(WriteOp()), "DELTA_CONCURRENT_APPEND",
                 "partition [part=x]");
}

TEST(TransactionTest, ConcurrentAppTransaction) {
  TxnTestTable table;
  table.Create();
  auto t1 = table.Begin();
  auto t2 = table.Begin();
  EXPECT_EQ(t1->AppTransactionVersion("stream-1"), std::nullopt);
  EXPECT_EQ(t2->AppTransactionVersion("stream-1"), std::nullopt);
  t1->SetAppTransaction("stream-1", 1);
  t1->AddFile(TestAdd("batch1-a.parquet"));
  t2->SetAppTransaction("stream-1", 1);
  t2->AddFile(TestAdd("batch1-b.parquet"));
  ASSERT_TRUE(t1->Commit(WriteOp()));
  ExpectConflict(t2->Commit(WriteOp()), "DELTA_CONCURRENT_TRANSACTION", "'stream-1'");
  // The next transaction sees the recorded version.
  auto t3 = table.Begin();
  EXPECT_EQ(t3->AppTransactionVersion("stream-1"), 1);

  // Without reading it first, a winner at >= our version still conflicts.
  auto t4 = table.Begin();
  auto t5 = table.Begin();
  t4->SetAppTransaction("stream-2", 7);
  t5->SetAppTransaction("stream-2", 7);
  ASSERT_TRUE(t4->Commit(WriteOp()));
  ExpectConflict(t5->Commit(WriteOp()), "DELTA_CONCURRENT_TRANSACTION", "'stream-2'");
}

TEST(TransactionTest, SecondCommitIsRejected) {
  TxnTestTable table;
  table.Create();
  auto txn = table.Begin();
  txn->AddFile(TestAdd("a.parquet"));
  ASSERT_TRUE(txn->Commit(WriteOp()));
  auto again = txn->Commit(WriteOp());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(LogFiles(table.log_dir()).size(), 2u);
}

TEST(TransactionTest, InvalidCommitWritesNothing) {
  TxnTestTable table;
  auto txn = Transaction::Begin(table.fs(), table.root(), nullptr);
  ASSERT_TRUE(txn);
  (*txn)->SetMetadata(TestMetadata());
  auto r = (*txn)->Commit(WriteOp());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(table.log_dir()));

  table.Create();
  auto dup = table.Begin();
  dup->AddFile(TestAdd("a.parquet"));
  dup->AddFile(TestAdd("a.parquet"));
  auto r2 = dup->Commit(WriteOp());
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(LogFiles(table.log_dir()).size(), 1u);
}

TEST(TransactionTest, BeginValidatesArguments) {
  TxnTestTable table;
  EXPECT_FALSE(Transaction::Begin(nullptr, table.root(), nullptr));
  EXPECT_FALSE(Transaction::Begin(table.fs(), "", nullptr));
  TransactionOptions zero;
  zero.max_attempts = 0;
  EXPECT_FALSE(Transaction::Begin(table.fs(), table.root(), nullptr, zero));
  table.Create(TestMetadata({{"delta.isolationLevel", "Bogus"}}));
  auto bad = Transaction::Begin(table.fs(), table.root(), table.Load());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("Bogus"), std::string::npos);
}

TEST(TransactionTest, WriteSerializableTableIgnoresConcurrentBlindAppends) {
  TxnTestTable table;
  table.Create(TestMetadata({{"delta.isolationLevel", "WriteSerializable"}}),
               TestProtocol(), {TestAdd("a.parquet")});
  auto del = table.Begin();
  del->ReadWholeTable();
  del->RemoveFile(TestRemove("a.parquet"));
  auto append = table.Begin();
  append->AddFile(TestAdd("b.parquet"));
  ASSERT_TRUE(append->Commit(WriteOp()));
  auto r = del->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
  auto doc = CommitInfoOf(table.ReadText(table.CommitPath(2)));
  EXPECT_STREQ(doc["commitInfo"]["isolationLevel"].GetString(), "WriteSerializable");
  // Under the default (Serializable) the same race conflicts.
  TxnTestTable strict;
  strict.Create(TestMetadata(), TestProtocol(), {TestAdd("a.parquet")});
  auto del2 = strict.Begin();
  del2->ReadWholeTable();
  del2->RemoveFile(TestRemove("a.parquet"));
  auto append2 = strict.Begin();
  append2->AddFile(TestAdd("b.parquet"));
  ASSERT_TRUE(append2->Commit(WriteOp()));
  ExpectConflict(del2->Commit(WriteOp()), "DELTA_CONCURRENT_APPEND", "b.parquet");
}

TEST(TransactionTest, ConcurrentCreateFailsWithConflict) {
  TxnTestTable table;
  auto a = Transaction::Begin(table.fs(), table.root(), nullptr);
  auto b = Transaction::Begin(table.fs(), table.root(), nullptr);
  for (auto* t : {&*a, &*b}) {
    (*t)->SetProtocol(TestProtocol());
    (*t)->SetMetadata(TestMetadata());
  }
  ASSERT_TRUE((*a)->Commit(WriteOp()));
  std::string v0 = table.ReadText(table.CommitPath(0));
  ExpectConflict((*b)->Commit(WriteOp()), "DELTA_PROTOCOL_CHANGED", "already exists");
  EXPECT_EQ(table.ReadText(table.CommitPath(0)), v0);
}

TEST(TransactionTest, NeverOverwritesAnExistingVersion) {
  TxnTestTable table;
  table.Create();
  auto txn = table.Begin();  // reads v0
  txn->AddFile(TestAdd("mine.parquet"));
  // Another writer's v1, written by hand: a blind append.
  std::string v1 = testing::Join(
      {R"({"commitInfo":{"timestamp":1,"operation":"WRITE","isBlindAppend":true}})",
       testing::AddLine("theirs.parquet")});
  testing::WriteText(table.CommitPath(1), v1);
  auto r = txn->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(table.ReadText(table.CommitPath(1)), v1);
  EXPECT_EQ(table.Load()->files().size(), 2u);

  // A hand-written v3 changing metadata: the commit fails and v3 stays untouched.
  auto txn2 = table.Begin();  // reads v2
  txn2->AddFile(TestAdd("mine2.parquet"));
  std::string v3 = testing::Join({testing::MetadataLine()});
  testing::WriteText(table.CommitPath(3), v3);
  ExpectConflict(txn2->Commit(WriteOp()), "DELTA_METADATA_CHANGED", "version 3");
  EXPECT_EQ(table.ReadText(table.CommitPath(3)), v3);
  EXPECT_FALSE(std::filesystem::exists(table.CommitPath(4)));
}

TEST(TransactionTest, GivesUpAfterMaxAttempts) {
  TxnTestTable table;
  table.Create();
  TransactionOptions options = TxnTestTable::Options();
  options.max_attempts = 1;
  auto txn = table.Begin(options);
  txn->AddFile(TestAdd("mine.parquet"));
  auto other = table.Begin();
  other->AddFile(TestAdd("theirs.parquet"));
  ASSERT_TRUE(other->Commit(WriteOp()));
  auto r = txn->Commit(WriteOp());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kCommitConflict);
  EXPECT_EQ(r.error().message.rfind("DELTA_MAX_COMMIT_RETRIES_EXCEEDED", 0), 0u)
      << r.error().message;
  EXPECT_EQ(LogFiles(table.log_dir()).size(), 2u);
}

TEST(TransactionTest, PutIfAbsentFaultLeavesLogUnchanged) {
  TxnTestTable table;
  table.Create();
  auto faulty = std::make_shared<FaultInjectionFileSystem>(table.fs());
  auto txn =
      Transaction::Begin(faulty, table.root(), table.Load(), TxnTestTable::Options());
  ASSERT_TRUE(txn);
  (*txn)->AddFile(TestAdd("a.parquet"));
  faulty->FailNextMatching(CommitFileName(1), Fault::kError);
  auto r = (*txn)->Commit(WriteOp());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kIOError);
  EXPECT_NE(r.error().message.find("commit 1"), std::string::npos) << r.error().message;
  // Exactly one PutIfAbsent was attempted: no retry of a failed storage call.
  EXPECT_EQ(faulty->num_mutations(), 1);
  EXPECT_EQ(LogFiles(table.log_dir()), (std::vector<std::string>{CommitFileName(0)}));
  EXPECT_EQ(table.Load()->version(), 0);

  // The caller retries the whole transaction.
  auto retry = table.Begin();
  retry->AddFile(TestAdd("a.parquet"));
  auto ok = retry->Commit(WriteOp());
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->version, 1);
}

TEST(TransactionTest, CrashAfterPutLeavesExactlyTheCommit) {
  TxnTestTable table;
  table.Create();
  auto faulty = std::make_shared<FaultInjectionFileSystem>(table.fs());
  auto txn =
      Transaction::Begin(faulty, table.root(), table.Load(), TxnTestTable::Options());
  (*txn)->AddFile(TestAdd("a.parquet"));
  faulty->FailNextMatching(CommitFileName(1), Fault::kCrashAfterWrite);
  auto r = (*txn)->Commit(WriteOp());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kIOError);
  SnapshotRef snap = table.Load();
  EXPECT_EQ(snap->version(), 1);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].path, "a.parquet");
}

TEST(TransactionTest, FaultCreatingLogDirForNewTable) {
  TxnTestTable table;
  auto faulty = std::make_shared<FaultInjectionFileSystem>(table.fs());
  faulty->FailAt(0, Fault::kError);
  auto txn = Transaction::Begin(faulty, table.root(), nullptr);
  (*txn)->SetProtocol(TestProtocol());
  (*txn)->SetMetadata(TestMetadata());
  auto r = (*txn)->Commit(WriteOp());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kIOError);
  EXPECT_FALSE(std::filesystem::exists(table.CommitPath(0)));
}

}  // namespace
}  // namespace deltaguard
