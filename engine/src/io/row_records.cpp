#include "io/row_records.hpp"

#include <cassert>
#include <cstring>

namespace pfmab::io {

RowRecords::RowRecords(std::size_t checkpoints, std::size_t clients)
    : checkpoints_(checkpoints), clients_(clients) {
  std::size_t index = 0;
  sim::for_each_column([&](const auto& column) {
    offsets_[index++] = size_;
    size_ += column.count(checkpoints, clients) * sizeof(sim::ElementOf<decltype(column)>);
  });
}

h5::Handle RowRecords::type() const {
  h5::Handle type(H5Tcreate(H5T_COMPOUND, size_));
  std::size_t index = 0;
  sim::for_each_column([&](const auto& column) {
    const auto element = h5::native_type<sim::ElementOf<decltype(column)>>();
    const hsize_t width = column.count(checkpoints_, clients_);
    h5::Handle array;
    if (column.width != sim::Width::one) array = h5::Handle(H5Tarray_create2(element, 1, &width));
    h5::check(H5Tinsert(type.get(), column.name, offsets_[index++], array ? array.get() : element),
              "H5Tinsert");
  });
  return type;
}

void RowRecords::pack(const RowBlock& block, std::size_t first, std::size_t rows,
                      std::vector<std::byte>& records) const {
  assert(block.checkpoints == checkpoints_ && block.clients == clients_);
  assert(first + rows <= block.rows);
  const auto start = records.size();
  records.resize(start + rows * size_);
  std::size_t index = 0;
  block.for_each_column([&](const auto& column, const auto& values) {
    const auto bytes = block.width(column) * sizeof values[0];
    for (std::size_t r = 0; r < rows; ++r) {
      std::memcpy(&records[start + r * size_ + offsets_[index]],
                  values.data() + (first + r) * block.width(column), bytes);
    }
    ++index;
  });
}

void RowRecords::unpack(std::span<const std::byte> records, RowBlock& block) const {
  assert(block.checkpoints == checkpoints_ && block.clients == clients_);
  assert(records.size() % size_ == 0);
  const auto rows = records.size() / size_;
  std::size_t index = 0;
  sim::for_each_column(block.values, [&](const auto& column, auto& values) {
    const auto width = block.width(column);
    const auto start = values.size();
    values.resize(start + rows * width);
    for (std::size_t r = 0; r < rows; ++r) {
      std::memcpy(values.data() + start + r * width, &records[r * size_ + offsets_[index]],
                  width * sizeof values[0]);
    }
    ++index;
  });
  block.rows += rows;
}

}  // namespace pfmab::io
