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
//
// The cache is private: its folders are created 0700 and its files 0600
// whatever the umask, a folder owned by another user or writable by others is
// not used (a warning says so once), entries are opened without following
// links and read only when they are regular files of this user of bounded
// size, so nobody else can make a process run machine code of theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
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
  // Removes every entry (simt's own files in its section folders, nothing
  // else); returns how many files went.
  size_t clear() const;

  // The entry file of `key` (exists or not).
  std::string path(std::string_view section, std::string_view key) const;

  // What every backend does with its compiler's output: hand the cached
  // payload to `use`, which returns false when the payload no longer works
  // (a driver that refuses an old binary); then, or on a miss, `build` a new
  // one (it returns the payload to store, or nullopt for nothing to store)
  // and hand that to `use`.
  void load_or_build(std::string_view section, std::string_view key,
                     const std::function<bool(std::string_view payload)>& use,
                     const std::function<std::optional<std::string>()>& build) const;

 private:
  std::string folder_;
};

// A cache key: simt's version, the backend, then each part (the compiler and
// its version, options, device architecture, source...), each
// length-prefixed so that no two lists of parts give the same key.
std::string cache_key(std::string_view backend, std::initializer_list<std::string_view> parts);

// Builds a payload of several fields (length-prefixed strings, 32-bit
// counts) for one entry.
class PayloadWriter {
 public:
  void put_u32(uint32_t value);
  void put_string(std::string_view text);
  // The rest of the payload, unprefixed (a binary image).
  void put_tail(std::string_view bytes) { out_.append(bytes); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what PayloadWriter wrote; every getter returns false (and reads
// nothing) on a truncated payload, so a bad entry is a miss, not a crash.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view in) : in_(in) {}
  bool get_u32(uint32_t* value);
  bool get_string(std::string* text);
  std::string_view tail() const { return in_; }

 private:
  std::string_view in_;
};

// A 128-bit hash of `text` as 32 hex digits (not cryptographic: names files
// and checks integrity).
std::string hash_hex(std::string_view text);

}  // namespace simt::runtime
