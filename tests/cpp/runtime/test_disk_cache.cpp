// runtime/disk_cache.h: round trips, entries that do not verify (truncated,
// flipped bytes, another format, another key under the same name) are misses
// and removed, concurrent writers leave one valid entry, and the cache is
// private: modes whatever the umask, no links, no special files, no folder
// of another user's, and clear() removes only simt's own files.

#include <gtest/gtest.h>
#include <sys/stat.h>
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

mode_t mode_of(const fs::path& path) {
  struct stat st;
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST_F(DiskCacheTest, FoldersAndFilesArePrivateWhateverTheUmask) {
  const mode_t saved = ::umask(0);
  DiskCache cache(folder_.string());
  cache.store("cpu", "key", "payload");
  ::umask(saved);
  EXPECT_EQ(mode_of(folder_), 0700u);
  EXPECT_EQ(mode_of(folder_ / "cpu"), 0700u);
  EXPECT_EQ(mode_of(cache.path("cpu", "key")), 0600u);
  EXPECT_EQ(cache.load("cpu", "key"), "payload");
}

TEST_F(DiskCacheTest, AnOpenFolderIsRefusedAndLeftAsItIs) {
  // simt says it will not use such a folder: it neither writes into it nor changes its mode.
  fs::create_directories(folder_);
  ::chmod(folder_.c_str(), 0777);
  DiskCache cache(folder_.string());
  cache.store("cpu", "key", "payload");
  EXPECT_EQ(mode_of(folder_), 0777u);
  EXPECT_FALSE(fs::exists(folder_ / "cpu"));
  EXPECT_FALSE(cache.load("cpu", "key"));
  ::chmod(folder_.c_str(), 0700);  // its owner makes it private: used from then on
  cache.store("cpu", "key", "payload");
  EXPECT_EQ(cache.load("cpu", "key"), "payload");
}

TEST_F(DiskCacheTest, AFolderOfAnotherUserIsNotUsed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user";
  DiskCache cache(folder_.string());
  cache.store("cpu", "key", "payload");
  ASSERT_EQ(cache.load("cpu", "key"), "payload");
  ASSERT_EQ(::chown(folder_.c_str(), 4242, 4242), 0);
  EXPECT_FALSE(cache.load("cpu", "key"));  // another user could have planted it
  cache.store("cpu", "other", "payload");
  EXPECT_FALSE(fs::exists(cache.path("cpu", "other")));
  ASSERT_EQ(::chown(folder_.c_str(), 0, 0), 0);
  EXPECT_EQ(cache.load("cpu", "key"), "payload");
}

TEST_F(DiskCacheTest, LinksAndSpecialFilesAreMissesAndLeftAlone) {
  DiskCache cache(folder_.string());
  cache.store("cpu", "real", "payload");
  const std::string real = cache.path("cpu", "real");
  // A link to a valid entry (as if planted): not followed.
  const std::string linked = cache.path("cpu", "linked");
  fs::copy_file(real, folder_ / "elsewhere.bin");
  fs::create_symlink(folder_ / "elsewhere.bin", linked);
  EXPECT_FALSE(cache.load("cpu", "linked"));
  EXPECT_TRUE(fs::is_symlink(linked));
  // A FIFO would block a reader forever; a directory cannot be read.
  const std::string fifo = cache.path("cpu", "fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(cache.load("cpu", "fifo"));
  fs::create_directory(cache.path("cpu", "folder"));
  EXPECT_FALSE(cache.load("cpu", "folder"));
  // A link to the zero device would be read until memory ran out.
  fs::create_symlink("/dev/zero", cache.path("cpu", "zero"));
  EXPECT_FALSE(cache.load("cpu", "zero"));
  EXPECT_EQ(cache.load("cpu", "real"), "payload");
}

TEST_F(DiskCacheTest, ClearRemovesOnlySimtsOwnFiles) {
  DiskCache cache(folder_.string());
  cache.store("cpu", "a", "1");
  cache.store("opencl", "b", "2");
  // A user's files that look like ours by extension, beside and under them.
  fs::create_directories(folder_ / "cpu" / ".git" / "objects");
  write((folder_ / "model.bin").string(), "weights");
  write((folder_ / "cpu" / "model.bin").string(), "weights");
  write((folder_ / "cpu" / ".git" / "objects" / "0123456789abcdef0123456789abcdef.bin").string(),
        "object");
  write((folder_ / "cpu" / "0123456789ABCDEF0123456789ABCDEF.bin").string(), "not ours");
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_FALSE(cache.load("cpu", "a"));
  EXPECT_FALSE(cache.load("opencl", "b"));
  EXPECT_TRUE(fs::exists(folder_ / "model.bin"));
  EXPECT_TRUE(fs::exists(folder_ / "cpu" / "model.bin"));
  EXPECT_TRUE(
      fs::exists(folder_ / "cpu" / ".git" / "objects" / "0123456789abcdef0123456789abcdef.bin"));
  EXPECT_TRUE(fs::exists(folder_ / "cpu" / "0123456789ABCDEF0123456789ABCDEF.bin"));
}

}  // namespace
