// The commit funnel: hook order, refusals, decorators, post-commit failures, and the
// removal of staged files on every failure path (fault-injection file system).

#include "deltaguard/write/commit_funnel.h"

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/write/table_state.h"
#include "testing/matchers.h"
#include "testing/table_fixture.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

SchemaRef Schema() { return Ddl("id BIGINT, country STRING"); }

std::shared_ptr<arrow::RecordBatch> Batch(int64_t first_id) {
  std::string json = "[{\"id\":" + std::to_string(first_id) + ",\"country\":\"DE\"}]";
  return Rows(Schema(), json);
}

BatchSource Source(std::vector<std::shared_ptr<arrow::RecordBatch>> batches) {
  return testing::BatchesSource("rows", std::move(batches));
}

// Data files under the table directory (staged or committed).
int CountDataFiles(const std::string& root) {
  return static_cast<int>(testing::ParquetFiles(root).size());
}

// Records every hook call in `log`; fails when `fail` is set.
struct Recorder {
  std::vector<std::string> log;
};

class Observer final : public BatchObserver {
 public:
  Observer(std::string name, Recorder* r, bool fail = false)
      : name_(std::move(name)), r_(r), fail_(fail) {}
  std::string_view name() const override { return name_; }
  Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                 const BatchInfo& info) override {
    r_->log.push_back(name_ + ":" + std::to_string((*batch)->num_rows()) + "@" +
                      std::to_string(info.first_row));
    if (fail_ && info.first_row > 0) {
      return MakeError(ErrorCode::kInvalidArgument, "observer refuses row {}",
                       info.first_row);
    }
    return OkStatus();
  }

 private:
  std::string name_;
  Recorder* r_;
  bool fail_;
};

class Validator final : public PreCommitValidator {
 public:
  Validator(Recorder* r, bool refuse) : r_(r), refuse_(refuse) {}
  std::string_view name() const override { return "drift"; }
  Status Validate(const StagedCommit& commit) override {
    r_->log.push_back("validate:" + std::to_string(commit.actions.adds.size()));
    if (refuse_) return MakeError(ErrorCode::kSchemaMismatch, "schema drift refused");
    return OkStatus();
  }

 private:
  Recorder* r_;
  bool refuse_;
};

class Decorator final : public CommitDecorator {
 public:
  explicit Decorator(Recorder* r) : r_(r) {}
  std::string_view name() const override { return "ingest"; }
  Status Decorate(const StagedCommit& /*commit*/, Transaction* txn) override {
    r_->log.push_back("decorate");
    txn->SetAppTransaction("loader", 7);
    return OkStatus();
  }

 private:
  Recorder* r_;
};

class PostCommit final : public PostCommitObserver {
 public:
  PostCommit(Recorder* r, bool fail) : r_(r), fail_(fail) {}
  std::string_view name() const override { return "event-log"; }
  Status OnCommitted(const CommittedWrite& write) override {
    r_->log.push_back("committed:" + std::to_string(write.commit.version));
    if (fail_) return MakeError(ErrorCode::kIOError, "event log unreachable");
    return OkStatus();
  }

 private:
  Recorder* r_;
  bool fail_;
};

class CommitFunnelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    faults_ = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
  }

  // A funnel creating the table (snapshot null) or appending to its latest snapshot.
  std::unique_ptr<CommitFunnel> Open(CommitHooks hooks) {
    auto snapshot = internal::LoadIfExists(faults_, root_);
    EXPECT_TRUE(snapshot) << snapshot.error().ToString();
    FunnelPlan plan;
    if (*snapshot) {
      plan.schema = (*snapshot)->schema();
      plan.metadata = (*snapshot)->metadata();
    } else {
      auto state = internal::PrepareNewTable(Schema(), {}, {}, std::nullopt, std::nullopt,
                                             nullptr, nullptr, 1);
      EXPECT_TRUE(state) << state.error().ToString();
      plan.schema = state->schema;
      plan.metadata = state->metadata;
      plan.new_metadata = state->metadata;
      plan.new_protocol = state->protocol;
      plan.create_log_dir = true;
    }
    auto funnel = CommitFunnel::Open(FunnelTable{faults_, root_, "t", *snapshot},
                                     std::move(plan), std::move(hooks), {});
    EXPECT_TRUE(funnel) << funnel.error().ToString();
    return std::move(*funnel);
  }

  Result<CommitOutcome> WriteAndCommit(CommitHooks hooks, int batches = 1) {
    auto funnel = Open(std::move(hooks));
    std::vector<std::shared_ptr<arrow::RecordBatch>> rows;
    for (int i = 0; i < batches; ++i) rows.push_back(Batch(i));
    DELTA_RETURN_IF_ERROR(funnel->WriteSource(Source(rows), ConformOptions{false, "t"}));
    OperationInfo op;
    op.operation = "WRITE";
    return funnel->Commit(op);
  }

  bool HasVersion(int64_t v) {
    char name[32];
    std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(v));
    return std::filesystem::exists(root_ + "/_delta_log/" + name);
  }

  TempDir dir_;
  std::string root_;
  std::shared_ptr<FaultInjectionFileSystem> faults_;
  Recorder r_;
};

TEST_F(CommitFunnelTest, HooksRunInOrder) {
  CommitHooks hooks;
  hooks.enforcement.push_back(std::make_shared<Observer>("check", &r_));
  hooks.batch_observers.push_back(std::make_shared<Observer>("profile", &r_));
  hooks.batch_observers.push_back(std::make_shared<Observer>("route", &r_));
  hooks.validators.push_back(std::make_shared<Validator>(&r_, false));
  hooks.decorators.push_back(std::make_shared<Decorator>(&r_));
  hooks.post_commit.push_back(std::make_shared<PostCommit>(&r_, false));
  auto outcome = WriteAndCommit(std::move(hooks), 2);
  ASSERT_TRUE(outcome) << outcome.error().ToString();
  EXPECT_TRUE(outcome->committed);
  EXPECT_EQ(outcome->version, 0);
  EXPECT_EQ(outcome->rows_written, 2);
  EXPECT_THAT(r_.log, ElementsAre("check:1@0", "profile:1@0", "route:1@0", "check:1@1",
                                  "profile:1@1", "route:1@1", "validate:1", "decorate",
                                  "committed:0"));
}

TEST_F(CommitFunnelTest, RefusingValidatorCommitsNothingAndLeavesNoDataFile) {
  CommitHooks hooks;
  hooks.validators.push_back(std::make_shared<Validator>(&r_, true));
  auto outcome = WriteAndCommit(std::move(hooks));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(outcome.error().message, HasSubstr("commit hook 'drift'"));
  EXPECT_THAT(outcome.error().message, HasSubstr("schema drift refused"));
  EXPECT_FALSE(HasVersion(0));
  EXPECT_EQ(CountDataFiles(root_), 0);
}

TEST_F(CommitFunnelTest, DecoratorActionLandsInTheSameCommit) {
  ASSERT_TRUE(WriteAndCommit({}));  // version 0
  CommitHooks hooks;
  hooks.decorators.push_back(std::make_shared<Decorator>(&r_));
  auto outcome = WriteAndCommit(std::move(hooks));
  ASSERT_TRUE(outcome) << outcome.error().ToString();
  EXPECT_EQ(outcome->version, 1);
  auto commit = faults_->ReadFile(root_ + "/_delta_log/00000000000000000001.json");
  ASSERT_TRUE(commit);
  EXPECT_THAT(*commit, HasSubstr("\"txn\":{\"appId\":\"loader\",\"version\":7"));
  EXPECT_THAT(*commit, HasSubstr("\"add\":{"));
  auto snapshot = internal::LoadIfExists(faults_, root_);
  ASSERT_TRUE(snapshot && *snapshot);
  EXPECT_EQ((*snapshot)->transactions().at("loader").version, 7);
}

TEST_F(CommitFunnelTest, FailingPostCommitObserverDoesNotFailTheWrite) {
  CommitHooks hooks;
  hooks.post_commit.push_back(std::make_shared<PostCommit>(&r_, true));
  auto outcome = WriteAndCommit(std::move(hooks));
  ASSERT_TRUE(outcome) << outcome.error().ToString();
  EXPECT_EQ(outcome->version, 0);
  ASSERT_EQ(outcome->hook_warnings.size(), 1u);
  EXPECT_THAT(outcome->hook_warnings[0], HasSubstr("commit hook 'event-log'"));
  EXPECT_EQ(CountDataFiles(root_), 1);
}

TEST_F(CommitFunnelTest, HookFailureNamesTheHookAndRemovesStagedFiles) {
  CommitHooks hooks;
  hooks.batch_observers.push_back(std::make_shared<Observer>("profile", &r_, true));
  auto outcome = WriteAndCommit(std::move(hooks), 2);
  ASSERT_FALSE(outcome);
  EXPECT_THAT(outcome.error().message,
              HasSubstr("input 'rows': commit hook 'profile': observer refuses row 1"));
  EXPECT_FALSE(HasVersion(0));
  EXPECT_EQ(CountDataFiles(root_), 0);
}

TEST_F(CommitFunnelTest, EnforcementErrorsAreTheWritesOwn) {
  CommitHooks hooks;
  hooks.enforcement.push_back(std::make_shared<Observer>("check", &r_, true));
  auto outcome = WriteAndCommit(std::move(hooks), 2);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().message, "input 'rows': observer refuses row 1");
  EXPECT_EQ(CountDataFiles(root_), 0);
}

TEST_F(CommitFunnelTest, WriterFailureRemovesStagedFiles) {
  faults_->FailNextMatching(".parquet", Fault::kError);
  auto outcome = WriteAndCommit({}, 3);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kIOError);
  EXPECT_FALSE(HasVersion(0));
  EXPECT_EQ(CountDataFiles(root_), 0);
}

TEST_F(CommitFunnelTest, CommitConflictRemovesStagedFiles) {
  ASSERT_TRUE(WriteAndCommit({}));  // version 0, one file
  auto loser = Open({});
  ASSERT_TRUE(loser->WriteSource(Source({Batch(10)}), ConformOptions{false, "t"}));
  ASSERT_TRUE(loser->FinishFiles());
  loser->txn().ReadWholeTable();    // a concurrent add conflicts
  ASSERT_TRUE(WriteAndCommit({}));  // version 1 wins the race
  EXPECT_EQ(CountDataFiles(root_), 3);
  OperationInfo op;
  op.operation = "WRITE";
  auto outcome = loser->Commit(op);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kCommitConflict);
  EXPECT_FALSE(HasVersion(2));
  EXPECT_EQ(CountDataFiles(root_), 2);
}

TEST_F(CommitFunnelTest, IoErrorAtTheCommitKeepsTheFiles) {
  // The outcome of the put is unknown to the writer: its files must stay.
  faults_->FailNextMatching("00000000000000000000.json", Fault::kError);
  auto outcome = WriteAndCommit({});
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kIOError);
  EXPECT_EQ(CountDataFiles(root_), 1);
}

TEST_F(CommitFunnelTest, DroppedFunnelRemovesStagedFiles) {
  {
    auto funnel = Open({});
    ASSERT_TRUE(funnel->WriteSource(Source({Batch(1)}), ConformOptions{false, "t"}));
    ASSERT_TRUE(funnel->FinishFiles());
    EXPECT_EQ(CountDataFiles(root_), 1);
  }
  EXPECT_EQ(CountDataFiles(root_), 0);
}

}  // namespace
}  // namespace deltaguard
