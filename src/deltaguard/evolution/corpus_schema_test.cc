// Write-schema resolution over every schema found in the shared corpora
// ($DELTAGUARD_CORPORA): each metaData.schemaString of every JSON commit, read directly
// from the _delta_log so that tables with checkpoints and unsupported features count too.
//  - a table's own schema, written back with upper-cased names and all-nullable types,
//    leaves the table unchanged (same object), with and without evolution;
//  - SchemaForNewTable accepts it unless it holds a void type;
//  - its partition columns pass CheckPartitionColumns.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "deltaguard/evolution/write_checks.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

struct CorpusSchema {
  std::string where;  // commit file path
  SchemaRef schema;
  std::vector<std::string> partition_columns;
};

DataTypeRef UpperCased(const DataTypeRef& type) {
  switch (type->kind()) {
    case TypeKind::kStruct: {
      std::vector<StructField> fields;
      for (const StructField& f : static_cast<const StructType&>(*type).fields()) {
        fields.push_back(StructField{AsciiToUpper(f.name), UpperCased(f.type), f.nullable,
                                     FieldMetadata()});
      }
      return std::make_shared<StructType>(std::move(fields));
    }
    case TypeKind::kArray: {
      const auto& a = static_cast<const ArrayType&>(*type);
      return std::make_shared<ArrayType>(UpperCased(a.element_type()), true);
    }
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(*type);
      return std::make_shared<MapType>(UpperCased(m.key_type()),
                                       UpperCased(m.value_type()), true);
    }
    default:
      return type;
  }
}

bool HasVoid(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kVoid:
      return true;
    case TypeKind::kStruct:
      for (const StructField& f : static_cast<const StructType&>(type).fields()) {
        if (HasVoid(*f.type)) return true;
      }
      return false;
    case TypeKind::kArray:
      return HasVoid(*static_cast<const ArrayType&>(type).element_type());
    case TypeKind::kMap:
      return HasVoid(*static_cast<const MapType&>(type).key_type()) ||
             HasVoid(*static_cast<const MapType&>(type).value_type());
    default:
      return false;
  }
}

std::vector<CorpusSchema> LoadCorpusSchemas(const std::string& root) {
  std::vector<CorpusSchema> out;
  namespace fs = std::filesystem;
  for (auto it = fs::recursive_directory_iterator(root);
       it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    if (p.extension() != ".json" || p.parent_path().filename() != "_delta_log") continue;
    std::ifstream in(p);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find("\"metaData\"") == std::string::npos) continue;
      rapidjson::Document doc;
      doc.Parse(line.c_str());
      if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("metaData")) continue;
      const auto& md = doc["metaData"];
      if (!md.IsObject() || !md.HasMember("schemaString") ||
          !md["schemaString"].IsString())
        continue;
      auto schema = ParseSchemaJson(md["schemaString"].GetString());
      if (!schema) continue;  // unparseable on purpose (corrupt-table fixtures)
      CorpusSchema cs{p.string(), *schema, {}};
      if (md.HasMember("partitionColumns") && md["partitionColumns"].IsArray()) {
        for (const auto& c : md["partitionColumns"].GetArray()) {
          if (c.IsString()) cs.partition_columns.push_back(c.GetString());
        }
      }
      out.push_back(std::move(cs));
    }
  }
  return out;
}

TEST(CorpusSchemaTest, OwnSchemaWritesBackUnchanged) {
  const char* dir = std::getenv("DELTAGUARD_CORPORA");
  if (dir == nullptr || !std::ifstream(std::string(dir) + "/INDEX.json")) {
    GTEST_SKIP() << "DELTAGUARD_CORPORA not set or has no INDEX.json";
  }
  const std::vector<CorpusSchema> schemas = LoadCorpusSchemas(dir);
  ASSERT_GT(schemas.size(), 150u);
  int partitioned = 0, with_void = 0;
  for (const CorpusSchema& cs : schemas) {
    SCOPED_TRACE(cs.where);
    auto input = std::static_pointer_cast<const StructType>(UpperCased(cs.schema));
    for (bool merge : {false, true}) {
      WriteSchemaOptions o;
      o.merge_schema = merge;
      o.allow_type_widening = merge;
      auto r = ResolveWriteSchema(cs.schema, *input, o, cs.where);
      ASSERT_TRUE(r) << r.error().ToString();
      EXPECT_EQ(r->table_schema.get(), cs.schema.get());
      EXPECT_FALSE(r->changed);
      EXPECT_TRUE(r->missing_columns.empty());
    }
    auto created = SchemaForNewTable(*cs.schema, cs.where);
    if (HasVoid(*cs.schema)) {
      EXPECT_FALSE(created);
      ++with_void;
    } else {
      ASSERT_TRUE(created) << created.error().ToString();
      EXPECT_EQ((*created)->num_fields(), cs.schema->num_fields());
      EXPECT_EQ(MakeNullable(*created).get(), created->get());
    }
    if (!cs.partition_columns.empty()) {
      auto p = CheckPartitionColumns(*cs.schema, cs.partition_columns);
      ASSERT_TRUE(p) << p.error().ToString();
      EXPECT_EQ(*p, cs.partition_columns);
      ++partitioned;
    }
  }
  EXPECT_GT(partitioned, 10);
  RecordProperty("schemas", static_cast<int>(schemas.size()));
  RecordProperty("with_void", with_void);
}

}  // namespace
}  // namespace deltaguard
