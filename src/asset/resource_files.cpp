// A document's external files (docs/spec.md §2.1 "Resource root"), read once: preflight reads each
// one as it checks it, and tinygltf gets those bytes through its file callbacks, never from the
// file system. The check looks at the file that was opened, so a symbolic link switched between
// the check and the read cannot lead the read outside the resource root.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "asset/build.hpp"

namespace gltf_crowd::detail {
namespace {

// Owns a POSIX file descriptor.
class Descriptor {
 public:
  explicit Descriptor(int fd) noexcept : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

// Whether the open file `opened` is the one `file` leads to now, and that lies in the canonical
// `root`. Asked after the open: a link switched before it shows as another place or inode.
bool opened_in_root(const struct stat& opened, const std::filesystem::path& file, const std::filesystem::path& root) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(file, ec);
  struct stat named {};
  return !ec && std::mismatch(root.begin(), root.end(), real.begin(), real.end()).first == root.end() &&
         ::stat(real.c_str(), &named) == 0 && named.st_dev == opened.st_dev && named.st_ino == opened.st_ino;
}

std::string same_path(const std::string& file, void*) { return file; }

}  // namespace

ResourceFiles::ResourceFiles(std::filesystem::path base_dir, std::filesystem::path resource_root)
    : base_dir_(std::move(base_dir)), resource_root_(std::move(resource_root)) {}

const std::filesystem::path& ResourceFiles::canonical_root() {
  if (resource_root_.empty() || !canonical_root_.empty()) return canonical_root_;
  std::error_code ec;
  canonical_root_ = std::filesystem::canonical(resource_root_, ec);
  if (ec || !std::filesystem::is_directory(canonical_root_, ec))
    throw Error("LoadOptions::resource_root", Rule::file_open,
                fmt::format("\"{}\" is not a folder", resource_root_.string()));
  return canonical_root_;
}

std::filesystem::path ResourceFiles::read(
    std::string_view uri, const std::string& path,
    const std::function<void(const std::filesystem::path&, std::uint64_t)>& check_size) {
  const std::filesystem::path& root = canonical_root();
  std::filesystem::path file = resolve_external_uri(uri, base_dir_, path, root);
  File& entry = files_[file.string()];
  if (entry.reads_left > 0) {
    check_size(file, entry.bytes.size());
    ++entry.reads_left;
    return file;
  }
  const Descriptor fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat opened {};
  if (fd.get() < 0 || ::fstat(fd.get(), &opened) != 0)
    throw Error(path, Rule::external_file_missing,
                fmt::format("\"{}\" cannot be read: {}", file.string(), std::strerror(errno)));
  if (!S_ISREG(opened.st_mode))
    throw Error(path, Rule::external_file_missing, fmt::format("\"{}\" is not a regular file", file.string()));
  if (!root.empty() && !opened_in_root(opened, file, root))
    throw Error(path, Rule::uri_outside_root,
                fmt::format("\"{}\" led outside the resource root {} when it was opened (a link changed while "
                            "loading); --allow-outside-resources (LoadOptions::allow_outside_resources) allows it",
                            uri, root.string()));
  check_size(file, static_cast<std::uint64_t>(opened.st_size));
  entry.bytes.resize(static_cast<std::size_t>(opened.st_size));
  std::size_t done = 0;
  while (done < entry.bytes.size()) {
    const ssize_t n = ::read(fd.get(), entry.bytes.data() + done, entry.bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done != entry.bytes.size())
    throw Error(
        path, Rule::external_file_missing,
        fmt::format("\"{}\" changed while it was read ({} of {} bytes)", file.string(), done, entry.bytes.size()));
  entry.reads_left = 1;
  return file;
}

void ResourceFiles::serve(tinygltf::TinyGLTF& loader) {
  tinygltf::FsCallbacks fs{};
  fs.FileExists = &ResourceFiles::holds;
  fs.ExpandFilePath = &same_path;
  fs.ReadWholeFile = &ResourceFiles::take;
  fs.user_data = this;
  loader.SetFsCallbacks(fs);
}

bool ResourceFiles::holds(const std::string& file, void* self) {
  const auto& files = static_cast<const ResourceFiles*>(self)->files_;
  const auto it = files.find(file);
  return it != files.end() && it->second.reads_left > 0;
}

bool ResourceFiles::take(std::vector<unsigned char>* out, std::string* err, const std::string& file, void* self) {
  auto& files = static_cast<ResourceFiles*>(self)->files_;
  const auto it = files.find(file);
  if (it == files.end() || it->second.reads_left == 0) {
    if (err != nullptr) *err = "not among the files preflight read";
    return false;
  }
  if (--it->second.reads_left == 0)
    *out = std::move(it->second.bytes);
  else
    *out = it->second.bytes;
  return true;
}

}  // namespace gltf_crowd::detail
