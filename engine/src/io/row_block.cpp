#include "pfmab/io/row_block.hpp"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace pfmab::io {

void RowBlock::reset(std::size_t cell_index, std::size_t checkpoint_count,
                     std::size_t client_count) {
  cell = cell_index;
  checkpoints = checkpoint_count;
  clients = client_count;
  rows = 0;
  sim::for_each_column(values, [](const auto&, auto& column_values) { column_values.clear(); });
  used.clear();
}

void RowBlock::append(const sim::ReplicationResult& result) {
  sim::for_each_column(values, [&](const auto& column, auto& to) {
    const auto from = column.values(result);
    assert(from.size() == width(column));
    to.insert(to.end(), from.begin(), from.end());
  });
  used.push_back(result.used);
  ++rows;
}

void RowBlock::append(const RowBlock& other) {
  assert(other.cell == cell && other.checkpoints == checkpoints && other.clients == clients);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (std::get<I>(values).insert(std::get<I>(values).end(), std::get<I>(other.values).begin(),
                                std::get<I>(other.values).end()),
     ...);
  }
  (std::make_index_sequence<sim::kColumnCount>{});
  // rows without a time (read from a file) keep their place as unmeasured
  used.resize(rows, sim::TimeUsed{});
  for (std::size_t r = 0; r < other.rows; ++r) used.push_back(other.used_by(r));
  rows += other.rows;
}

sim::ReplicationResult RowBlock::result(std::size_t row) const {
  sim::ReplicationResult out;
  for_each_column([&](const auto& column, const auto& from) {
    column.assign(out, row_of(std::span(from), width(column), row));
  });
  out.used = used_by(row);
  return out;
}

void RowBlock::write_bytes(std::vector<char>& bytes) const {
  auto put = [&](const void* data, std::size_t size) {
    const auto* from = static_cast<const char*>(data);
    bytes.insert(bytes.end(), from, from + size);
  };
  const std::uint64_t header[] = {cell, checkpoints, clients, rows};
  put(header, sizeof header);
  for_each_column([&](const auto&, const auto& column_values) {
    const std::uint64_t size = column_values.size();
    put(&size, sizeof size);
    put(column_values.data(), size * sizeof column_values[0]);
  });
  const std::uint64_t timed = used.size();
  put(&timed, sizeof timed);
  put(used.data(), timed * sizeof used[0]);
}

RowBlock RowBlock::read_bytes(std::span<const char> bytes) {
  auto take = [&](void* data, std::size_t size) {
    if (size > bytes.size()) throw std::runtime_error("a block's bytes end early");
    std::memcpy(data, bytes.data(), size);
    bytes = bytes.subspan(size);
  };
  std::uint64_t header[4];
  take(header, sizeof header);
  RowBlock block;
  block.reset(header[0], header[1], header[2]);
  block.rows = header[3];
  sim::for_each_column(block.values, [&](const auto&, auto& column_values) {
    std::uint64_t size = 0;
    take(&size, sizeof size);
    if (size > bytes.size()) throw std::runtime_error("a block's bytes end early");
    column_values.resize(size);
    take(column_values.data(), size * sizeof column_values[0]);
  });
  std::uint64_t timed = 0;
  take(&timed, sizeof timed);
  if (timed > block.rows) throw std::runtime_error("a block's times outnumber its rows");
  block.used.resize(timed);
  take(block.used.data(), timed * sizeof block.used[0]);
  if (!bytes.empty()) throw std::runtime_error("bytes left after a block");
  return block;
}

}  // namespace pfmab::io
