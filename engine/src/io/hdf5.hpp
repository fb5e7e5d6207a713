#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <hdf5.h>

namespace pfmab::io::h5 {

// A failed HDF5 call, described from the calling thread's HDF5 error stack,
// so it is made right after the call: the system's message when reading or
// writing the file failed ("No space left on device"), else HDF5's innermost
// (most specific) message, then the API function that failed, e.g. "File
// too large (H5Fclose)". Callers add which file and what they were doing.
class Error : public std::runtime_error {
 public:
  // `call` names the failed call if HDF5's stack does not (nullptr: unknown).
  explicit Error(const char* call);
};

// An HDF5 identifier that closes itself (file, group, dataset, dataspace,
// property list, type or attribute).
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id);  // throws Error for a failed call (id < 0)
  Handle(Handle&& other) noexcept : id_(other.id_) { other.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }

  // Closes it now, throwing Error if HDF5 cannot (closing a file writes what
  // HDF5 still holds of it; the destructor cannot report that). The handle
  // is empty afterwards either way: an object whose close failed must not
  // be closed again (see hdf5.cpp).
  void close();
  // Forgets the object without closing it: it stays open, untouched, until
  // the process ends. For a file a write to has failed: closing it would
  // write HDF5's idea of it (space allocated for data never written) over
  // the file as last flushed.
  void abandon() { id_ = H5I_INVALID_HID; }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Throws Error (naming `what` if HDF5 does not) when an HDF5 call fails
// (returns a negative value).
void check(herr_t status, const char* what);

// HDF5 prints its error stack on stderr by default; pfmab reports errors
// itself, in one line. A thread-safe HDF5 (Debian's) keeps this setting per
// thread: it is made for the thread that starts the program, and every other
// thread calls this before its first HDF5 call.
void silence_errors();

// The HDF5 type of a C++ element type.
template <class T>
hid_t native_type();

// Attributes (fixed-length UTF-8 strings, doubles, unsigned integers),
// written anew (an existing one of the name is replaced). Reading one that
// is not a single value of the type throws BadAttribute; a variable-length
// string (how pfmab-results-4 and earlier stored them) is not read but
// reported as VariableLengthString.
class BadAttribute : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class VariableLengthString : public BadAttribute {
 public:
  explicit VariableLengthString(const std::string& name)
      : BadAttribute("attribute '" + name + "' is a variable-length string") {}
};
// No pfmab attribute comes near this (the canonical experiment of the largest
// sweep accepted is a few MiB); a damaged file's size is refused before
// memory is taken for it.
inline constexpr std::size_t kMaxStringAttribute = std::size_t{1} << 30;
void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, double value);
void write_attribute(hid_t object, const std::string& name, std::uint64_t value);
std::string read_string_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);
std::uint64_t read_uint_attribute(hid_t object, const std::string& name);
bool has_attribute(hid_t object, const std::string& name);

// Datasets are created without room for attributes (pfmab gives none but
// the summary's two, which their header grows to hold): HDF5 otherwise
// leaves about 160 bytes spare in each object header.

// Objects are created without the access, change and modification times
// HDF5 would otherwise record in each: pfmab reads none of them (the root's
// `created` says when the output was made), and each costs its object header
// a message that every creation writes and every flush checksums.
void untrack_times(hid_t object_creation);

// A fixed-size dataset written once.
template <class T>
void write_dataset(hid_t parent, const std::string& name, const std::vector<T>& values,
                   const std::vector<hsize_t>& dims);

// Replaces every value of an existing dataset.
template <class T>
void overwrite(hid_t dataset, const std::vector<T>& values);

// A 1-D dataset of records of type `record` (a row each) that grows by
// rows: chunked by `chunk_rows`, unlimited, its chunks shuffled (the bytes
// of its records grouped by their place in the record) and deflated at
// kDeflateLevel, which h5py and every HDF5 reader undo by themselves
// (bench/README.md, "Output size", for what each filter saves and costs).
// No fill value is ever written: its rows are written as it grows, so HDF5
// never has to fill a chunk before writing it.
inline constexpr unsigned kDeflateLevel = 1;
void create_rows(hid_t parent, const std::string& name, hid_t record, hsize_t chunk_rows);
// The rows of a chunk of a rows dataset, as it was created.
hsize_t chunk_rows(hid_t dataset);

// File access with a metadata cache of a fixed size. HDF5's default cache
// grows to 32 MiB, and every flush walks all of its entries (to list the
// dirty ones: H5C_set_slist_enabled), so a file written cell after cell,
// flushed as each completes, cost a flush per cell that grew with the cells
// before it: 42 s for 1,000 cells of 2 replications (bench/README.md,
// "Writer against cells"). A writer works on one cell at a time; the
// cache need hold no more than that cell's objects and the paths to them.
inline constexpr std::size_t kMetadataCache = std::size_t{1} << 20;
void bound_metadata_cache(hid_t file_access);

// Dataset access without HDF5's chunk cache, for datasets written in whole
// chunks: each write's chunk is filtered and written at once (not held until
// the next flush), or without filters goes straight from the caller's buffer.
Handle direct_chunk_access();

// The chunk of a rows dataset that starts at row `first`, whole, growing the
// dataset to `rows` rows. `filtered`: `stored` is the chunk through the
// dataset's filters (io::filter_chunk) and is stored as it is, HDF5 calling
// neither its filters nor its type conversion. Otherwise `stored` is the
// chunk's records, zero past the last, stored unfiltered (every filter
// skipped, as its filter mask records): a chunk stored so keeps its size
// whatever it holds, so it is rewritten in place. HDF5 1.10 leaves the mask
// out of the chunk's entry in its lookup cache, and reads an unfiltered
// chunk through the filters ("inflate() failed") until every opening of the
// dataset is closed: do not read it back before.
void write_chunk(hid_t dataset, hsize_t first, hsize_t rows, std::span<const std::byte> stored,
                 bool filtered);
// Rows [first, first + rows) of a rows dataset into `out`, as records of
// type `record`.
void read_rows(hid_t dataset, hid_t record, hsize_t first, hsize_t rows, std::span<std::byte> out);

// Whether the chunk of a rows dataset that starts at row `first` is stored
// unfiltered (by write_chunk); false if it is not stored at all.
bool stored_unfiltered(hid_t dataset, hsize_t first);

// Reads the block [first_row, +rows) x [first_col, +cols) of a 2-D dataset
// (cols is ignored and the block is 1-D for a 1-D dataset).
template <class T>
std::vector<T> read_block(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t first_col = 0,
                          hsize_t cols = 1);

// Every value of a dataset, in row-major order.
template <class T>
std::vector<T> read_all(hid_t dataset);

std::vector<hsize_t> dims(hid_t dataset);
void set_rows(hid_t dataset, hsize_t rows);  // resizes the first dimension

}  // namespace pfmab::io::h5
