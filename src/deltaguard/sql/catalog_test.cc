#include "deltaguard/sql/catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/table/write.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace deltaguard {
namespace {

namespace stdfs = std::filesystem;

TableRef Name(std::vector<std::string> parts) {
  TableRef ref;
  ref.kind = TableRef::Kind::kName;
  ref.parts = std::move(parts);
  return ref;
}

class CatalogTest : public ::testing::Test {
 protected:
  CatalogTest() : fs_(MakeLocalFileSystem()), catalog_(fs_, dir_.Join("wh")) {}

  // Create a Delta table at the resolved location.
  void MakeTable(const ResolvedTable& table) {
    CreateTableOptions options;
    options.schema = *ParseDdlSchema("id INT");
    auto created = CreateTable(fs_, table.path, options);
    ASSERT_TRUE(created) << created.error().ToString();
  }

  ResolvedTable Resolve(std::vector<std::string> parts) {
    auto r = catalog_.Resolve(Name(std::move(parts)), "default");
    EXPECT_TRUE(r) << r.error().ToString();
    return r ? *r : ResolvedTable{};
  }

  testing::TempDir dir_;
  FileSystemRef fs_;
  Catalog catalog_;
};

TEST_F(CatalogTest, DefaultDatabaseIsTheWarehouseItself) {
  ResolvedTable t = Resolve({"Orders"});
  EXPECT_EQ(t.path, dir_.Join("wh/orders"));
  EXPECT_EQ(t.display, "orders");
  EXPECT_EQ(t.database, "default");
  EXPECT_EQ(t.name, "orders");
  EXPECT_TRUE(t.managed);
  EXPECT_FALSE(t.exists);
  ResolvedTable qualified = Resolve({"DEFAULT", "orders"});
  EXPECT_EQ(qualified.path, t.path);
  EXPECT_EQ(qualified.display, "default.orders");
  MakeTable(t);
  EXPECT_TRUE(Resolve({"orders"}).exists);
}

TEST_F(CatalogTest, RelativeWarehouseIsMadeAbsolute) {
  Catalog relative(fs_, "warehouse");
  EXPECT_EQ(relative.warehouse(), (stdfs::current_path() / "warehouse").string());
}

TEST_F(CatalogTest, BadNamesAndMissingDatabases) {
  auto missing = catalog_.Resolve(Name({"silver", "orders"}), "default");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("database 'silver' does not exist"));
  auto three = catalog_.Resolve(Name({"a", "b", "c"}), "default");
  ASSERT_FALSE(three);
  EXPECT_EQ(three.error().code, ErrorCode::kInvalidArgument);
  auto current = catalog_.Resolve(Name({"t"}), "gold");
  ASSERT_FALSE(current);
  EXPECT_THAT(current.error().message, HasSubstr("'gold'"));
  EXPECT_FALSE(catalog_.CreateDatabase("../escape", false, std::nullopt));
}

TEST_F(CatalogTest, DatabasesAreDotDbDirectories) {
  ASSERT_TRUE(catalog_.CreateDatabase("Silver", false, std::nullopt));
  EXPECT_TRUE(stdfs::is_directory(dir_.Join("wh/silver.db")));
  EXPECT_TRUE(catalog_.DatabaseExists("SILVER"));
  auto again = catalog_.CreateDatabase("silver", false, std::nullopt);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
  EXPECT_TRUE(catalog_.CreateDatabase("silver", true, std::nullopt));
  EXPECT_TRUE(catalog_.CreateDatabase("default", true, std::nullopt));
  EXPECT_TRUE(catalog_.CreateDatabase("gold", false, dir_.Join("wh/gold.db")));
  auto elsewhere = catalog_.CreateDatabase("bronze", false, dir_.Join("elsewhere"));
  ASSERT_FALSE(elsewhere);
  EXPECT_EQ(elsewhere.error().code, ErrorCode::kUnsupportedFeature);
  auto dbs = catalog_.ListDatabases();
  ASSERT_TRUE(dbs);
  EXPECT_THAT(*dbs, ElementsAre("default", "gold", "silver"));
  ResolvedTable t = Resolve({"Silver", "Orders"});
  EXPECT_EQ(t.path, dir_.Join("wh/silver.db/orders"));
  EXPECT_EQ(t.display, "silver.orders");
  auto in_current = catalog_.Resolve(Name({"orders"}), "silver");
  ASSERT_TRUE(in_current);
  EXPECT_EQ(in_current->path, t.path);
}

TEST_F(CatalogTest, ListTablesShowsManagedAndExternalTables) {
  ASSERT_TRUE(catalog_.CreateDatabase("silver", false, std::nullopt));
  MakeTable(Resolve({"b_orders"}));
  MakeTable(Resolve({"silver", "items"}));
  stdfs::create_directories(dir_.Join("wh/not_a_table"));
  ResolvedTable ext = Resolve({"a_ext"});
  ASSERT_TRUE(catalog_.RegisterExternal(ext, dir_.Join("data/ext")));
  auto tables = catalog_.ListTables("default");
  ASSERT_TRUE(tables);
  EXPECT_THAT(*tables, ElementsAre("a_ext", "b_orders"));  // silver.db is a database
  auto silver = catalog_.ListTables("SILVER");
  ASSERT_TRUE(silver);
  EXPECT_THAT(*silver, ElementsAre("items"));
  auto none = catalog_.ListTables("nope");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
}

TEST_F(CatalogTest, ExternalTablesAreRegisteredByName) {
  ResolvedTable t = Resolve({"ext"});
  std::string location = dir_.Join("data/ext");
  ASSERT_TRUE(catalog_.RegisterExternal(t, location));
  EXPECT_TRUE(stdfs::exists(dir_.Join("wh/_deltaguard_external.json")));
  ResolvedTable resolved = Resolve({"EXT"});
  EXPECT_EQ(resolved.path, location);
  EXPECT_FALSE(resolved.managed);
  EXPECT_FALSE(resolved.exists);
  MakeTable(resolved);
  EXPECT_TRUE(Resolve({"ext"}).exists);
  EXPECT_TRUE(catalog_.RegisterExternal(t, location));  // same location: no-op
  auto taken = catalog_.RegisterExternal(t, dir_.Join("data/other"));
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, ErrorCode::kAlreadyExists);
  EXPECT_THAT(taken.error().message, HasSubstr("data/ext"));
  // A managed table's name cannot be registered elsewhere.
  MakeTable(Resolve({"managed"}));
  auto managed = catalog_.RegisterExternal(Resolve({"managed"}), dir_.Join("data/m"));
  ASSERT_FALSE(managed);
  EXPECT_EQ(managed.error().code, ErrorCode::kAlreadyExists);
  // DROP TABLE forgets the name and keeps the data.
  ASSERT_TRUE(catalog_.DropTable(Resolve({"ext"})));
  EXPECT_TRUE(stdfs::exists(location + "/_delta_log"));
  ResolvedTable after = Resolve({"ext"});
  EXPECT_TRUE(after.managed);
  EXPECT_FALSE(after.exists);
}

TEST_F(CatalogTest, DropTableDeletesManagedDirectory) {
  ResolvedTable t = Resolve({"orders"});
  MakeTable(t);
  stdfs::create_directories(t.path + "/p=1");
  std::ofstream(t.path + "/p=1/part-0.parquet") << "x";
  ASSERT_TRUE(catalog_.DropTable(Resolve({"orders"})));
  EXPECT_FALSE(stdfs::exists(t.path));
  EXPECT_TRUE(stdfs::exists(dir_.Join("wh")));
  auto again = catalog_.DropTable(Resolve({"orders"}));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kNotFound);
  TableRef path;
  path.kind = TableRef::Kind::kPath;
  path.path = dir_.Join("somewhere");
  auto resolved = catalog_.Resolve(path, "default");
  ASSERT_TRUE(resolved);
  EXPECT_EQ(resolved->path, dir_.Join("somewhere"));
  EXPECT_TRUE(resolved->name.empty());
  EXPECT_FALSE(catalog_.DropTable(*resolved));
}

TEST_F(CatalogTest, DropDatabaseNeedsCascadeWhenNotEmpty) {
  ASSERT_TRUE(catalog_.CreateDatabase("silver", false, std::nullopt));
  MakeTable(Resolve({"silver", "orders"}));
  ASSERT_TRUE(catalog_.RegisterExternal(Resolve({"silver", "ext"}), dir_.Join("data/e")));
  MakeTable(Resolve({"silver", "ext"}));
  auto refused = catalog_.DropDatabase("silver", false, false);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("CASCADE"));
  EXPECT_THAT(refused.error().message, HasSubstr("orders"));
  ASSERT_TRUE(catalog_.DropDatabase("SILVER", false, true));
  EXPECT_FALSE(stdfs::exists(dir_.Join("wh/silver.db")));
  EXPECT_TRUE(stdfs::exists(dir_.Join("data/e/_delta_log")));  // external data stays
  EXPECT_FALSE(catalog_.DatabaseExists("silver"));
  EXPECT_TRUE(catalog_.DropDatabase("silver", true, false));
  auto missing = catalog_.DropDatabase("silver", false, false);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  auto default_db = catalog_.DropDatabase("default", false, true);
  ASSERT_FALSE(default_db);
  EXPECT_EQ(default_db.error().code, ErrorCode::kInvalidArgument);
  ASSERT_TRUE(catalog_.CreateDatabase("empty", false, std::nullopt));
  EXPECT_TRUE(catalog_.DropDatabase("empty", false, false));
}

TEST(CatalogFileSystemTest, ListingAndDroppingGoThroughTheFileSystem) {
  // Every catalog access is an op of the FileSystem it was given, so a fault injected
  // there fails the statement (and object storage needs only another FileSystem).
  deltaguard::testing::TempDir dir;
  auto fault = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem(),
                                                          /*count_reads=*/true);
  Catalog catalog(fault, dir.Join("wh"));
  ASSERT_TRUE(catalog.CreateDatabase("silver", false, std::nullopt));
  CreateTableOptions options;
  options.schema = *ParseDdlSchema("id INT");
  ASSERT_TRUE(CreateTable(fault, dir.Join("wh/silver.db/orders"), options));
  auto dbs = catalog.ListDatabases();
  ASSERT_TRUE(dbs) << dbs.error().ToString();
  EXPECT_THAT(*dbs, ElementsAre("default", "silver"));
  const auto logged = [&](const std::string& op) {
    for (const std::string& o : fault->ops()) {
      if (o.starts_with(op)) return true;
    }
    return false;
  };
  EXPECT_TRUE(logged("list_dirs " + dir.Join("wh")));

  fault->FailNextMatching("silver.db/orders/_delta_log", Fault::kError);
  auto failed = catalog.DropDatabase("silver", false, true);
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr("injected"));
  ASSERT_TRUE(catalog.DropDatabase("silver", false, true));
  EXPECT_TRUE(logged("delete_dir " + dir.Join("wh/silver.db/orders/_delta_log")));
  EXPECT_FALSE(stdfs::exists(dir.Join("wh/silver.db")));
}

}  // namespace
}  // namespace deltaguard
