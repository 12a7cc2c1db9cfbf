#include "runtime/disk_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <system_error>

#include "runtime/version.h"

namespace simt::runtime {

namespace {

namespace fs = std::filesystem;

// Bumped when the file layout changes: older entries then fail to verify.
constexpr std::string_view kMagic = "simt-cache-1\n";

uint64_t fnv1a(std::string_view text, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // A final avalanche: FNV's low bits mix poorly.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

void put_u64(std::string& out, uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

bool get_u64(std::string_view& in, uint64_t* v) {
  if (in.size() < 8) return false;
  *v = 0;
  for (int k = 0; k < 8; ++k)
    *v |= static_cast<uint64_t>(static_cast<unsigned char>(in[k])) << (8 * k);
  in.remove_prefix(8);
  return true;
}

// No compiled kernel comes near this: a bigger file is no entry of ours.
constexpr off_t kMaxEntryBytes = off_t{1} << 30;

// A folder only this user can change: a real directory (not a link), ours,
// writable by no one else. Entries are machine code the process runs, so the
// cache trusts nothing another user could have written.
bool private_folder(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Says once per process why the cache is not used.
void warn_unsafe(const std::string& folder) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "simt: not using the kernel cache in %s: it is not a folder of this user's that "
                 "only this user can write (set SIMT_CACHE_DIR to one, or 'off')\n",
                 folder.c_str());
  });
}

// Makes `path` a private folder: created 0700 whatever the umask (parents
// too, where missing). An existing folder is used only if it is private
// already: one that others may write is refused and left as it is (its owner
// chose that mode; tightening it would change a folder simt said it would not use).
bool make_private_folder(const std::string& path) {
  std::error_code ignored;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ignored);
  if (::mkdir(path.c_str(), 0700) == 0) {
    ::chmod(path.c_str(), 0700);  // the umask may have taken bits the owner needs
  } else if (errno != EEXIST) {
    return false;
  }
  return private_folder(path);
}

// An entry's bytes: a regular file of ours, opened without following links
// and without blocking (a FIFO planted in its place), of bounded size.
std::optional<std::string> read_entry(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::optional<std::string> data;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      st.st_size <= kMaxEntryBytes) {
    std::string bytes(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    if (done == bytes.size()) data = std::move(bytes);
  }
  ::close(fd);
  return data;
}

// Whether `name` is one simt gives its files: 32 hex digits, ".bin", and for
// a temporary file ".tmp." and a unique suffix.
bool entry_name(const std::string& name) {
  if (name.size() < 36 || name.compare(32, 4, ".bin") != 0) return false;
  for (size_t k = 0; k < 32; ++k)
    if (!std::isxdigit(static_cast<unsigned char>(name[k])) ||
        std::isupper(static_cast<unsigned char>(name[k])))
      return false;
  return name.size() == 36 || name.compare(36, 5, ".tmp.") == 0;
}

std::string default_folder() {
  if (const char* explicit_dir = std::getenv("SIMT_CACHE_DIR")) {
    std::string_view v(explicit_dir);
    if (v.empty() || v == "off" || v == "0") return "";
    return std::string(v);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/simt";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/simt";
  return "";
}

}  // namespace

std::string hash_hex(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint64_t h : {fnv1a(text, 0), fnv1a(text, 0x9e3779b97f4a7c15ull)})
    for (int k = 15; k >= 0; --k) out.push_back(kDigits[(h >> (4 * k)) & 0xf]);
  return out;
}

DiskCache& DiskCache::instance() {
  static DiskCache cache(default_folder());
  return cache;
}

DiskCache::DiskCache(std::string folder) : folder_(std::move(folder)) {}

std::string DiskCache::path(std::string_view section, std::string_view key) const {
  return folder_ + "/" + std::string(section) + "/" + hash_hex(key) + ".bin";
}

std::optional<std::string> DiskCache::load(std::string_view section, std::string_view key) const {
  if (!enabled()) return std::nullopt;
  const std::string folder = folder_ + "/" + std::string(section);
  for (const std::string& f : {folder_, folder}) {
    if (private_folder(f)) continue;
    std::error_code ignored;
    if (fs::symlink_status(f, ignored).type() != fs::file_type::not_found) warn_unsafe(folder_);
    return std::nullopt;  // not made yet: a miss
  }
  const std::string file = path(section, key);
  std::optional<std::string> data = read_entry(file);
  if (!data) return std::nullopt;  // missing, or no regular file of ours: left alone
  std::string_view rest(*data);
  uint64_t key_size = 0, payload_size = 0, checksum = 0;
  bool ok = rest.substr(0, kMagic.size()) == kMagic;
  if (ok) rest.remove_prefix(kMagic.size());
  ok = ok && get_u64(rest, &key_size) && rest.size() >= key_size && rest.substr(0, key_size) == key;
  if (ok) rest.remove_prefix(key_size);
  ok = ok && get_u64(rest, &payload_size) && get_u64(rest, &checksum) &&
       rest.size() == payload_size && fnv1a(rest, 1) == checksum;
  if (!ok) {
    // Corrupt, truncated, an older format, or another key with the same
    // hash: never trusted; the caller rebuilds and stores it again.
    std::error_code ignored;
    fs::remove(file, ignored);
    return std::nullopt;
  }
  return std::string(rest);
}

void DiskCache::store(std::string_view section, std::string_view key,
                      std::string_view payload) const {
  if (!enabled()) return;
  const std::string folder = folder_ + "/" + std::string(section);
  if (!make_private_folder(folder_) || !make_private_folder(folder)) {
    warn_unsafe(folder_);
    return;
  }

  std::string data(kMagic);
  put_u64(data, key.size());
  data.append(key);
  put_u64(data, payload.size());
  put_u64(data, fnv1a(payload, 1));
  data.append(payload);

  // A name no other writer (thread or process) uses, created 0600 and never
  // through a link, then an atomic rename.
  static std::atomic<uint64_t> counter{0};
  const std::string final_path = path(section, key);
  const std::string temporary = final_path + ".tmp." + std::to_string(::getpid()) + "." +
                                std::to_string(counter++) + "." +
                                std::to_string(std::random_device{}());
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool written = ::close(fd) == 0 && done == data.size();
  std::error_code error;
  if (written) fs::rename(temporary, final_path, error);
  if (!written || error) fs::remove(temporary, error);
}

void DiskCache::load_or_build(std::string_view section, std::string_view key,
                              const std::function<bool(std::string_view)>& use,
                              const std::function<std::optional<std::string>()>& build) const {
  if (auto payload = load(section, key))
    if (use(*payload)) return;
  std::optional<std::string> built = build();
  if (!built) return;
  store(section, key, *built);
  use(*built);
}

std::string cache_key(std::string_view backend, std::initializer_list<std::string_view> parts) {
  std::string key = std::string("simt ") + simt::version() + "\n" + std::string(backend) + "\n";
  for (std::string_view part : parts) {
    key += std::to_string(part.size());
    key += ':';
    key.append(part);
    key += '\n';
  }
  return key;
}

void PayloadWriter::put_u32(uint32_t value) {
  for (int k = 0; k < 4; ++k) out_.push_back(static_cast<char>((value >> (8 * k)) & 0xff));
}

void PayloadWriter::put_string(std::string_view text) {
  put_u32(static_cast<uint32_t>(text.size()));
  out_.append(text);
}

bool PayloadReader::get_u32(uint32_t* value) {
  if (in_.size() < 4) return false;
  *value = 0;
  for (int k = 0; k < 4; ++k)
    *value |= static_cast<uint32_t>(static_cast<unsigned char>(in_[k])) << (8 * k);
  in_.remove_prefix(4);
  return true;
}

bool PayloadReader::get_string(std::string* text) {
  std::string_view saved = in_;
  uint32_t size = 0;
  if (!get_u32(&size) || in_.size() < size) {
    in_ = saved;
    return false;
  }
  text->assign(in_.substr(0, size));
  in_.remove_prefix(size);
  return true;
}

size_t DiskCache::clear() const {
  if (!enabled() || !private_folder(folder_)) return 0;
  // Only simt's own files, in its own section folders: never anything else a
  // user keeps there, and never through a link.
  size_t removed = 0;
  std::error_code error;
  for (const auto& section : fs::directory_iterator(folder_, error)) {
    if (!section.is_directory(error) || section.is_symlink(error) ||
        !private_folder(section.path().string()))
      continue;
    std::error_code inner;
    for (const auto& entry : fs::directory_iterator(section.path(), inner)) {
      if (entry.is_symlink(inner) || !entry.is_regular_file(inner) ||
          !entry_name(entry.path().filename().string()))
        continue;
      std::error_code remove_error;
      if (fs::remove(entry.path(), remove_error)) ++removed;
    }
  }
  return removed;
}

}  // namespace simt::runtime
