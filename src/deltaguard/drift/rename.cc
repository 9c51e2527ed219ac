// Rename suspicion (COLUMN_RENAME_SUSPECTED, docs/drift.md): a column gone (or NULL in
// every new row) and one added beside it with a compatible type, scored on name
// similarity, position and value overlap. The score is evidence for a person, never a
// reason to act: the classifier still reports the removal and the addition.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "deltaguard/drift/classify_internal.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::vector<std::string> Words(std::string_view name) {
  std::vector<std::string> words;
  std::string cur;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool boundary = c == '_' || c == '-' || c == ' ' || c == '.';
    bool camel = i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
                 std::islower(static_cast<unsigned char>(name[i - 1]));
    if ((boundary || camel) && !cur.empty()) words.push_back(std::move(cur)), cur.clear();
    if (!boundary) cur += AsciiToLower(c);
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// A word equals or abbreviates another (a prefix of at least two letters).
bool WordMatches(const std::string& a, const std::string& b) {
  const std::string& s = a.size() <= b.size() ? a : b;
  const std::string& l = a.size() <= b.size() ? b : a;
  return s == l || (s.size() >= 2 && l.compare(0, s.size(), s) == 0);
}

std::optional<double> Number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

const ColumnEvidence* Find(const std::vector<ColumnEvidence>& list,
                           const std::string& path) {
  for (const auto& e : list) {
    if (EqualsIgnoreCase(e.path, path)) return &e;
  }
  return nullptr;
}

// The overlap of the old column's values with the new column's, in [0, 1], and a
// description; nullopt without evidence on both sides.
std::optional<double> ValueOverlap(const ColumnEvidence* old_values,
                                   const ColumnEvidence* new_values, std::string* text) {
  if (!old_values || !new_values) return std::nullopt;
  if (!old_values->samples.empty() && !new_values->samples.empty()) {
    std::set<std::string> old_set(old_values->samples.begin(), old_values->samples.end());
    std::set<std::string> new_set(new_values->samples.begin(), new_values->samples.end());
    size_t common = 0;
    for (const auto& v : new_set) common += old_set.count(v);
    double overlap = static_cast<double>(common) / static_cast<double>(new_set.size());
    *text = fmt::format("{} of {} sampled new values also among the old values", common,
                        new_set.size());
    return overlap;
  }
  if (!old_values->min || !old_values->max || !new_values->min || !new_values->max) {
    return std::nullopt;
  }
  const std::string &omin = *old_values->min, &omax = *old_values->max;
  const std::string &nmin = *new_values->min, &nmax = *new_values->max;
  double overlap = 0;
  auto a = Number(omin), b = Number(omax), c = Number(nmin), d = Number(nmax);
  if (a && b && c && d) {
    double inter = std::min(*b, *d) - std::max(*a, *c);
    double hull = std::max(*b, *d) - std::min(*a, *c);
    overlap = hull <= 0 ? (inter >= 0 ? 1.0 : 0.0) : std::max(0.0, inter) / hull;
  } else if (omin == nmin && omax == nmax) {
    overlap = 1.0;
  } else if (!(omax < nmin || nmax < omin)) {
    overlap = 0.5;  // text ranges intersect; their sizes are not measurable
  }
  *text = fmt::format("value ranges [{}, {}] and [{}, {}] overlap {:.2f}", omin, omax,
                      nmin, nmax, overlap);
  return overlap;
}

struct Candidate {
  std::vector<std::string> parts;
  DataTypeRef type;
  size_t index = 0;
  std::string note;  // for a column that became all-NULL
};

bool SameParent(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i + 1 < a.size(); ++i) {
    if (!EqualsIgnoreCase(a[i], b[i])) return false;
  }
  return true;
}

bool CompatibleTypes(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  if (!from.is_primitive() || !to.is_primitive()) return false;
  return ClassifyPrimitiveChange(from, to) != ChangeClass::kTypeChangedIncompatible;
}

}  // namespace

double NameSimilarity(std::string_view a, std::string_view b) {
  std::string la = AsciiToLower(a), lb = AsciiToLower(b);
  size_t longest = std::max(la.size(), lb.size());
  if (longest == 0) return 1.0;
  double edit =
      1.0 - static_cast<double>(EditDistance(la, lb)) / static_cast<double>(longest);
  std::vector<std::string> wa = Words(a), wb = Words(b);
  double words = 0;
  if (!wa.empty() && !wb.empty()) {
    const auto& shorter = wa.size() <= wb.size() ? wa : wb;
    const auto& longer = wa.size() <= wb.size() ? wb : wa;
    std::vector<bool> used(longer.size(), false);
    size_t matched = 0;
    for (const auto& w : shorter) {
      for (size_t j = 0; j < longer.size(); ++j) {
        if (!used[j] && WordMatches(w, longer[j])) {
          used[j] = true;
          ++matched;
          break;
        }
      }
    }
    words = static_cast<double>(matched) / static_cast<double>(longer.size());
  }
  return std::max(edit, words);
}

void AppendRenameSuspicions(const DriftSide& before, const DriftSide& after,
                            const std::vector<SchemaDiffEntry>& entries,
                            const DriftEvidence& evidence,
                            std::vector<DriftChange>* out) {
  (void)after;
  std::vector<Candidate> gone, added;
  for (const auto& e : entries) {
    if (e.kind == SchemaDiffEntry::Kind::kDropped) {
      gone.push_back({e.parts, e.from_type, e.from_index, ""});
    } else if (e.kind == SchemaDiffEntry::Kind::kAdded) {
      added.push_back({e.parts, e.to_type, e.to_index, ""});
    }
  }
  if (added.empty()) return;
  for (const auto& c : *out) {
    if (c.cls != ChangeClass::kColumnAllNull) continue;
    int i = before.schema->FieldIndexCaseInsensitive(c.path);
    if (i < 0) continue;
    const StructField& f = before.schema->field(static_cast<size_t>(i));
    gone.push_back(
        {{f.name},
         f.type,
         static_cast<size_t>(i),
         fmt::format("'{}' is NULL in every new row ({})", f.name, c.evidence)});
  }
  struct Scored {
    double score;
    size_t gone, added;
    std::string evidence;
  };
  std::vector<Scored> pairs;
  for (size_t g = 0; g < gone.size(); ++g) {
    for (size_t a = 0; a < added.size(); ++a) {
      const Candidate& old_c = gone[g];
      const Candidate& new_c = added[a];
      if (!SameParent(old_c.parts, new_c.parts)) continue;
      if (!CompatibleTypes(*old_c.type, *new_c.type)) continue;
      double name = NameSimilarity(old_c.parts.back(), new_c.parts.back());
      size_t distance = old_c.index > new_c.index ? old_c.index - new_c.index
                                                  : new_c.index - old_c.index;
      double position = 1.0 / (1.0 + static_cast<double>(distance));
      std::string old_path = FormatColumnPath(old_c.parts);
      std::string new_path = FormatColumnPath(new_c.parts);
      std::string value_text;
      auto values = ValueOverlap(Find(evidence.before, old_path),
                                 Find(evidence.after, new_path), &value_text);
      // Without value evidence the score stays below 0.85: names and positions alone
      // cannot tell a rename from a replacement.
      double score = values ? 0.45 * name + 0.15 * position + 0.4 * *values
                            : 0.6 * name + 0.25 * position;
      std::string text = fmt::format("name similarity {:.2f}; position {} -> {}", name,
                                     old_c.index + 1, new_c.index + 1);
      if (values) text += "; " + value_text;
      if (!old_c.note.empty()) text += "; " + old_c.note;
      pairs.push_back({score, g, a, std::move(text)});
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const Scored& x, const Scored& y) { return x.score > y.score; });
  std::vector<bool> gone_used(gone.size(), false), added_used(added.size(), false);
  for (const auto& p : pairs) {
    if (p.score < kRenameSuspicionThreshold) break;
    if (gone_used[p.gone] || added_used[p.added]) continue;
    gone_used[p.gone] = added_used[p.added] = true;
    DriftChange c;
    c.cls = ChangeClass::kColumnRenameSuspected;
    c.path = FormatColumnPath(added[p.added].parts);
    c.old_path = FormatColumnPath(gone[p.gone].parts);
    c.before = gone[p.gone].type->ToString();
    c.after = added[p.added].type->ToString();
    c.risk = ChangeClassInfoFor(c.cls).risk;
    c.backward = c.forward = Compat::kNotJudged;
    c.score = p.score;
    c.evidence = p.evidence;
    out->push_back(std::move(c));
  }
}

}  // namespace deltaguard
