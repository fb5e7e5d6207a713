#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <hdf5.h>

namespace pfmab::io::h5 {

// An HDF5 identifier that closes itself (file, group, dataset, dataspace,
// property list, type or attribute).
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id);  // throws std::runtime_error for a failed call (id < 0)
  Handle(Handle&& other) noexcept : id_(other.id_) { other.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Throws std::runtime_error naming `what` when an HDF5 call fails.
void check(herr_t status, const char* what);

// HDF5 prints its own error stacks by default; pfmab reports errors itself.
void silence_errors();

// The HDF5 type of a C++ element type.
template <class T>
hid_t native_type();

// Attributes (variable-length UTF-8 strings, doubles, unsigned integers),
// written anew (an existing one of the name is replaced).
void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, double value);
void write_attribute(hid_t object, const std::string& name, std::uint64_t value);
std::string read_string_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);
bool has_attribute(hid_t object, const std::string& name);

// A fixed-size dataset written once.
template <class T>
void write_dataset(hid_t parent, const std::string& name, const std::vector<T>& values,
                   const std::vector<hsize_t>& dims);

// Replaces every value of an existing dataset.
template <class T>
void overwrite(hid_t dataset, const std::vector<T>& values);

// A dataset of `columns` values per row (a 1-D one when columns == 0) that
// grows by rows: chunked by `chunk_rows`, unlimited in its first dimension.
// No fill value is ever written: its rows are written as it grows, and
// without one HDF5 writes whole chunks straight from the caller's buffer
// (open it with direct_chunk_access()) instead of through its chunk cache.
template <class T>
void create_rows(hid_t parent, const std::string& name, hsize_t columns, hsize_t chunk_rows);

// Dataset access that bypasses HDF5's chunk cache, for datasets written in
// whole chunks (one copy less per write).
Handle direct_chunk_access();

// Rows [first, first + values.size() / columns) of a rows dataset, growing it
// to end there.
template <class T>
void write_rows(hid_t dataset, hsize_t first, hsize_t columns, const std::vector<T>& values);

// Reads the block [first_row, +rows) x [first_col, +cols) of a 2-D dataset
// (cols is ignored and the block is 1-D for a 1-D dataset).
template <class T>
std::vector<T> read_block(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t first_col = 0,
                          hsize_t cols = 1);

std::vector<hsize_t> dims(hid_t dataset);
void set_rows(hid_t dataset, hsize_t rows);  // resizes the first dimension

}  // namespace pfmab::io::h5
