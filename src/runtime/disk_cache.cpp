#include "runtime/disk_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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
  const std::string file = path(section, key);
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::string_view rest(data);
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
  std::error_code error;
  const fs::path folder = fs::path(folder_) / std::string(section);
  fs::create_directories(folder, error);
  if (error) return;

  std::string data(kMagic);
  put_u64(data, key.size());
  data.append(key);
  put_u64(data, payload.size());
  put_u64(data, fnv1a(payload, 1));
  data.append(payload);

  // A name no other writer (thread or process) uses, then an atomic rename.
  static std::atomic<uint64_t> counter{0};
  const std::string final_path = path(section, key);
  const std::string temporary = final_path + ".tmp." + std::to_string(::getpid()) + "." +
                                std::to_string(counter++) + "." +
                                std::to_string(std::random_device{}());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      out.close();
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, final_path, error);
  if (error) fs::remove(temporary, error);
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
  if (!enabled()) return 0;
  size_t removed = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(folder_, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    const std::string name = it->path().filename().string();
    if (name.find(".bin") == std::string::npos) continue;  // only our entries
    std::error_code remove_error;
    if (fs::remove(it->path(), remove_error)) ++removed;
  }
  return removed;
}

}  // namespace simt::runtime
