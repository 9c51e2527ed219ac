#include "deltaguard/log/replay.h"

#include <algorithm>
#include <numeric>

namespace deltaguard {
namespace {

// Order files by path, then by deletion vector identity (no DV first).
template <typename F>
bool FileLess(const F& a, const F& b) {
  int c = a.path.compare(b.path);
  if (c != 0) return c < 0;
  const auto& da = a.deletion_vector;
  const auto& db = b.deletion_vector;
  if (!da || !db) return !da && db;
  if (da->storage_type != db->storage_type) return da->storage_type < db->storage_type;
  c = da->path_or_inline_dv.compare(db->path_or_inline_dv);
  if (c != 0) return c < 0;
  return da->offset.value_or(-1) < db->offset.value_or(-1);
}

template <typename F>
bool SameFile(const F& a, const F& b) {
  return !FileLess(a, b) && !FileLess(b, a);
}

// Sort files by (path, dv) and drop duplicates keeping the first occurrence; each file is
// moved exactly once. Sorting runs on compact 16-byte entries whose key is the 8 bytes
// after the paths' common prefix (big-endian, so integer order is byte order), which
// settles almost all comparisons without touching the files (200k-file checkpoints).
template <typename F>
std::vector<F> SortedUnique(const std::vector<F*>& in) {
  size_t lcp = in.empty() ? 0 : in[0]->path.size();
  for (const F* f : in) {
    const std::string& p = f->path;
    size_t n = std::min(lcp, p.size());
    size_t i = 0;
    while (i < n && p[i] == in[0]->path[i]) ++i;
    lcp = i;
  }
  struct Entry {
    uint64_t key;
    uint32_t idx;
  };
  std::vector<Entry> entries(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& p = in[i]->path;
    uint64_t key = 0;
    for (size_t b = 0; b < 8; ++b) {
      size_t pos = lcp + b;
      key = (key << 8) | (pos < p.size() ? static_cast<unsigned char>(p[pos]) : 0u);
    }
    entries[i] = {key, static_cast<uint32_t>(i)};
  }
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if (a.key != b.key) return a.key < b.key;
    if (FileLess(*in[a.idx], *in[b.idx])) return true;
    if (FileLess(*in[b.idx], *in[a.idx])) return false;
    return a.idx < b.idx;
  });
  std::vector<F> out;
  out.reserve(in.size());
  constexpr size_t kPrefetch = 8;  // the sources are scattered: hide the memory latency
  for (size_t k = 0; k < entries.size(); ++k) {
    if (k + kPrefetch < entries.size()) {
      const char* next = reinterpret_cast<const char*>(in[entries[k + kPrefetch].idx]);
      for (size_t line = 0; line < sizeof(F); line += 64) __builtin_prefetch(next + line);
    }
    const Entry& e = entries[k];
    // Equal files have equal keys: compare contents only when the keys tie.
    if (k > 0 && entries[k - 1].key == e.key && SameFile(out.back(), *in[e.idx])) continue;
    out.push_back(std::move(*in[e.idx]));
  }
  return out;
}

}  // namespace

size_t LogReplayer::FileKeyHash::operator()(const FileKey& k) const {
  size_t h = std::hash<std::string_view>{}(k.path);
  if (k.dv_type != 0) {
    size_t d = std::hash<std::string_view>{}(k.dv) ^
               (static_cast<size_t>(k.dv_offset) * 0x9e3779b97f4a7c15ULL) ^
               static_cast<size_t>(k.dv_type);
    h ^= d + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

template <typename F>
LogReplayer::FileKey LogReplayer::KeyOf(const F& file) {
  FileKey k;
  k.path = file.path;
  if (file.deletion_vector) {
    k.dv = file.deletion_vector->path_or_inline_dv;
    k.dv_offset = file.deletion_vector->offset.value_or(-1);
    k.dv_type = file.deletion_vector->storage_type;
  }
  return k;
}

LogReplayer::LogReplayer(std::string table_root, int64_t target_version)
    : table_root_(std::move(table_root)), target_version_(target_version) {}

Status LogReplayer::TakeProtocol(Protocol& p) {
  if (protocol_) return OkStatus();
  // Gate before interpreting anything older (digest §1.5 step 5).
  DELTA_RETURN_IF_ERROR(CheckReadSupported(p, table_root_));
  protocol_ = std::move(p);
  return OkStatus();
}

void LogReplayer::TakeNonFileAction(Action& a) {
  if (auto* md = std::get_if<Metadata>(&a)) {
    if (!metadata_) metadata_ = std::move(*md);
  } else if (auto* txn = std::get_if<SetTransaction>(&a)) {
    txns_.try_emplace(txn->app_id, std::move(*txn));
  } else if (auto* dm = std::get_if<DomainMetadata>(&a)) {
    auto [it, inserted] = domains_.try_emplace(dm->domain);
    if (inserted && !dm->removed) it->second = std::move(*dm);
  }
}

Status LogReplayer::AddCommit(int64_t version, std::vector<Action> actions) {
  DELTA_DCHECK(!checkpoint_started_ && version < last_commit_version_);
  last_commit_version_ = version;
  commits_.push_back(std::move(actions));
  std::vector<Action>& stored = commits_.back();
  // Within a commit the later line wins, so walk it backwards too.
  for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
    Action& a = *it;
    if (auto* add = std::get_if<AddFile>(&a)) {
      if (seen_.insert(KeyOf(*add)).second) adds_.push_back(add);
    } else if (auto* rm = std::get_if<RemoveFile>(&a)) {
      if (seen_.insert(KeyOf(*rm)).second) removes_.push_back(rm);
    } else if (auto* p = std::get_if<Protocol>(&a)) {
      DELTA_RETURN_IF_ERROR(TakeProtocol(*p));
    } else if (auto* ci = std::get_if<CommitInfo>(&a)) {
      if (version == target_version_) commit_info_ = std::move(*ci);
    } else {
      TakeNonFileAction(a);
    }
  }
  return OkStatus();
}

Status LogReplayer::AddCheckpoint(std::vector<Action> actions) {
  checkpoint_started_ = true;
  // Protocol first, so that gating precedes interpreting the checkpoint's file rows.
  if (!protocol_) {
    for (Action& a : actions) {
      if (auto* p = std::get_if<Protocol>(&a)) {
        DELTA_RETURN_IF_ERROR(TakeProtocol(*p));
        break;
      }
    }
  }
  bool check_seen = !seen_.empty();
  checkpoint_parts_.push_back(std::move(actions));
  std::vector<Action>& stored = checkpoint_parts_.back();
  adds_.reserve(adds_.size() + stored.size());
  for (Action& a : stored) {
    if (auto* add = std::get_if<AddFile>(&a)) {
      if (!check_seen || !seen_.contains(KeyOf(*add))) adds_.push_back(add);
    } else if (auto* rm = std::get_if<RemoveFile>(&a)) {
      if (!check_seen || !seen_.contains(KeyOf(*rm))) removes_.push_back(rm);
    } else {
      TakeNonFileAction(a);
    }
  }
  return OkStatus();
}

ReplayState LogReplayer::Finish() && {
  ReplayState st;
  st.protocol = std::move(protocol_);
  st.metadata = std::move(metadata_);
  st.commit_info = std::move(commit_info_);
  st.txns = std::move(txns_);
  for (auto& [domain, dm] : domains_) {
    if (dm) st.domains.push_back(std::move(*dm));
  }
  std::sort(st.domains.begin(), st.domains.end(),
            [](const DomainMetadata& a, const DomainMetadata& b) {
              return a.domain < b.domain;
            });
  // The views in seen_ point into the stored actions; drop them before moving files out.
  seen_.clear();
  st.files = SortedUnique(adds_);
  st.tombstones = SortedUnique(removes_);
  adds_.clear();
  removes_.clear();
  commits_.clear();
  checkpoint_parts_.clear();
  return st;
}

}  // namespace deltaguard
