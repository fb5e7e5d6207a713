#include "pfmab/model/instance.hpp"

#include <fmt/format.h>

#include "pfmab/util/limits.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::model {

Instance::Instance(const MeansTable& table, families::RewardFamily rewards)
    : clients_(table.rows.size()),
      arms_(table.rows.empty() ? 0 : table.rows.front().size()),
      rewards_(rewards) {
  if (clients_ == 0 || arms_ == 0) {
    throw UserError("the instance has no means (expected at least one client and one arm)");
  }
  if (clients_ > limits::max_clients || arms_ > limits::max_arms ||
      clients_ * arms_ > limits::max_instance_size) {
    throw UserError(fmt::format(
        "the instance has {} clients and {} arms; at most {} of either and {} means in all are "
        "accepted (each running replication holds a few numbers per client and arm)",
        clients_, arms_, limits::max_clients, limits::max_instance_size));
  }
  const auto& family = rewards_.family();
  local_means_.reserve(clients_ * arms_);
  for (std::size_t m = 0; m < clients_; ++m) {
    for (std::size_t k = 0; k < arms_; ++k) {
      const double mu = table.rows[m][k];
      try {
        limits::check(mu, "mean", limits::mean);
        limits::check(mu, fmt::format("{} mean", family.display()), family.means());
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: column {}: {}", table.row_origin[m], k + 1, e.what()));
      }
      local_means_.push_back(mu);
    }
  }
  global_means_.assign(arms_, 0.0);
  for (std::size_t k = 0; k < arms_; ++k) {
    double sum = 0.0;
    for (std::size_t m = 0; m < clients_; ++m) sum += local_mean(m, k);
    global_means_[k] = sum / static_cast<double>(clients_);
  }
}

}  // namespace pfmab::model
