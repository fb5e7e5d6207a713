#include "io/hdf5.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace pfmab::io::h5 {
namespace {

// What the error stack says about a failed call.
struct Diagnosis {
  std::string outermost;  // the API function, as a rule
  std::string system;     // strerror of the first "errno = N" an entry quotes
  std::string detail;     // the innermost entry's message
};

herr_t diagnose(unsigned depth, const H5E_error2_t* entry, void* data) {
  auto& d = *static_cast<Diagnosis*>(data);
  if (depth == 0 && entry->func_name) d.outermost = entry->func_name;
  const std::string_view text = entry->desc ? entry->desc : "";
  // HDF5's file drivers quote the failed system call's errno this way
  // (HSYS_GOTO_ERROR): "..., errno = 28, error message = '...', ...".
  constexpr std::string_view errno_is = "errno = ";
  if (const auto at = text.find(errno_is); d.system.empty() && at != std::string_view::npos) {
    d.system = std::strerror(std::atoi(text.data() + at + errno_is.size()));
  }
  if (!text.empty()) d.detail = text;
  return 0;
}

// HDF5's messages may quote names from a corrupt file, and some hold a
// newline (a ctime() timestamp): one short line of printable text.
std::string one_line(std::string text) {
  constexpr std::size_t kMax = 200;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  for (auto& ch : text) {
    if (std::iscntrl(static_cast<unsigned char>(ch))) ch = ' ';
  }
  return text;
}

std::string describe_failure(const char* call) {
  Diagnosis d;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, diagnose, &d);  // leaves the stack as it is
  const auto cause = !d.system.empty()   ? d.system
                     : !d.detail.empty() ? d.detail
                                         : std::string("HDF5 gave no reason");
  // The stack holds 32 entries: a deep failure (a corrupt file) can fill it
  // before the API function's own entry is pushed, and the outermost is then
  // an internal function ("H5HG__hdr_deserialize"; API names have no '_'),
  // less telling than the call the caller names, if it does.
  const bool api = d.outermost.find('_') == std::string::npos;
  const auto function = (api || call == nullptr) ? d.outermost : std::string(call);
  return one_line(function.empty() ? cause : fmt::format("{} ({})", cause, function));
}

// Set up once, before any other HDF5 call of the program: a static object
// of the file that every user of HDF5 links.
//
// HDF5 1.10 frees an object whose close failed (a dataset whose last write
// met a full disk) but keeps its identifier (H5I_dec_ref), and the library's
// shutdown at exit closes that identifier again: a segfault after any failed
// write. pfmab closes every object it opens, so the shutdown has nothing left
// to do, and it is turned off. A failed object then stays as it is until the
// process ends (a file whose close failed stays open: its temporary name is
// still removed, and what was flushed of it is still there).
struct LibrarySetUp {
  LibrarySetUp() {
    H5dont_atexit();
    silence_errors();
  }
} const library_set_up;

}  // namespace

Error::Error(const char* call) : std::runtime_error(describe_failure(call)) {}

Handle::Handle(hid_t id) : id_(id) {
  if (id < 0) throw Error(nullptr);
}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    this->~Handle();
    id_ = other.id_;
    other.id_ = H5I_INVALID_HID;
  }
  return *this;
}

Handle::~Handle() {
  if (id_ >= 0) H5Idec_ref(id_);  // closes whatever kind of object it is
}

void Handle::close() {
  if (id_ < 0) return;
  check(H5Idec_ref(std::exchange(id_, H5I_INVALID_HID)), "H5Idec_ref");
}

void check(herr_t status, const char* what) {
  if (status < 0) throw Error(what);
}

void silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

template <>
hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
hid_t native_type<std::uint64_t>() {
  return H5T_NATIVE_UINT64;
}
template <>
hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}
template <>
hid_t native_type<std::int32_t>() {
  return H5T_NATIVE_INT32;
}
template <>
hid_t native_type<std::uint8_t>() {
  return H5T_NATIVE_UINT8;
}

namespace {

// Strings are stored fixed-length (their size in the type, NUL-padded), not
// variable-length: libhdf5 1.10 reads a variable-length string through the
// file's global heap, whose reader crashes or hangs on a damaged file
// (docs/fuzzing.md); a fixed-length one is read as plain bytes.
Handle utf8_string_type(std::size_t size) {
  Handle type(H5Tcopy(H5T_C_S1));
  check(H5Tset_size(type.get(), std::max<std::size_t>(size, 1)), "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

// An attribute is read into one value: a damaged file's dataspace of many
// elements would write past it.
void require_scalar(hid_t attr, const std::string& name) {
  Handle space(H5Aget_space(attr));
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  if (points != 1) {
    throw BadAttribute(fmt::format("attribute '{}' holds {} values, not one", name, points));
  }
}

template <class T>
void write_scalar_attribute(hid_t object, const std::string& name, hid_t type, const T* value) {
  // replaced, not updated: a string's size is in its type
  if (H5Aexists(object, name.c_str()) > 0) check(H5Adelete(object, name.c_str()), "H5Adelete");
  Handle space(H5Screate(H5S_SCALAR));
  Handle attr(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  check(H5Awrite(attr.get(), type, value), "H5Awrite");
}

}  // namespace

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  const auto type = utf8_string_type(value.size());
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_scalar_attribute(object, name, type.get(), padded.data());
}

void write_attribute(hid_t object, const std::string& name, double value) {
  write_scalar_attribute(object, name, H5T_NATIVE_DOUBLE, &value);
}

void write_attribute(hid_t object, const std::string& name, std::uint64_t value) {
  write_scalar_attribute(object, name, H5T_NATIVE_UINT64, &value);
}

bool has_attribute(hid_t object, const std::string& name) {
  const htri_t exists = H5Aexists(object, name.c_str());
  check(exists, "H5Aexists");
  return exists > 0;
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  Handle attr(H5Aopen(object, name.c_str(), H5P_DEFAULT));
  require_scalar(attr.get(), name);
  Handle stored(H5Aget_type(attr.get()));
  if (H5Tget_class(stored.get()) != H5T_STRING) {
    throw BadAttribute(fmt::format("attribute '{}' is not a string", name));
  }
  const htri_t variable = H5Tis_variable_str(stored.get());
  check(variable, "H5Tis_variable_str");
  if (variable > 0) throw VariableLengthString(name);
  const std::size_t size = H5Tget_size(stored.get());
  if (size == 0 || size > kMaxStringAttribute) {
    throw BadAttribute(fmt::format("attribute '{}' is {} bytes long", name, size));
  }
  std::string value(size, '\0');
  check(H5Aread(attr.get(), utf8_string_type(size).get(), value.data()), "H5Aread");
  value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
  return value;
}

namespace {

template <class T>
T read_scalar_attribute(hid_t object, const std::string& name) {
  Handle attr(H5Aopen(object, name.c_str(), H5P_DEFAULT));
  require_scalar(attr.get(), name);
  T value{};
  check(H5Aread(attr.get(), native_type<T>(), &value), "H5Aread");
  return value;
}

}  // namespace

double read_double_attribute(hid_t object, const std::string& name) {
  return read_scalar_attribute<double>(object, name);
}

std::uint64_t read_uint_attribute(hid_t object, const std::string& name) {
  return read_scalar_attribute<std::uint64_t>(object, name);
}

namespace {

// How every dataset is created: with an object header no larger than its
// messages (hdf5.hpp), and without the times HDF5 would record in it
// (untrack_times).
Handle dataset_creation() {
  Handle create(H5Pcreate(H5P_DATASET_CREATE));
  check(H5Pset_dset_no_attrs_hint(create.get(), true), "H5Pset_dset_no_attrs_hint");
  untrack_times(create.get());
  return create;
}

}  // namespace

void untrack_times(hid_t object_creation) {
  check(H5Pset_obj_track_times(object_creation, false), "H5Pset_obj_track_times");
}

template <class T>
void write_dataset(hid_t parent, const std::string& name, const std::vector<T>& values,
                   const std::vector<hsize_t>& dims) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  Handle set(H5Dcreate2(parent, name.c_str(), native_type<T>(), space.get(), H5P_DEFAULT,
                        dataset_creation().get(), H5P_DEFAULT));
  overwrite(set.get(), values);
}

template <class T>
void overwrite(hid_t dataset, const std::vector<T>& values) {
  check(H5Dwrite(dataset, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        "H5Dwrite");
}

void create_rows(hid_t parent, const std::string& name, hid_t record, hsize_t chunk_rows) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
  Handle space(H5Screate_simple(1, &zero, &unlimited));
  auto create = dataset_creation();
  check(H5Pset_chunk(create.get(), 1, &chunk_rows), "H5Pset_chunk");
  check(H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  check(H5Pset_shuffle(create.get()), "H5Pset_shuffle");
  check(H5Pset_deflate(create.get(), kDeflateLevel), "H5Pset_deflate");
  Handle set(H5Dcreate2(parent, name.c_str(), record, space.get(), H5P_DEFAULT, create.get(),
                        H5P_DEFAULT));
}

hsize_t chunk_rows(hid_t dataset) {
  Handle create(H5Dget_create_plist(dataset));
  hsize_t chunk[2] = {};
  check(H5Pget_chunk(create.get(), 2, chunk), "H5Pget_chunk");
  return chunk[0];
}

Handle direct_chunk_access() {
  Handle access(H5Pcreate(H5P_DATASET_ACCESS));
  // A chunk larger than the cache is not kept in it (H5D__chunk_lock); one
  // without filters and with no fill value to write goes straight to the
  // file (H5D__chunk_cacheable).
  check(H5Pset_chunk_cache(access.get(), H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0,
                           H5D_CHUNK_CACHE_W0_DEFAULT),
        "H5Pset_chunk_cache");
  return access;
}

void bound_metadata_cache(hid_t file_access) {
  H5AC_cache_config_t config{};
  config.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  check(H5Pget_mdc_config(file_access, &config), "H5Pget_mdc_config");
  config.set_initial_size = true;
  config.initial_size = config.min_size = config.max_size = kMetadataCache;
  config.incr_mode = H5C_incr__off;
  config.flash_incr_mode = H5C_flash_incr__off;
  config.decr_mode = H5C_decr__off;
  check(H5Pset_mdc_config(file_access, &config), "H5Pset_mdc_config");
}

bool stored_unfiltered(hid_t dataset, hsize_t first) {
  const hsize_t offset[2] = {first, 0};
  unsigned mask = 0;
  haddr_t address = HADDR_UNDEF;
  hsize_t size = 0;
  check(H5Dget_chunk_info_by_coord(dataset, offset, &mask, &address, &size),
        "H5Dget_chunk_info_by_coord");
  return address != HADDR_UNDEF && mask != 0;
}

std::vector<hsize_t> dims(hid_t dataset) {
  Handle space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check(rank, "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> out(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.get(), out.data(), nullptr), "H5Sget_simple_extent_dims");
  return out;
}

void set_rows(hid_t dataset, hsize_t rows) {
  auto size = dims(dataset);
  size[0] = rows;
  check(H5Dset_extent(dataset, size.data()), "H5Dset_extent");
}

namespace {

// The file and memory spaces of a block of rows (and columns).
std::pair<Handle, Handle> block_spaces(hid_t dataset, hsize_t first_row, hsize_t rows,
                                       hsize_t first_col, hsize_t cols) {
  Handle file(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(file.get());
  const hsize_t start[2] = {first_row, first_col}, count[2] = {rows, cols};
  check(H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
        "H5Sselect_hyperslab");
  return {std::move(file), Handle(H5Screate_simple(rank, count, nullptr))};
}

}  // namespace

void write_chunk(hid_t dataset, hsize_t first, hsize_t rows, std::span<const std::byte> stored,
                 bool filtered) {
  set_rows(dataset, rows);
  std::uint32_t mask = 0;  // every filter applied
  if (!filtered) {
    Handle create(H5Dget_create_plist(dataset));
    const int filters = H5Pget_nfilters(create.get());
    check(filters, "H5Pget_nfilters");
    mask = (std::uint32_t{1} << filters) - 1;  // every filter skipped
  }
  check(H5Dwrite_chunk(dataset, H5P_DEFAULT, mask, &first, stored.size(), stored.data()),
        "H5Dwrite_chunk");
}

void read_rows(hid_t dataset, hid_t record, hsize_t first, hsize_t rows, std::span<std::byte> out) {
  if (rows == 0) return;
  const auto [file, memory] = block_spaces(dataset, first, rows, 0, 1);
  check(H5Dread(dataset, record, memory.get(), file.get(), H5P_DEFAULT, out.data()), "H5Dread");
}

template <class T>
std::vector<T> read_block(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t first_col,
                          hsize_t cols) {
  std::vector<T> out(rows * cols);
  if (rows == 0) return out;
  const auto [file, memory] = block_spaces(dataset, first_row, rows, first_col, cols);
  check(H5Dread(dataset, native_type<T>(), memory.get(), file.get(), H5P_DEFAULT, out.data()),
        "H5Dread");
  return out;
}

template <class T>
std::vector<T> read_all(hid_t dataset) {
  std::size_t count = 1;
  for (const auto extent : dims(dataset)) count *= extent;
  std::vector<T> out(count);
  check(H5Dread(dataset, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "H5Dread");
  return out;
}

#define PFMAB_H5_INSTANTIATE(T)                                                     \
  template void write_dataset<T>(hid_t, const std::string&, const std::vector<T>&,  \
                                 const std::vector<hsize_t>&);                      \
  template void overwrite<T>(hid_t, const std::vector<T>&);                         \
  template std::vector<T> read_block<T>(hid_t, hsize_t, hsize_t, hsize_t, hsize_t); \
  template std::vector<T> read_all<T>(hid_t);
PFMAB_H5_INSTANTIATE(double)
PFMAB_H5_INSTANTIATE(std::uint64_t)
PFMAB_H5_INSTANTIATE(std::int64_t)
PFMAB_H5_INSTANTIATE(std::int32_t)
PFMAB_H5_INSTANTIATE(std::uint8_t)
#undef PFMAB_H5_INSTANTIATE

}  // namespace pfmab::io::h5
