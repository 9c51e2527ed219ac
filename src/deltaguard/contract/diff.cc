// DiffContracts (contract/diff.h): schema changes through the drift classifier with
// identities as column-mapping ids, then the contract-only changes per property and
// rule, then the verdict and the version rule.

#include "deltaguard/contract/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "deltaguard/contract/contract_schema.h"
#include "deltaguard/drift/classify.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using PropertyMap = std::map<std::string, const ContractProperty*>;

// Properties of `props` at every depth by identity key, with their column paths.
void IndexProperties(const std::vector<ContractProperty>& props,
                     const std::string& parent, PropertyMap* out,
                     std::map<std::string, std::string>* paths) {
  for (const auto& p : props) {
    std::string path = parent.empty() ? p.name : parent + "." + p.name;
    std::string key = ContractIdentities::KeyOf(p);
    (*out)[key] = &p;
    (*paths)[key] = path;
    IndexProperties(p.properties, path, out, paths);
    for (const auto& item : p.items)
      IndexProperties(item.properties, path + ".element", out, paths);
  }
}

// The new property matching old `key`: same key, or one whose alias names the old
// property's name.
const ContractProperty* Match(const std::string& key, const ContractProperty& old,
                              const PropertyMap& after) {
  auto it = after.find(key);
  if (it != after.end()) return it->second;
  for (const auto& [k, p] : after) {
    for (const auto& alias : p->aliases) {
      if (EqualsIgnoreCase(alias, old.name)) return p;
    }
  }
  return nullptr;
}

std::string Opt(const std::optional<std::string>& v) { return v.value_or(""); }
std::string Opt(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}

class Differ {
 public:
  Differ(const Contract& before, const Contract& after, ContractDiff* out)
      : before_(before), after_(after), out_(out) {}

  Status Run() {
    for (const auto& o : before_.schema) {
      const ContractObject* n = FindObject(after_, o);
      if (n == nullptr) {
        Add({"OBJECT_REMOVED", o.name, "", "", o.name, "", Risk::kHigh, Compat::kBreak,
             Compat::kBreak, "consumers of the object lose it"});
        continue;
      }
      DELTA_RETURN_IF_ERROR(Object(o, *n));
    }
    for (const auto& n : after_.schema) {
      if (FindObject(before_, n) == nullptr) {
        Add({"OBJECT_ADDED", n.name, "", "", "", n.name, Risk::kLow, Compat::kOk,
             Compat::kOk, ""});
      }
    }
    Settings();
    return OkStatus();
  }

 private:
  static const ContractObject* FindObject(const Contract& c, const ContractObject& o) {
    for (const auto& x : c.schema) {
      if (!o.id.empty() && x.id == o.id) return &x;
    }
    for (const auto& x : c.schema) {
      if (EqualsIgnoreCase(x.name, o.name)) return &x;
    }
    return nullptr;
  }

  void Add(ContractChange c) { out_->changes.push_back(std::move(c)); }

  Status Object(const ContractObject& o, const ContractObject& n) {
    ContractIdentities ids;
    ids.AddBefore(o.properties);
    DELTA_ASSIGN_OR_RETURN(DriftSide before, ContractDriftSide(o, &ids, false));
    DELTA_ASSIGN_OR_RETURN(DriftSide after, ContractDriftSide(n, &ids, true));
    for (auto& c : ClassifyDrift(before, after)) {
      ContractChange row{std::string(ChangeClassName(c.cls)),
                         n.name,
                         c.path,
                         c.old_path,
                         c.before,
                         c.after,
                         c.risk,
                         c.backward,
                         c.forward,
                         ""};
      row.reason = c.backward == Compat::kBreak ? c.backward_reason : c.forward_reason;
      Add(std::move(row));
    }
    PropertyMap old_props, new_props;
    std::map<std::string, std::string> old_paths, new_paths;
    IndexProperties(o.properties, "", &old_props, &old_paths);
    IndexProperties(n.properties, "", &new_props, &new_paths);
    for (const auto& [key, p] : old_props) {
      const ContractProperty* q = Match(key, *p, new_props);
      if (q == nullptr) continue;  // removed: a schema change above
      std::string path = new_paths[ContractIdentities::KeyOf(*q)];
      Property(n.name, path, *p, *q);
    }
    Rules(o, n);
    return OkStatus();
  }

  void Constraint(const std::string& object, const std::string& path,
                  const std::string& what, const std::string& before,
                  const std::string& after, bool tightened) {
    if (before == after) return;
    if (tightened) {
      Add({"CONSTRAINT_TIGHTENED", object, path, "", what + " " + before,
           what + " " + after, Risk::kHigh, Compat::kBreak, Compat::kOk,
           "data written under the old contract may violate " + what + " " + after});
    } else {
      Add({"CONSTRAINT_RELAXED", object, path, "", what + " " + before,
           what + " " + after, Risk::kLow, Compat::kOk, Compat::kBreak,
           "consumers relying on " + what + " " + before + " may see values outside it"});
    }
  }

  // A bound: added or moved inward tightens; removed or moved outward relaxes.
  void Bound(const std::string& object, const std::string& path, const std::string& what,
             const std::string& before, const std::string& after, bool upper) {
    if (before == after) return;
    bool tightened;
    if (before.empty()) {
      tightened = true;
    } else if (after.empty()) {
      tightened = false;
    } else {
      char* end_a = nullptr;
      char* end_b = nullptr;
      double a = std::strtod(before.c_str(), &end_a);
      double b = std::strtod(after.c_str(), &end_b);
      bool numeric = *end_a == '\0' && *end_b == '\0';
      // Dates and timestamps compare as ISO text.
      tightened =
          numeric ? (upper ? b < a : b > a) : (upper ? after < before : after > before);
    }
    Constraint(object, path, what, before.empty() ? "(none)" : before,
               after.empty() ? "(none)" : after, tightened);
  }

  void Property(const std::string& object, const std::string& path,
                const ContractProperty& p, const ContractProperty& q) {
    if (p.unique != q.unique || p.primary_key != q.primary_key) {
      auto keys = [](const ContractProperty& x) {
        std::string s = x.primary_key ? "primaryKey" : "";
        if (x.unique) s += std::string(s.empty() ? "" : ", ") + "unique";
        return s.empty() ? std::string("(none)") : s;
      };
      bool added = (q.unique && !p.unique) || (q.primary_key && !p.primary_key);
      Add({"KEY_CHANGED", object, path, "", keys(p), keys(q), Risk::kHigh,
           added ? Compat::kBreak : Compat::kOk, added ? Compat::kOk : Compat::kBreak,
           added ? "data written under the old contract may hold duplicates"
                 : "consumers relying on the key may see duplicates"});
    }
    Bound(object, path, "maxLength", Opt(p.max_length), Opt(q.max_length), true);
    Bound(object, path, "minLength", Opt(p.min_length), Opt(q.min_length), false);
    Bound(object, path, "maximum", Opt(p.maximum), Opt(q.maximum), true);
    Bound(object, path, "minimum", Opt(p.minimum), Opt(q.minimum), false);
    Bound(object, path, "exclusiveMaximum", Opt(p.exclusive_maximum),
          Opt(q.exclusive_maximum), true);
    Bound(object, path, "exclusiveMinimum", Opt(p.exclusive_minimum),
          Opt(q.exclusive_minimum), false);
    if (p.pattern != q.pattern) {
      if (!q.pattern) {
        Constraint(object, path, "pattern", *p.pattern, "(none)", false);
      } else {
        Constraint(object, path, "pattern", p.pattern ? *p.pattern : "(none)", *q.pattern,
                   true);
      }
    }
    if (p.classification != q.classification || p.critical != q.critical) {
      Add({"GOVERNANCE_CHANGED", object, path, "",
           p.classification + (p.critical ? " (critical)" : ""),
           q.classification + (q.critical ? " (critical)" : ""),
           p.classification.empty() ? Risk::kLow : Risk::kHigh, Compat::kOk, Compat::kOk,
           ""});
    }
  }

  static std::string RuleKey(const QualityRule& r) {
    if (!r.id.empty()) return "id:" + r.id;
    return fmt::format("{}:{}:{}:{}", r.type, r.metric, AsciiToLower(r.property),
                       r.query);
  }

  static std::vector<const QualityRule*> AllRules(const ContractObject& o) {
    std::vector<const QualityRule*> out;
    for (const auto& r : o.quality) out.push_back(&r);
    std::vector<const std::vector<ContractProperty>*> stack{&o.properties};
    while (!stack.empty()) {
      const auto* props = stack.back();
      stack.pop_back();
      for (const auto& p : *props) {
        for (const auto& r : p.quality) out.push_back(&r);
        stack.push_back(&p.properties);
        for (const auto& item : p.items) stack.push_back(&item.properties);
      }
    }
    return out;
  }

  void Rules(const ContractObject& o, const ContractObject& n) {
    std::map<std::string, const QualityRule*> before, after;
    for (const auto* r : AllRules(o)) before[RuleKey(*r)] = r;
    for (const auto* r : AllRules(n)) after[RuleKey(*r)] = r;
    for (const auto& [key, r] : before) {
      std::string name = r->id.empty() ? r->metric : r->id;
      auto it = after.find(key);
      if (it == after.end()) {
        Add({"QUALITY_RULE_REMOVED", n.name, name, "", Describe(*r), "", Risk::kHigh,
             Compat::kOk, Compat::kOk, ""});
        continue;
      }
      const QualityRule& q = *it->second;
      ValidValues(n.name, q.property, *r, q);
      if (r->op != q.op || r->operands != q.operands || r->unit != q.unit ||
          r->severity != q.severity || r->query != q.query || r->pattern != q.pattern) {
        Add({"QUALITY_RULE_CHANGED", n.name, name, "", Describe(*r), Describe(q),
             Risk::kLow, Compat::kOk, Compat::kOk, ""});
      }
    }
    for (const auto& [key, r] : after) {
      if (!before.count(key)) {
        Add({"QUALITY_RULE_ADDED", n.name, r->id.empty() ? r->metric : r->id, "", "",
             Describe(*r), Risk::kLow, Compat::kOk, Compat::kOk, ""});
      }
    }
  }

  static std::string Describe(const QualityRule& r) {
    std::string what = r.type == "library" ? r.metric : r.type;
    if (!r.property.empty()) what += " of " + r.property;
    return fmt::format("{} {} ({})", what, r.ComparisonText(), r.severity);
  }

  // invalidValues rules: accepted values added relax the contract (consumers' CASE
  // expressions meet a value they do not know); removed ones tighten it.
  void ValidValues(const std::string& object, const std::string& path,
                   const QualityRule& r, const QualityRule& q) {
    if (r.metric != "invalidValues" || q.metric != "invalidValues") return;
    std::set<std::string> a(r.valid_values.begin(), r.valid_values.end());
    std::set<std::string> b(q.valid_values.begin(), q.valid_values.end());
    for (const auto& v : b) {
      if (!a.count(v)) {
        Add({"ENUM_VALUE_ADDED", object, path, "", "", v, Risk::kHigh, Compat::kOk,
             Compat::kBreak,
             fmt::format("consumers that map each accepted value meet '{}'", v)});
      }
    }
    for (const auto& v : a) {
      if (!b.count(v)) {
        Add({"ENUM_VALUE_REMOVED", object, path, "", v, "", Risk::kHigh, Compat::kBreak,
             Compat::kOk,
             fmt::format("data written under the old contract may hold '{}'", v)});
      }
    }
  }

  void Settings() {
    auto setting = [&](const std::string& name, const std::string& a,
                       const std::string& b) {
      if (a != b) {
        Add({"SETTING_CHANGED", "", name, "", a, b, Risk::kLow, Compat::kOk, Compat::kOk,
             ""});
      }
    };
    setting("medallionLayer", std::string(MedallionLayerName(before_.layer)),
            std::string(MedallionLayerName(after_.layer)));
    setting("compatibility", std::string(CompatModeName(EffectiveCompatibility(before_))),
            std::string(CompatModeName(EffectiveCompatibility(after_))));
    setting("castPolicy", before_.cast_policy == CastPolicy::kTry ? "try" : "strict",
            after_.cast_policy == CastPolicy::kTry ? "try" : "strict");
    setting("status", before_.status, after_.status);
  }

  const Contract& before_;
  const Contract& after_;
  ContractDiff* out_;
};

CompatMode PlainMode(CompatMode mode) {
  switch (mode) {
    case CompatMode::kBackwardTransitive:
      return CompatMode::kBackward;
    case CompatMode::kForwardTransitive:
      return CompatMode::kForward;
    case CompatMode::kFullTransitive:
      return CompatMode::kFull;
    default:
      return mode;
  }
}

void Migration(const Contract& after, ContractDiff* d) {
  auto major = ParseSemVer(after.version);
  int64_t next = major ? major->major + 1 : 2;
  std::set<std::string> seen;
  for (const auto& c : d->changes) {
    if (!c.breaks) continue;
    std::string line;
    std::string v2 =
        fmt::format("{}_v{}", c.object.empty() ? after.name : c.object, next);
    if (c.cls == "COLUMN_REMOVED") {
      line = fmt::format(
          "{}: keep '{}' beside its replacement with a deprecation date until consumers "
          "move, then remove it in a major version; or publish {} and retire the old "
          "table on an announced date",
          c.cls, c.path, v2);
    } else if (c.cls == "COLUMN_RENAMED") {
      line = fmt::format(
          "{}: add '{}' beside '{}' (both filled) and deprecate '{}' with a date; or "
          "publish {}",
          c.cls, c.path, c.old_path, c.old_path, v2);
    } else if (c.cls.rfind("TYPE_", 0) == 0) {
      line = fmt::format(
          "{}: add a column with the new type beside '{}' and deprecate the old one; or "
          "publish {}",
          c.cls, c.path, v2);
    } else {
      line = fmt::format(
          "{} {}: bump the major version to {}.0.0 and announce it; or "
          "publish {}",
          c.cls, c.path, next, v2);
    }
    if (seen.insert(line).second) d->migration.push_back(std::move(line));
  }
}

void Judge(const Contract& before, const Contract& after, ContractDiff* d) {
  CompatMode plain = PlainMode(d->mode);
  for (auto& c : d->changes) {
    bool back = ChecksBackward(plain) && c.backward == Compat::kBreak;
    bool fwd = ChecksForward(plain) && c.forward == Compat::kBreak;
    c.breaks = back || fwd;
    if (c.breaks && c.reason.empty())
      c.reason = back ? "breaks BACKWARD" : "breaks FORWARD";
    d->compatible &= !c.breaks;
  }
  auto old_v = ParseSemVer(before.version);
  auto new_v = ParseSemVer(after.version);
  if (!old_v || !new_v) {
    d->fails = true;
    d->problems.push_back(fmt::format("versions '{}' -> '{}' are not semantic versions",
                                      before.version, after.version));
    return;
  }
  auto tuple = [](const SemVer& v) { return std::make_tuple(v.major, v.minor, v.patch); };
  d->major_bump = new_v->major > old_v->major;
  if (tuple(*new_v) < tuple(*old_v)) {
    d->fails = true;
    d->problems.push_back(fmt::format("the version went backwards: {} -> {}",
                                      before.version, after.version));
  }
  if (!d->compatible && !d->major_bump) {
    d->fails = true;
    size_t n = static_cast<size_t>(std::count_if(d->changes.begin(), d->changes.end(),
                                                 [](const auto& c) { return c.breaks; }));
    d->problems.push_back(fmt::format(
        "{} breaking change{} under {} without a major version bump ({} -> {})", n,
        n == 1 ? "" : "s", CompatModeName(d->mode), before.version, after.version));
  }
  if (!d->changes.empty() && tuple(*new_v) == tuple(*old_v)) {
    d->notes.push_back(
        fmt::format("the contract changed but its version did not ({})", after.version));
  }
  Migration(after, d);
}

}  // namespace

Result<ContractDiff> DiffContracts(const Contract& before, const Contract& after,
                                   std::optional<CompatMode> mode) {
  ContractDiff d;
  d.old_label = before.file;
  d.new_label = after.file;
  d.old_version = before.version;
  d.new_version = after.version;
  d.mode = mode.value_or(EffectiveCompatibility(after));
  DELTA_RETURN_IF_ERROR(Differ(before, after, &d).Run());
  Judge(before, after, &d);
  return d;
}

namespace {

std::string ChangeLine(const ContractChange& c) {
  std::string what = c.object.empty() ? c.path : c.object + "." + c.path;
  if (c.path.empty()) what = c.object;
  if (!c.old_path.empty()) what = c.object + "." + c.old_path + " -> " + c.path;
  std::string change;
  if (!c.before.empty() || !c.after.empty()) {
    change = fmt::format(": {} -> {}", c.before.empty() ? "(none)" : c.before,
                         c.after.empty() ? "(none)" : c.after);
  }
  return fmt::format("{} {}{} (risk {})", c.cls, what, change, RiskName(c.risk));
}

}  // namespace

std::string ContractDiffText(const ContractDiff& d) {
  std::string out =
      fmt::format("contract diff {} ({}) -> {} ({}), mode {}\n", d.old_label,
                  d.old_version, d.new_label, d.new_version, CompatModeName(d.mode));
  if (d.changes.empty()) out += "  no changes\n";
  for (const auto& c : d.changes) {
    out += fmt::format("  {} {}{}\n", c.breaks ? "BREAKING" : "-       ", ChangeLine(c),
                       c.breaks ? "; " + c.reason : "");
  }
  for (const auto& n : d.notes) out += "note: " + n + "\n";
  for (const auto& p : d.problems) out += "FAIL: " + p + "\n";
  if (!d.migration.empty()) {
    out += "migration paths:\n";
    for (const auto& m : d.migration) out += "  - " + m + "\n";
  }
  out += d.fails ? "result: failed\n"
                 : (d.compatible ? "result: compatible\n"
                                 : "result: breaking, with a major version bump\n");
  return out;
}

std::string ContractDiffJson(const ContractDiff& d) {
  std::string out = "{";
  auto side = [](const std::string& label, const std::string& version) {
    std::string s = "{";
    AppendJsonField(&s, "label", label);
    AppendJsonField(&s, "version", version);
    return s + "}";
  };
  AppendJsonRawField(&out, "old", side(d.old_label, d.old_version));
  AppendJsonRawField(&out, "new", side(d.new_label, d.new_version));
  AppendJsonField(&out, "mode", CompatModeName(d.mode));
  AppendJsonRawField(&out, "compatible", d.compatible ? "true" : "false");
  AppendJsonRawField(&out, "major_bump", d.major_bump ? "true" : "false");
  AppendJsonRawField(&out, "fails", d.fails ? "true" : "false");
  std::string changes = "[";
  for (const auto& c : d.changes) {
    if (changes.size() > 1) changes += ",";
    std::string o = "{";
    AppendJsonField(&o, "class", c.cls);
    AppendJsonField(&o, "object", c.object);
    AppendJsonField(&o, "path", c.path);
    AppendJsonField(&o, "old_path", c.old_path);
    AppendJsonField(&o, "before", c.before);
    AppendJsonField(&o, "after", c.after);
    AppendJsonField(&o, "risk", RiskName(c.risk));
    AppendJsonField(&o, "backward", CompatName(c.backward));
    AppendJsonField(&o, "forward", CompatName(c.forward));
    AppendJsonRawField(&o, "breaks", c.breaks ? "true" : "false");
    AppendJsonField(&o, "reason", c.reason);
    changes += o + "}";
  }
  AppendJsonRawField(&out, "changes", changes + "]");
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    AppendJsonStringArray(v, &s);
    return s;
  };
  AppendJsonRawField(&out, "problems", list(d.problems));
  AppendJsonRawField(&out, "migration", list(d.migration));
  AppendJsonRawField(&out, "notes", list(d.notes));
  return out + "}";
}

std::string ContractDiffJunit(const ContractDiff& d) {
  size_t failures = d.problems.size();
  std::string cases;
  for (const auto& c : d.changes) {
    cases += fmt::format("  <testcase classname=\"contract.diff\" name=\"{}\"",
                         XmlEscape(ChangeLine(c)));
    if (c.breaks && !d.major_bump) {
      ++failures;
      cases +=
          fmt::format("><failure message=\"{}\"/></testcase>\n", XmlEscape(c.reason));
    } else {
      cases += "/>\n";
    }
  }
  for (const auto& p : d.problems) {
    cases += fmt::format(
        "  <testcase classname=\"contract.diff\" name=\"version\"><failure "
        "message=\"{}\"/></testcase>\n",
        XmlEscape(p));
  }
  if (cases.empty()) {
    cases = "  <testcase classname=\"contract.diff\" name=\"no changes\"/>\n";
  }
  size_t tests = std::max<size_t>(1, d.changes.size() + d.problems.size());
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"{}\" tests=\"{}\" "
      "failures=\"{}\">\n{}</testsuite>\n",
      XmlEscape("contract diff " + d.old_label + " -> " + d.new_label), tests, failures,
      cases);
}

std::string ContractDiffGithub(const ContractDiff& d) {
  std::string out;
  for (const auto& c : d.changes) {
    out += fmt::format("::{} title=contract diff::{}\n",
                       c.breaks && !d.major_bump ? "error" : "warning",
                       GithubEscape(ChangeLine(c) + (c.breaks ? "; " + c.reason : "")));
  }
  for (const auto& p : d.problems) {
    out += fmt::format("::error title=contract diff::{}\n", GithubEscape(p));
  }
  for (const auto& m : d.migration) {
    out += fmt::format("::notice title=migration path::{}\n", GithubEscape(m));
  }
  return out;
}

}  // namespace deltaguard
