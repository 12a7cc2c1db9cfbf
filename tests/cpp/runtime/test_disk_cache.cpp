// runtime/disk_cache.h: round trips, entries that do not verify (truncated,
// flipped bytes, another format, another key under the same name) are misses
// and removed, and concurrent writers leave one valid entry.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/disk_cache.h"

namespace {

namespace fs = std::filesystem;
using simt::runtime::DiskCache;

class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("simt-cache-test-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static void write(const std::string& path, const std::string& data) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
  }

  fs::path folder_;
};

TEST_F(DiskCacheTest, StoresAndLoads) {
  DiskCache cache(folder_.string());
  std::string payload("machine\0code\xff", 13);
  EXPECT_FALSE(cache.load("cpu", "key one"));
  cache.store("cpu", "key one", payload);
  EXPECT_EQ(cache.load("cpu", "key one"), payload);
  EXPECT_FALSE(cache.load("cpu", "key two"));
  EXPECT_FALSE(cache.load("cuda", "key one"));  // sections are apart
  cache.store("cpu", "key one", "replaced");
  EXPECT_EQ(cache.load("cpu", "key one"), "replaced");
  EXPECT_EQ(cache.clear(), 1u);
  EXPECT_FALSE(cache.load("cpu", "key one"));
}

TEST_F(DiskCacheTest, EntriesThatDoNotVerifyAreMissesAndRemoved) {
  DiskCache cache(folder_.string());
  const std::string key = "the key", payload(5000, 'x');
  const std::string file = cache.path("cpu", key);
  auto corrupt = [&](auto change) {
    cache.store("cpu", key, payload);
    std::string data = read(file);
    change(data);
    write(file, data);
    EXPECT_FALSE(cache.load("cpu", key));
    EXPECT_FALSE(fs::exists(file));
  };
  corrupt([](std::string& d) { d.resize(d.size() / 2); });     // truncated
  corrupt([](std::string& d) { d[d.size() - 100] ^= 0x20; });  // a flipped payload byte
  corrupt([](std::string& d) { d[5] = '9'; });                 // another format
  corrupt([](std::string& d) { d += "trailing"; });            // extra bytes
  corrupt([](std::string& d) { d.clear(); });                  // empty
  // Another key's entry under this key's name (a hash collision): a miss.
  cache.store("cpu", "another key", payload);
  fs::rename(cache.path("cpu", "another key"), file);
  EXPECT_FALSE(cache.load("cpu", key));
  // Stored again, it is good.
  cache.store("cpu", key, payload);
  EXPECT_EQ(cache.load("cpu", key), payload);
}

TEST_F(DiskCacheTest, ConcurrentWritersLeaveOneValidEntry) {
  DiskCache cache(folder_.string());
  const std::string payload(200000, 'p');
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&] {
      for (int k = 0; k < 20; ++k) {
        cache.store("cpu", "shared key", payload);
        auto loaded = cache.load("cpu", "shared key");
        // A reader sees a whole entry or none (a writer may have just replaced it).
        if (loaded) {
          EXPECT_EQ(*loaded, payload);
        }
      }
    });
  for (auto& w : writers) w.join();
  cache.store("cpu", "shared key", payload);
  EXPECT_EQ(cache.load("cpu", "shared key"), payload);
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(folder_))
    files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);  // no temporary left behind
}

TEST_F(DiskCacheTest, DisabledCacheDoesNothing) {
  DiskCache cache("");
  EXPECT_FALSE(cache.enabled());
  cache.store("cpu", "k", "v");
  EXPECT_FALSE(cache.load("cpu", "k"));
  EXPECT_EQ(cache.clear(), 0u);
}

TEST(DiskCacheHash, IsStableAndSpreads) {
  EXPECT_EQ(simt::runtime::hash_hex("abc"), simt::runtime::hash_hex("abc"));
  EXPECT_NE(simt::runtime::hash_hex("abc"), simt::runtime::hash_hex("abd"));
  EXPECT_EQ(simt::runtime::hash_hex("").size(), 32u);
}

}  // namespace
