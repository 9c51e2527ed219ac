// WithDriftChanges (write_error.h): a refused write's schema error names the changes
// as drift classifies them, in its message and in its details; other errors pass.

#include "deltaguard/drift/write_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/drift/report.h"
#include "testing/schema_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using ::testing::HasSubstr;

DriftSide Table(std::string_view ddl) {
  DriftSide side;
  side.schema = Ddl(ddl);
  side.partition_columns = std::vector<std::string>{"id"};
  side.constraints = std::vector<std::pair<std::string, std::string>>{{"c", "id > 0"}};
  return side;
}

TEST(WriteErrorTest, SchemaErrorListsTheClassifiedChanges) {
  Error refused{ErrorCode::kSchemaMismatch, "DELTA_METADATA_MISMATCH: coupon"};
  Error e = WithDriftChanges(refused, Table("id BIGINT NOT NULL, amount INT"),
                             *Ddl("id BIGINT, amount BIGINT, coupon STRING"));
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("DELTA_METADATA_MISMATCH: coupon\nThe changes"));
  EXPECT_THAT(e.message, HasSubstr("\n  COLUMN_ADDED_NULLABLE coupon: (none) -> string "
                                   "(risk low); lets it through: mergeSchema"));
  EXPECT_THAT(e.message, HasSubstr("\n  TYPE_WIDENED amount: integer -> long"));
  // input nullability is ignored (a data input), and the write names no partitioning
  // or constraints: no NULLABILITY_*, PARTITIONING_CHANGED or CONSTRAINT_DROPPED
  EXPECT_THAT(e.message, ::testing::Not(HasSubstr("NULLABILITY")));
  EXPECT_THAT(e.message, ::testing::Not(HasSubstr("PARTITIONING")));
  EXPECT_THAT(e.message, ::testing::Not(HasSubstr("CONSTRAINT")));
  ASSERT_EQ(e.details.size(), 1u);
  EXPECT_EQ(e.details[0].first, kDriftChangesDetail);
  EXPECT_THAT(e.details[0].second, HasSubstr(R"("class":"COLUMN_ADDED_NULLABLE")"));
  EXPECT_THAT(e.details[0].second, HasSubstr(R"("class":"TYPE_WIDENED")"));
}

TEST(WriteErrorTest, OtherErrorsAndNoChangesPassUnchanged) {
  Error io{ErrorCode::kIOError, "disk"};
  Error same_io = WithDriftChanges(io, Table("id BIGINT"), *Ddl("id BIGINT, x INT"));
  EXPECT_EQ(same_io.message, "disk");
  EXPECT_TRUE(same_io.details.empty());
  Error mismatch{ErrorCode::kSchemaMismatch, "partition columns differ"};
  Error same = WithDriftChanges(mismatch, Table("id BIGINT"), *Ddl("id BIGINT"));
  EXPECT_EQ(same.message, "partition columns differ");
  EXPECT_TRUE(same.details.empty());
  DriftSide none;
  EXPECT_EQ(WithDriftChanges(mismatch, none, *Ddl("id BIGINT")).message,
            "partition columns differ");
}

}  // namespace
}  // namespace deltaguard
