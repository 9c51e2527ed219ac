#include "deltaguard/schema/ddl.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// A parsed type plus its Spark catalog spelling ("int", "varchar(5)", "struct<a:int>"),
// which is only needed for the char/varchar metadata.
struct ParsedType {
  DataTypeRef type;
  std::string catalog;
  bool has_char = false;
};

class DdlParser {
 public:
  explicit DdlParser(std::string_view text) : text_(text) {}

  Status CheckUtf8() const {
    size_t offset = 0;
    if (IsValidUtf8(text_, &offset)) return OkStatus();
    return MakeError(ErrorCode::kParseError,
                     "invalid DDL: malformed UTF-8 at position {}", offset);
  }

  Result<DataTypeRef> ParseSingleType() {
    DELTA_RETURN_IF_ERROR(CheckUtf8());
    DELTA_ASSIGN_OR_RETURN(ParsedType t, ParseType());
    DELTA_RETURN_IF_ERROR(ExpectEnd());
    return t.type;
  }

  Result<std::optional<std::string>> ParseCharVarcharType() {
    DELTA_RETURN_IF_ERROR(CheckUtf8());
    DELTA_ASSIGN_OR_RETURN(ParsedType t, ParseType());
    DELTA_RETURN_IF_ERROR(ExpectEnd());
    if (!t.has_char) return std::optional<std::string>();
    return std::optional<std::string>(std::move(t.catalog));
  }

  Result<std::vector<CharVarcharLeaf>> ParseLeaves() {
    std::vector<CharVarcharLeaf> leaves;
    leaves_ = &leaves;
    auto parsed = ParseSingleType();
    leaves_ = nullptr;
    if (!parsed) return parsed.error();
    return leaves;
  }

  Result<SchemaRef> ParseColumns() {
    DELTA_RETURN_IF_ERROR(CheckUtf8());
    std::vector<StructField> fields;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(StructField f, ParseField(/*allow_colon=*/false,
                                                       /*top_level=*/true));
      fields.push_back(std::move(f));
      SkipSpace();
      if (!Consume(',')) break;
    }
    DELTA_RETURN_IF_ERROR(ExpectEnd());
    DELTA_RETURN_IF_ERROR(CheckUnique(fields, ""));
    return std::make_shared<StructType>(std::move(fields));
  }

 private:
  // --- errors ------------------------------------------------------------------------

  Error ErrorAt(size_t pos, std::string_view expected) const {
    // Quote up to 12 bytes of what was found, not cutting a UTF-8 sequence in two.
    size_t len = std::min<size_t>(12, text_.size() - std::min(pos, text_.size()));
    while (pos + len < text_.size() &&
           (static_cast<unsigned char>(text_[pos + len]) & 0xC0) == 0x80) {
      --len;
    }
    std::string found = pos >= text_.size() ? std::string("end of input")
                                            : fmt::format("'{}'", text_.substr(pos, len));
    return MakeError(ErrorCode::kParseError,
                     "invalid DDL at position {}: expected {}, found {} (in \"{}\")", pos,
                     expected, found, text_);
  }

  // --- lexing ------------------------------------------------------------------------

  void SkipSpace() {
    while (pos_ < text_.size() && IsAsciiSpace(text_[pos_])) ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Status Expect(char c, std::string_view context) {
    if (Consume(c)) return OkStatus();
    return ErrorAt(pos_, fmt::format("'{}' {}", c, context));
  }

  Status ExpectEnd() {
    SkipSpace();
    if (pos_ == text_.size()) return OkStatus();
    return ErrorAt(pos_, "end of input");
  }

  static bool IsWordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
  }

  // The next bare word without consuming it ("" if none).
  std::string_view PeekWord() {
    SkipSpace();
    size_t end = pos_;
    while (end < text_.size() && IsWordChar(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  }

  bool ConsumeKeyword(std::string_view keyword) {
    std::string_view w = PeekWord();
    if (w.empty() || !EqualsIgnoreCase(w, keyword)) return false;
    pos_ += w.size();
    return true;
  }

  // A column or field name: a bare word or a `backtick-quoted` name.
  Result<std::string> ParseName() {
    SkipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '`') {
      std::string name;
      ++pos_;
      while (pos_ < text_.size()) {
        char c = text_[pos_++];
        if (c != '`') {
          name.push_back(c);
        } else if (pos_ < text_.size() && text_[pos_] == '`') {
          name.push_back('`');  // `` inside quotes is one backtick
          ++pos_;
        } else {
          return name;
        }
      }
      return ErrorAt(start, "a closing '`' for the quoted name");
    }
    std::string_view w = PeekWord();
    if (w.empty()) return ErrorAt(pos_, "a column name");
    pos_ += w.size();
    return std::string(w);
  }

  Result<int> ParseInt(std::string_view what) {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    int value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (start == pos_ || ec != std::errc()) {
      pos_ = start;
      return ErrorAt(start, what);
    }
    (void)ptr;
    return value;
  }

  // A 'single' or "double" quoted literal with backslash escapes; '' is a quote.
  Result<std::string> ParseStringLiteral() {
    SkipSpace();
    size_t start = pos_;
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return ErrorAt(pos_, "a quoted string after COMMENT");
    }
    char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == quote) {
        if (pos_ < text_.size() && text_[pos_] == quote) {
          out.push_back(quote);
          ++pos_;
          continue;
        }
        return out;
      }
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        switch (e) {
          case 'n':
            out.push_back('\n');
            break;
          case 't':
            out.push_back('\t');
            break;
          case 'r':
            out.push_back('\r');
            break;
          case 'b':
            out.push_back('\b');
            break;
          case '0':
            out.push_back('\0');
            break;
          default:
            out.push_back(e);
        }
        continue;
      }
      out.push_back(c);
    }
    return ErrorAt(start, "a closing quote for the string");
  }

  // --- grammar -----------------------------------------------------------------------

  Result<ParsedType> ParseType() {
    // Bound the recursion so hostile input cannot exhaust the stack: the top-level
    // type is depth 0, ARRAY<INT> has its element at depth 1.
    DepthGuard guard(&budget_);
    if (guard.exceeded()) {
      return ErrorAt(pos_, fmt::format("at most {} levels of nested types", kMaxDepth));
    }
    return ParseTypeInner();
  }

  Result<ParsedType> ParseTypeInner() {
    SkipSpace();
    size_t start = pos_;
    std::string word = AsciiToUpper(PeekWord());
    if (word.empty()) return ErrorAt(pos_, "a type name");
    pos_ += word.size();
    auto simple = [](DataTypeRef t, std::string catalog) {
      return ParsedType{std::move(t), std::move(catalog), false};
    };
    if (word == "INT" || word == "INTEGER") return simple(DataType::Integer(), "int");
    if (word == "BIGINT" || word == "LONG") return simple(DataType::Long(), "bigint");
    if (word == "SMALLINT" || word == "SHORT")
      return simple(DataType::Short(), "smallint");
    if (word == "TINYINT" || word == "BYTE") return simple(DataType::Byte(), "tinyint");
    if (word == "FLOAT" || word == "REAL") return simple(DataType::Float(), "float");
    if (word == "DOUBLE") return simple(DataType::Double(), "double");
    if (word == "STRING") return simple(DataType::String(), "string");
    if (word == "BINARY") return simple(DataType::Binary(), "binary");
    if (word == "BOOLEAN") return simple(DataType::Boolean(), "boolean");
    if (word == "DATE") return simple(DataType::Date(), "date");
    if (word == "TIMESTAMP" || word == "TIMESTAMP_LTZ") {
      return simple(DataType::Timestamp(), "timestamp");
    }
    if (word == "TIMESTAMP_NTZ") return simple(DataType::TimestampNtz(), "timestamp_ntz");
    if (word == "VARIANT") return simple(DataType::Variant(), "variant");
    if (word == "VOID") return simple(DataType::Void(), "void");
    if (word == "DECIMAL" || word == "DEC" || word == "NUMERIC")
      return ParseDecimal(start);
    if (word == "CHAR" || word == "CHARACTER" || word == "VARCHAR") {
      DELTA_RETURN_IF_ERROR(Expect('(', "after " + word));
      DELTA_ASSIGN_OR_RETURN(int length, ParseInt("a length"));
      DELTA_RETURN_IF_ERROR(Expect(')', "after the length"));
      std::string catalog =
          fmt::format("{}({})", word == "VARCHAR" ? "varchar" : "char", length);
      if (leaves_ != nullptr) {
        leaves_->push_back(CharVarcharLeaf{steps_, word != "VARCHAR", length});
      }
      return ParsedType{DataType::String(), std::move(catalog), true};
    }
    if (word == "ARRAY") {
      DELTA_RETURN_IF_ERROR(Expect('<', "after ARRAY"));
      steps_.push_back(TypeStep{TypeStep::Kind::kElement, {}});
      DELTA_ASSIGN_OR_RETURN(ParsedType element, ParseType());
      steps_.pop_back();
      DELTA_RETURN_IF_ERROR(Expect('>', "to close ARRAY<"));
      return ParsedType{std::make_shared<ArrayType>(element.type, true),
                        "array<" + element.catalog + ">", element.has_char};
    }
    if (word == "MAP") {
      DELTA_RETURN_IF_ERROR(Expect('<', "after MAP"));
      steps_.push_back(TypeStep{TypeStep::Kind::kKey, {}});
      DELTA_ASSIGN_OR_RETURN(ParsedType key, ParseType());
      steps_.back().kind = TypeStep::Kind::kValue;
      DELTA_RETURN_IF_ERROR(Expect(',', "between the MAP key and value types"));
      DELTA_ASSIGN_OR_RETURN(ParsedType value, ParseType());
      steps_.pop_back();
      DELTA_RETURN_IF_ERROR(Expect('>', "to close MAP<"));
      return ParsedType{std::make_shared<MapType>(key.type, value.type, true),
                        fmt::format("map<{},{}>", key.catalog, value.catalog),
                        key.has_char || value.has_char};
    }
    if (word == "STRUCT") return ParseStruct();
    pos_ = start;
    return ErrorAt(start,
                   "a type name (INT, BIGINT, STRING, DECIMAL(p,s), ARRAY<...>, ...)");
  }

  Result<ParsedType> ParseDecimal(size_t start) {
    int precision = 10;
    int scale = 0;
    if (Consume('(')) {
      DELTA_ASSIGN_OR_RETURN(precision, ParseInt("a decimal precision"));
      if (Consume(',')) {
        DELTA_ASSIGN_OR_RETURN(scale, ParseInt("a decimal scale"));
      }
      DELTA_RETURN_IF_ERROR(Expect(')', "to close DECIMAL("));
    }
    auto type = DecimalType::Make(precision, scale);
    if (!type) {
      return MakeError(ErrorCode::kParseError,
                       "invalid DDL at position {}: {} (in \"{}\")", start,
                       type.error().message, text_);
    }
    return ParsedType{*type, (*type)->TypeName(), false};
  }

  Result<ParsedType> ParseStruct() {
    DELTA_RETURN_IF_ERROR(Expect('<', "after STRUCT"));
    std::vector<StructField> fields;
    std::string catalog = "struct<";
    bool has_char = false;
    if (!Consume('>')) {
      while (true) {
        ParsedType field_type;
        DELTA_ASSIGN_OR_RETURN(StructField f,
                               ParseField(/*allow_colon=*/true,
                                          /*top_level=*/false, &field_type));
        if (!fields.empty()) catalog += ",";
        catalog += f.name + ":" + field_type.catalog;
        has_char = has_char || field_type.has_char;
        fields.push_back(std::move(f));
        if (Consume(',')) continue;
        DELTA_RETURN_IF_ERROR(Expect('>', "or ',' in STRUCT<"));
        break;
      }
    }
    catalog += ">";
    DELTA_RETURN_IF_ERROR(CheckUnique(fields, "STRUCT"));
    return ParsedType{std::make_shared<StructType>(std::move(fields)), std::move(catalog),
                      has_char};
  }

  // `name [:] type [NOT NULL] [COMMENT 'text']`. Spark writes the char/varchar metadata
  // on top-level columns only; nested fields just become string.
  Result<StructField> ParseField(bool allow_colon, bool top_level,
                                 ParsedType* parsed_out = nullptr) {
    StructField field;
    DELTA_ASSIGN_OR_RETURN(field.name, ParseName());
    if (allow_colon) Consume(':');
    if (!top_level) steps_.push_back(TypeStep{TypeStep::Kind::kField, field.name});
    DELTA_ASSIGN_OR_RETURN(ParsedType parsed, ParseType());
    if (!top_level) steps_.pop_back();
    field.type = parsed.type;
    std::vector<FieldMetadata::Entry> metadata;
    bool seen_not_null = false;
    bool seen_comment = false;
    while (true) {
      SkipSpace();
      size_t clause_pos = pos_;
      if (ConsumeKeyword("NOT")) {
        if (!ConsumeKeyword("NULL")) return ErrorAt(pos_, "NULL after NOT");
        // Each clause at most once, as in Spark ("Found duplicate clauses").
        if (seen_not_null) return DuplicateClause(clause_pos, "NOT NULL", field.name);
        seen_not_null = true;
        field.nullable = false;
      } else if (ConsumeKeyword("COMMENT")) {
        if (seen_comment) return DuplicateClause(clause_pos, "COMMENT", field.name);
        seen_comment = true;
        DELTA_ASSIGN_OR_RETURN(std::string comment, ParseStringLiteral());
        metadata.emplace_back(std::string(kCommentKey), JsonQuote(comment));
      } else {
        break;
      }
    }
    if (top_level && parsed.has_char) {
      metadata.emplace_back(std::string(kCharVarcharTypeKey), JsonQuote(parsed.catalog));
    }
    field.metadata = FieldMetadata(std::move(metadata));
    if (parsed_out != nullptr) *parsed_out = std::move(parsed);
    return field;
  }

  Error DuplicateClause(size_t pos, std::string_view clause,
                        std::string_view name) const {
    return MakeError(
        ErrorCode::kParseError,
        "invalid DDL at position {}: duplicate {} clause for '{}' (in \"{}\")", pos,
        clause, name, text_);
  }

  Status CheckUnique(const std::vector<StructField>& fields, std::string_view where) {
    auto dup = FindDuplicateFieldName(fields);
    if (!dup) return OkStatus();
    return MakeError(ErrorCode::kParseError,
                     "duplicate {} name '{}': conflicts case-insensitively with '{}' (in "
                     "\"{}\")",
                     where.empty() ? "column" : "STRUCT field", fields[dup->second].name,
                     fields[dup->first].name, text_);
  }

  static constexpr int kMaxDepth = kMaxTypeDepth;  // util/depth_guard.h

  std::string_view text_;
  size_t pos_ = 0;
  RecursionBudget budget_{kMaxDepth + 1};  // the top-level type is one entry
  // ParseLeaves only: the path to the type being parsed, and where leaves go.
  std::vector<TypeStep> steps_;
  std::vector<CharVarcharLeaf>* leaves_ = nullptr;
};

}  // namespace

Result<DataTypeRef> ParseDdlType(std::string_view text) {
  return DdlParser(text).ParseSingleType();
}

Result<SchemaRef> ParseDdlSchema(std::string_view text) {
  return DdlParser(text).ParseColumns();
}

Result<std::vector<CharVarcharLeaf>> ParseCharVarcharLeaves(std::string_view text) {
  return DdlParser(text).ParseLeaves();
}

Result<std::optional<std::string>> CharVarcharTypeString(std::string_view text) {
  return DdlParser(text).ParseCharVarcharType();
}

namespace {

// Spark's catalog name of a primitive type (Delta's JSON names differ for integers).
std::string CatalogName(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kLong:
      return "bigint";
    case TypeKind::kInteger:
      return "int";
    case TypeKind::kShort:
      return "smallint";
    case TypeKind::kByte:
      return "tinyint";
    default:
      return type.TypeName();
  }
}

bool SameStep(const TypeStep& a, const TypeStep& b) {
  return a.kind == b.kind &&
         (a.kind != TypeStep::Kind::kField || EqualsIgnoreCase(a.field, b.field));
}

// Spark's DataType.catalogString, with `leaves` (paths relative to `type`, `depth`
// steps consumed) spelled as CHAR/VARCHAR where they end on a string.
void AppendCatalog(const DataType& type, const std::vector<CharVarcharLeaf>& leaves,
                   bool quote_names, std::vector<TypeStep>* path, std::string* out) {
  switch (type.kind()) {
    case TypeKind::kStruct: {
      *out += "struct<";
      const auto& fields = static_cast<const StructType&>(type).fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) *out += ",";
        // Spark quotes a name only where its parser needs it.
        bool plain = !fields[i].name.empty();
        for (char c : fields[i].name) {
          plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        }
        *out += plain || !quote_names ? fields[i].name : BacktickQuote(fields[i].name);
        *out += ":";
        path->push_back(TypeStep{TypeStep::Kind::kField, fields[i].name});
        AppendCatalog(*fields[i].type, leaves, quote_names, path, out);
        path->pop_back();
      }
      *out += ">";
      return;
    }
    case TypeKind::kArray:
      *out += "array<";
      path->push_back(TypeStep{TypeStep::Kind::kElement, {}});
      AppendCatalog(*static_cast<const ArrayType&>(type).element_type(), leaves,
                    quote_names, path, out);
      path->pop_back();
      *out += ">";
      return;
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      *out += "map<";
      path->push_back(TypeStep{TypeStep::Kind::kKey, {}});
      AppendCatalog(*m.key_type(), leaves, quote_names, path, out);
      *out += ",";
      path->back().kind = TypeStep::Kind::kValue;
      AppendCatalog(*m.value_type(), leaves, quote_names, path, out);
      path->pop_back();
      *out += ">";
      return;
    }
    default:
      break;
  }
  if (type.kind() == TypeKind::kString) {
    for (const CharVarcharLeaf& leaf : leaves) {
      if (leaf.steps.size() != path->size() ||
          !std::equal(leaf.steps.begin(), leaf.steps.end(), path->begin(), SameStep)) {
        continue;
      }
      *out += fmt::format("{}({})", leaf.is_char ? "char" : "varchar", leaf.length);
      return;
    }
  }
  *out += CatalogName(type);
}

}  // namespace

std::string CatalogTypeString(const DataType& type,
                              const std::vector<CharVarcharLeaf>& leaves,
                              bool quote_names) {
  std::string out;
  std::vector<TypeStep> path;
  AppendCatalog(type, leaves, quote_names, &path, &out);
  return out;
}

namespace {

/// A column name as DDL reads it back: backquoted (a backquote doubled) unless it is a
/// plain identifier.
std::string DdlName(const std::string& name) {
  bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  }
  return plain ? name : BacktickQuote(name);
}

}  // namespace

std::string SchemaToDdl(const StructType& schema) {
  std::string out;
  for (const auto& f : schema.fields()) {
    if (!out.empty()) out += ", ";
    out += DdlName(f.name) + " ";
    std::optional<std::string> declared = f.metadata.GetString(kCharVarcharTypeKey);
    out += declared ? *declared : CatalogTypeString(*f.type);
    if (!f.nullable) out += " NOT NULL";
    if (auto comment = f.comment()) {
      out += " COMMENT '";
      for (char c : *comment) {
        if (c == '\\' || c == '\'') out += '\\';
        out += c;
      }
      out += "'";
    }
  }
  return out;
}

}  // namespace deltaguard
