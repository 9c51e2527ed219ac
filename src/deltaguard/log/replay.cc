#include "deltaguard/log/replay.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

namespace deltaguard {
namespace {

// Order files (adds, removes, or FileKeyCopy) by path, then by deletion vector
// identity (no DV first). Equivalent under this order = same replay key.
template <typename A, typename B>
bool FileLess(const A& a, const B& b) {
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

// A file to sort: 8 path bytes at the current depth as a big-endian integer (so integer
// order is byte order), plus where the path and the file are.
struct SortEntry {
  uint64_t key;
  const char* path;
  uint32_t size;
  uint32_t idx;
};

uint64_t KeyAt(const char* p, size_t size, size_t depth) {
  uint64_t key = 0;
  if (depth + 8 <= size) {
    std::memcpy(&key, p + depth, 8);
    return __builtin_bswap64(key);
  }
  for (size_t b = 0; b < 8; ++b) {
    size_t pos = depth + b;
    key = (key << 8) | (pos < size ? static_cast<unsigned char>(p[pos]) : 0u);
  }
  return key;
}

// Most-significant-digit sort of [first, last) by path, 8 bytes per level, whose keys are
// already loaded for `depth`; `tie_less` orders equal paths. Integer comparisons settle
// almost everything, and each level reads every path once: a comparison sort would
// chase two pointers per comparison (hundreds of ms for a 200k-file checkpoint).
template <typename TieLess>
void SortByPath(SortEntry* first, SortEntry* last, size_t depth,
                const TieLess& tie_less) {
  std::sort(first, last,
            [](const SortEntry& a, const SortEntry& b) { return a.key < b.key; });
  for (SortEntry* run = first; run != last;) {
    SortEntry* end = run + 1;
    while (end != last && end->key == run->key) ++end;
    if (end - run > 1) {
      bool any_ended = false;
      for (SortEntry* e = run; e != end; ++e) any_ended |= e->size <= depth + 8;
      if (any_ended) {
        // Some path ends inside this window (or they are equal): compare fully.
        std::sort(run, end, [&](const SortEntry& a, const SortEntry& b) {
          int c =
              std::string_view(a.path, a.size).compare(std::string_view(b.path, b.size));
          return c != 0 ? c < 0 : tie_less(a, b);
        });
      } else {
        for (SortEntry* e = run; e != end; ++e)
          e->key = KeyAt(e->path, e->size, depth + 8);
        SortByPath(run, end, depth + 8, tie_less);
      }
    }
    run = end;
  }
}

// How far ahead of use the sort loops prefetch: the files are spread over a large heap,
// so every step would otherwise wait for memory.
constexpr size_t kPrefetchDistance = 8;

template <typename T>
void PrefetchObject(const T* p) {
  const char* bytes = reinterpret_cast<const char*>(p);
  for (size_t off = 0; off < sizeof(T); off += 64) __builtin_prefetch(bytes + off);
}

// An owned replay key, for keys whose action is moved away before they are used.
struct FileKeyCopy {
  std::string path;
  std::optional<DeletionVectorDescriptor> deletion_vector;
};

// Sort `files` in place by (path, dv) and keep one file per key: files[first_newer..]
// (the commits' survivors) win over files[..first_newer) (checkpoint rows), which are
// dropped as well when their key is in `hidden` (a newer commit action of the other
// kind). Among checkpoint rows the first occurrence wins.
// The order is computed on compact entries, then applied by following the permutation's
// cycles: each file is move-assigned about once, within memory that is already ours.
template <typename F, typename K>
void SortUniqueInPlace(std::vector<F>& files, size_t first_newer,
                       const std::vector<const K*>& hidden) {
  const size_t n = files.size();
  if (n == 0) return;
  // Skip the paths' common prefix ("day=2024-0...") so the first level discriminates.
  size_t lcp = files[0].path.size();
  for (const F& f : files) {
    size_t m = std::min(lcp, f.path.size());
    size_t i = 0;
    while (i < m && f.path[i] == files[0].path[i]) ++i;
    lcp = i;
  }
  std::vector<SortEntry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) {
      __builtin_prefetch(files[i + kPrefetchDistance].path.data());
    }
    const std::string& p = files[i].path;
    entries[i] = {KeyAt(p.data(), p.size(), lcp), p.data(),
                  static_cast<uint32_t>(p.size()), static_cast<uint32_t>(i)};
  }
  auto tie_less = [&](const SortEntry& a, const SortEntry& b) {
    if (FileLess(files[a.idx], files[b.idx])) return true;
    if (FileLess(files[b.idx], files[a.idx])) return false;
    bool a_newer = a.idx >= first_newer;
    bool b_newer = b.idx >= first_newer;
    if (a_newer != b_newer) return a_newer;
    return a.idx < b.idx;
  };
  SortByPath(entries.data(), entries.data() + n, lcp, tie_less);
  // Checkpoint rows whose key a newer commit action of the other kind replaced. Few keys:
  // binary search instead of probing every row.
  std::vector<bool> hide(n, false);
  for (const K* key : hidden) {
    const SortEntry* it = std::lower_bound(
        entries.data(), entries.data() + n, *key,
        [&](const SortEntry& e, const K& k) { return FileLess(files[e.idx], k); });
    for (; it != entries.data() + n && !FileLess(*key, files[it->idx]); ++it) {
      if (it->idx < first_newer) hide[it->idx] = true;
    }
  }
  // order[k] = old position of the file that goes to position k; duplicates (adjacent
  // after sorting) go to the tail and are cut off.
  std::vector<uint32_t> order;
  std::vector<uint32_t> dropped;
  order.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (k + kPrefetchDistance < n) {
      __builtin_prefetch(entries[k + kPrefetchDistance].path);
    }
    const SortEntry& e = entries[k];
    if (hide[e.idx]) {
      dropped.push_back(e.idx);
      continue;
    }
    // Nothing has moved yet, so the entries' path pointers are valid; comparing with
    // the previous entry touches memory the sort just used.
    if (k > 0 && !order.empty()) {
      const SortEntry& prev = entries[k - 1];
      if (prev.size == e.size && std::memcmp(prev.path, e.path, e.size) == 0 &&
          SameFile(files[order.back()], files[e.idx])) {
        dropped.push_back(e.idx);
        continue;
      }
    }
    order.push_back(e.idx);
  }
  const size_t kept = order.size();
  order.insert(order.end(), dropped.begin(), dropped.end());
  std::vector<bool> done(n, false);
  for (size_t start = 0; start < n; ++start) {
    if (done[start] || order[start] == start) {
      done[start] = true;
      continue;
    }
    F tmp = std::move(files[start]);
    size_t j = start;
    while (true) {
      size_t src = order[j];
      done[j] = true;
      // The cycle visits files in random order: fetch the one after next early.
      PrefetchObject(&files[order[src]]);
      if (src == start) {
        files[j] = std::move(tmp);
        break;
      }
      files[j] = std::move(files[src]);
      j = src;
    }
  }
  files.resize(kept);
}

// Concatenate the checkpoint rows (the largest vector is reused, not copied) and the
// commit rows, then sort; see SortUniqueInPlace for which rows survive.
template <typename F, typename K>
std::vector<F> MergeSorted(std::vector<std::vector<F>>& parts,
                           const std::vector<F*>& more,
                           const std::vector<const K*>& hidden) {
  std::vector<F> out;
  size_t total = more.size();
  size_t largest = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    total += parts[i].size();
    if (parts[i].size() > parts[largest].size()) largest = i;
  }
  if (!parts.empty()) out = std::move(parts[largest]);
  out.reserve(total);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i == largest) continue;
    for (F& f : parts[i]) out.push_back(std::move(f));
  }
  const size_t first_newer = out.size();
  for (F* f : more) out.push_back(std::move(*f));
  SortUniqueInPlace(out, first_newer, hidden);
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
      if (seen_.insert(KeyOf(*add)).second) commit_adds_.push_back(add);
    } else if (auto* rm = std::get_if<RemoveFile>(&a)) {
      if (seen_.insert(KeyOf(*rm)).second) commit_removes_.push_back(rm);
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

Status LogReplayer::AddCheckpoint(CheckpointActions part) {
  checkpoint_started_ = true;
  // Protocol first, so that gating precedes interpreting the checkpoint's file rows.
  if (!protocol_) {
    for (Action& a : part.others) {
      if (auto* p = std::get_if<Protocol>(&a)) {
        DELTA_RETURN_IF_ERROR(TakeProtocol(*p));
        break;
      }
    }
  }
  for (Action& a : part.others) {
    if (!std::holds_alternative<Protocol>(a)) TakeNonFileAction(a);
  }
  // Rows superseded by a newer commit are dropped by Finish(), after sorting, where
  // finding them costs a binary search per commit key instead of a hash per row.
  checkpoint_adds_.push_back(std::move(part.adds));
  checkpoint_removes_.push_back(std::move(part.removes));
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
  // The views in seen_ point into commits_; drop them before moving files out.
  seen_.clear();
  // A checkpoint row loses to any newer commit action on its key: same kind by sorting
  // order, other kind through `hidden`. The adds' keys are copied for the tombstones
  // (only needed when the checkpoint has removes) because the adds move first.
  std::vector<FileKeyCopy> add_keys;
  bool checkpoint_has_removes = false;
  for (const auto& part : checkpoint_removes_) checkpoint_has_removes |= !part.empty();
  if (checkpoint_has_removes) {
    add_keys.reserve(commit_adds_.size());
    for (const AddFile* add : commit_adds_) {
      add_keys.push_back({add->path, add->deletion_vector});
    }
  }
  std::vector<const RemoveFile*> removes_hiding(commit_removes_.begin(),
                                                commit_removes_.end());
  st.files = MergeSorted(checkpoint_adds_, commit_adds_, removes_hiding);
  std::vector<const FileKeyCopy*> adds_hiding;
  adds_hiding.reserve(add_keys.size());
  for (const FileKeyCopy& k : add_keys) adds_hiding.push_back(&k);
  st.tombstones = MergeSorted(checkpoint_removes_, commit_removes_, adds_hiding);
  commit_adds_.clear();
  commit_removes_.clear();
  commits_.clear();
  checkpoint_adds_.clear();
  checkpoint_removes_.clear();
  return st;
}

}  // namespace deltaguard
