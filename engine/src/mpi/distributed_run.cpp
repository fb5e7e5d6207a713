#include "pfmab/mpi/distributed_run.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pfmab/io/row_block.hpp"
#include "pfmab/mpi/block_handout.hpp"

namespace pfmab::mpi {
namespace {

// Messages: a rank asks rank 0 for a block (no payload); rank 0 replies with
// one or with "none left"; a rank sends a finished block's rows (its id,
// then RowBlock::write_bytes).
constexpr int kRequest = 1;
constexpr int kReply = 2;
constexpr int kRows = 3;

// The reply: {1, id, cell, first, end} or {0, ...} for none left.
using Reply = std::uint64_t[5];

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI call failed: ") + what);
}

// Waits without holding a core: MPI's own blocking calls poll at full speed,
// which on a node whose cores all compute takes one from the workers.
class Backoff {
 public:
  void idle() {
    std::this_thread::sleep_for(wait_);
    wait_ = std::min(wait_ * 2, std::chrono::microseconds(2000));
  }
  void reset() { wait_ = std::chrono::microseconds(50); }

 private:
  std::chrono::microseconds wait_{50};
};

// A rank's results, gathered block by block in the order its pipeline ran
// them (the order its blocks were handed to it).
class BlockCollector {
 public:
  explicit BlockCollector(std::span<const sim::Cell> cells) : cells_(cells) {}

  void started(std::uint64_t id, const sim::Block& block) {
    const std::lock_guard lock(mutex_);
    blocks_.emplace_back(id, block);
  }

  // The block `result` completes, with its id, if it does.
  std::optional<std::pair<std::uint64_t, io::RowBlock>> add(const sim::ReplicationResult& result) {
    std::pair<std::uint64_t, sim::Block> front;
    {
      const std::lock_guard lock(mutex_);
      front = blocks_.front();
    }
    const auto& cell = cells_[front.second.cell];
    if (rows_.rows == 0) {
      rows_.reset(front.second.cell, cell.checkpoints().size(), cell.instance().clients());
    }
    rows_.append(result);
    if (rows_.rows < front.second.replications.count()) return std::nullopt;
    {
      const std::lock_guard lock(mutex_);
      blocks_.pop_front();
    }
    return std::pair{front.first, std::exchange(rows_, io::RowBlock{})};
  }

 private:
  std::span<const sim::Cell> cells_;
  std::mutex mutex_;  // the pipeline's input and output filters share blocks_
  std::deque<std::pair<std::uint64_t, sim::Block>> blocks_;
  io::RowBlock rows_;
};

// The next block a rank runs, with its hand-out id; none when the run is
// over. May wait (for rank 0's answer, or for the window to open).
using NextBlock = std::function<std::optional<std::pair<std::uint64_t, sim::Block>>()>;
// Takes a block's rows once its last replication is done, in the order the
// blocks came.
using FinishedBlock = std::function<void(std::uint64_t id, io::RowBlock&& rows)>;

// A rank's share of the run, any rank's: the blocks `next` gives, run on the
// rank's pipeline, their rows gathered and handed to `finished`.
void run_share(std::span<const sim::Cell> cells, const sim::RunOptions& options,
               const NextBlock& next, const FinishedBlock& finished) {
  sim::RunOptions own = options;
  own.stop = nullptr;       // rank 0's hand-out decides when the run stops
  own.completed = nullptr;  // rank 0 counts the rows as they reach its sink
  BlockCollector collector(cells);
  sim::run_blocks(
      cells, own,
      [&]() -> std::optional<sim::Block> {
        const auto block = next();
        if (!block) return std::nullopt;
        collector.started(block->first, block->second);
        return block->second;
      },
      [&](std::size_t, std::uint64_t, sim::ReplicationResult&& result) {
        if (auto done = collector.add(result)) finished(done->first, std::move(done->second));
      });
}

// A rank other than 0: asks rank 0 for blocks (one asked ahead, so that the
// next is there when the current one is handed to the pipeline), runs them,
// sends their rows back.
void work(std::span<const sim::Cell> cells, const sim::RunOptions& options) {
  std::mutex mpi;  // the pipeline's filters may call MPI from two threads at once
  Reply reply{};
  MPI_Request pending = MPI_REQUEST_NULL;
  auto ask = [&] {
    const std::lock_guard lock(mpi);
    check(MPI_Send(nullptr, 0, MPI_BYTE, 0, kRequest, MPI_COMM_WORLD), "MPI_Send");
    check(MPI_Irecv(reply, 5, MPI_UINT64_T, 0, kReply, MPI_COMM_WORLD, &pending), "MPI_Irecv");
  };
  const NextBlock next = [&]() -> std::optional<std::pair<std::uint64_t, sim::Block>> {
    if (pending == MPI_REQUEST_NULL) return std::nullopt;  // "none left" came
    Backoff backoff;
    for (int done = 0;;) {
      {
        const std::lock_guard lock(mpi);
        check(MPI_Test(&pending, &done, MPI_STATUS_IGNORE), "MPI_Test");
      }
      if (done) break;
      backoff.idle();
    }
    if (reply[0] == 0) return std::nullopt;
    const std::pair<std::uint64_t, sim::Block> block{
        reply[1], {static_cast<std::size_t>(reply[2]), {reply[3], reply[4]}}};
    ask();
    return block;
  };
  // Rows on their way to rank 0, oldest first. Sent without waiting: a
  // block's rows are too large to go before rank 0 takes them, and a
  // blocking send would hold the pipeline (and, while MPI polls, a core).
  struct Outgoing {
    std::vector<char> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::deque<Outgoing> sending;
  auto reap_sent = [&] {  // with `mpi` held
    for (int done = 1; done && !sending.empty();) {
      check(MPI_Test(&sending.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) sending.pop_front();
    }
  };
  const FinishedBlock send = [&](std::uint64_t id, io::RowBlock&& rows) {
    Outgoing out;
    out.bytes.resize(sizeof id);
    std::memcpy(out.bytes.data(), &id, sizeof id);
    rows.write_bytes(out.bytes);
    if (out.bytes.size() > static_cast<std::size_t>(INT_MAX)) {
      throw std::runtime_error("a block's rows exceed 2 GiB, more than one MPI message holds");
    }
    const std::lock_guard lock(mpi);
    reap_sent();
    auto& posted = sending.emplace_back(std::move(out));
    check(MPI_Isend(posted.bytes.data(), static_cast<int>(posted.bytes.size()), MPI_BYTE, 0,
                    kRows, MPI_COMM_WORLD, &posted.request),
          "MPI_Isend");
  };
  ask();
  run_share(cells, options, next, send);
  for (auto& out : sending) {
    check(MPI_Wait(&out.request, MPI_STATUS_IGNORE), "MPI_Wait");
  }
}

// Rank 0: hands out blocks to every rank and to its own pipeline (run on
// another thread), takes the rows back and gives them to `sink` in order.
void coordinate(std::span<const sim::Cell> cells, const sim::RunOptions& options, int ranks,
                const sim::ResultSink& sink) {
  BlockHandout handout(options.ranges, static_cast<std::size_t>(ranks), options.threads);
  std::mutex handout_mutex;

  // Its own share, computed like any rank's.
  std::atomic<bool> local_done{false};
  std::exception_ptr local_error;
  std::thread local([&] {
    try {
      run_share(
          cells, options,
          [&]() -> std::optional<std::pair<std::uint64_t, sim::Block>> {
            for (Backoff backoff;; backoff.idle()) {
              BlockHandout::Answer answer;
              {
                const std::lock_guard lock(handout_mutex);
                answer = handout.next(0);
              }
              if (answer.status == BlockHandout::Status::done) return std::nullopt;
              if (answer.status == BlockHandout::Status::block) {
                return std::pair{answer.id, answer.block};
              }
            }
          },
          [&](std::uint64_t id, io::RowBlock&& rows) {
            const std::lock_guard lock(handout_mutex);
            handout.finished(id, std::move(rows));
          });
    } catch (...) {
      local_error = std::current_exception();
    }
    local_done = true;
  });

  std::deque<int> asking;  // ranks waiting for an answer, in the order they asked
  int told_done = 0;       // ranks told that no block is left
  Backoff backoff;
  std::vector<char> bytes;
  for (;;) {
    bool busy = false;
    if (options.stop && options.stop->load()) {
      const std::lock_guard lock(handout_mutex);
      handout.stop();
    }
    int arrived = 0;
    MPI_Status status;
    for (;;) {
      check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status),
            "MPI_Iprobe");
      if (!arrived) break;
      busy = true;
      if (status.MPI_TAG == kRequest) {
        check(MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kRequest, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
        asking.push_back(status.MPI_SOURCE);
      } else {
        int size = 0;
        check(MPI_Get_count(&status, MPI_BYTE, &size), "MPI_Get_count");
        bytes.resize(static_cast<std::size_t>(size));
        check(MPI_Recv(bytes.data(), size, MPI_BYTE, status.MPI_SOURCE, kRows, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
        std::uint64_t id = 0;
        std::memcpy(&id, bytes.data(), sizeof id);
        auto rows = io::RowBlock::read_bytes(std::span(bytes).subspan(sizeof id));
        if (options.timed) {
          for (std::size_t r = 0; r < rows.rows; ++r) options.timed(rows.cell, rows.used_by(r));
        }
        const std::lock_guard lock(handout_mutex);
        handout.finished(id, std::move(rows));
      }
    }
    for (auto who = asking.begin(); who != asking.end();) {
      BlockHandout::Answer answer;
      {
        const std::lock_guard lock(handout_mutex);
        answer = handout.next(*who);
      }
      if (answer.status == BlockHandout::Status::wait) {
        ++who;
        continue;
      }
      const bool block = answer.status == BlockHandout::Status::block;
      const Reply reply{block ? 1u : 0u, answer.id, answer.block.cell,
                        answer.block.replications.first, answer.block.replications.end};
      check(MPI_Send(reply, 5, MPI_UINT64_T, *who, kReply, MPI_COMM_WORLD), "MPI_Send");
      told_done += block ? 0 : 1;
      who = asking.erase(who);
      busy = true;
    }
    for (;;) {
      std::optional<std::pair<sim::Block, io::RowBlock>> next;
      {
        const std::lock_guard lock(handout_mutex);
        next = handout.pop_in_order();
      }
      if (!next) break;
      busy = true;
      const auto& [block, rows] = *next;
      for (std::size_t r = 0; r < rows.rows; ++r) {
        sink(block.cell, block.replications.first + r, rows.result(r));
        if (options.completed) options.completed->fetch_add(1, std::memory_order_relaxed);
      }
    }
    if (local_done && local_error) break;
    if (local_done && told_done == ranks - 1) {
      const std::lock_guard lock(handout_mutex);
      if (handout.complete()) break;
    }
    if (busy) {
      backoff.reset();
    } else {
      backoff.idle();
    }
  }
  local.join();
  if (local_error) std::rethrow_exception(local_error);
}

}  // namespace

Session::Session(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_SERIALIZED) {
    throw std::runtime_error("this MPI library cannot be called from more than one thread");
  }
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
}

Session::~Session() { MPI_Finalize(); }

Agreement agree(int status) {
  struct {
    int value, rank;
  } mine{status, 0}, worst{};
  check(MPI_Comm_rank(MPI_COMM_WORLD, &mine.rank), "MPI_Comm_rank");
  // MAXLOC: the largest value, and the lowest rank among those holding it
  check(MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD), "MPI_Allreduce");
  return {worst.value, worst.rank};
}

void abort_all(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);  // not reached: MPI_Abort ends the job
}

void run_distributed(std::span<const sim::Cell> cells, const sim::RunOptions& options,
                     const sim::ResultSink& sink) {
  sim::validate(options);
  int rank = 0, ranks = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  if (rank == 0) {
    sim::RunOptions whole = options;
    if (whole.ranges.empty()) whole.ranges.assign(cells.size(), {0, options.replications});
    coordinate(cells, whole, ranks, sink);
  } else {
    work(cells, options);
  }
}

}  // namespace pfmab::mpi
