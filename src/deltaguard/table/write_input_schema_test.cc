// The Delta schema a producer passes beside the Arrow one (BatchSource::delta_schema)
// is the one WriteTable and ReplaceTable use: what Arrow cannot carry (a VARCHAR(n)
// length, a column comment) reaches the table only that way.

#include <arrow/record_batch.h>
#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

constexpr char kDeclared[] = "code VARCHAR(3) COMMENT 'ISO code', n BIGINT";

// One batch of rows in the Arrow types of `kDeclared`, with its Delta schema beside.
BatchSource DeclaredSource() {
  SchemaRef declared = Ddl(kDeclared);
  auto batch = testing::Rows(declared, R"([{"code":"DE","n":1},{"code":"US","n":2}])");
  auto reader = arrow::RecordBatchReader::Make({batch}, batch->schema());
  EXPECT_TRUE(reader.ok());
  BatchSource source = SourceFromReader("declared", *reader);
  source.delta_schema = declared;
  return source;
}

// The created table's first column: VARCHAR(3) and its comment, kept.
void ExpectDeclaredColumn(const std::string& path) {
  auto snapshot = OpenSnapshot(path);
  ASSERT_TRUE(snapshot) << snapshot.error().ToString();
  const StructField& code = (*snapshot)->schema()->field(0);
  EXPECT_EQ(code.metadata.GetString(kCharVarcharTypeKey), "varchar(3)");
  EXPECT_EQ(code.metadata.GetString("comment"), "ISO code");
}

TEST(WriteInputSchemaTest, WriteTableCreatesTheTableFromTheSuppliedSchema) {
  TempDir dir;
  std::vector<BatchSource> sources;
  sources.push_back(DeclaredSource());
  auto written = WriteTable(MakeLocalFileSystem(), dir.Join("t"), std::move(sources), {});
  ASSERT_TRUE(written) << written.error().ToString();
  EXPECT_TRUE(written->created);
  ExpectDeclaredColumn(dir.Join("t"));
}

TEST(WriteInputSchemaTest, ReplaceTableAsSelectTakesTheSuppliedSchema) {
  TempDir dir;
  auto replaced = ReplaceTable(MakeLocalFileSystem(), dir.Join("t"), CreateTableOptions{},
                               DeclaredSource(), "CREATE OR REPLACE TABLE AS SELECT");
  ASSERT_TRUE(replaced) << replaced.error().ToString();
  EXPECT_EQ(replaced->rows, 2);
  ExpectDeclaredColumn(dir.Join("t"));
}

}  // namespace
}  // namespace deltaguard
