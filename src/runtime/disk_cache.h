// Compiled kernels on disk, so that a fresh process skips the compiler for
// kernels an earlier one built.
//
// An entry is one file named by a hash of its key. The key is text holding
// everything the compiled code depends on (backend, compiler and its
// arguments, device architecture, simt's version, the generated source); the
// file repeats the key, so a hash collision is a miss, and carries the
// payload's length and checksum. A file that does not verify (truncated,
// flipped bytes, an older format) is removed and reported as a miss: the
// caller compiles again. Entries are written to a temporary file in the same
// folder and renamed into place, so several processes may fill one cache and
// a reader never sees half an entry.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simt::runtime {

class DiskCache {
 public:
  // The process's cache: $SIMT_CACHE_DIR, else $XDG_CACHE_HOME/simt, else
  // ~/.cache/simt. SIMT_CACHE_DIR=off (or an empty value) disables it.
  static DiskCache& instance();

  explicit DiskCache(std::string folder);

  bool enabled() const { return !folder_.empty(); }
  const std::string& folder() const { return folder_; }

  // The payload stored under `key` in `section` (a subfolder, e.g. "cpu"),
  // or nullopt: missing, unreadable or corrupt (then removed).
  std::optional<std::string> load(std::string_view section, std::string_view key) const;
  // Stores it; failures (no space, read-only folder) are ignored: the cache
  // only ever saves time.
  void store(std::string_view section, std::string_view key, std::string_view payload) const;
  // Removes every entry; returns how many files went.
  size_t clear() const;

  // The entry file of `key` (exists or not).
  std::string path(std::string_view section, std::string_view key) const;

 private:
  std::string folder_;
};

// A 128-bit hash of `text` as 32 hex digits (not cryptographic: names files
// and checks integrity).
std::string hash_hex(std::string_view text);

}  // namespace simt::runtime
