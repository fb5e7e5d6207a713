#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "pfmab/families/family.hpp"
#include "pfmab/model/means_table.hpp"

namespace pfmab::model {

// A PF-MAB game (Sec. 2): M clients, K arms, local means mu_{k,m} and the
// reward family. Read-only once constructed; valid once constructed.
class Instance {
 public:
  // Throws UserError (naming the row and column) for a mean outside the
  // family's range (a Bernoulli mean outside [0, 1]); the table itself was
  // checked for shape and finiteness when read.
  Instance(const MeansTable& table, families::RewardFamily rewards);

  std::size_t clients() const { return clients_; }
  std::size_t arms() const { return arms_; }
  const families::RewardFamily& rewards() const { return rewards_; }

  double local_mean(std::size_t client, std::size_t arm) const {
    return local_means_[client * arms_ + arm];
  }
  std::span<const double> local_means(std::size_t client) const {
    return {local_means_.data() + client * arms_, arms_};
  }
  std::span<const double> local_means() const { return local_means_; }  // client by arm
  // mu_k = (1/M) sum_m mu_{k,m}
  double global_mean(std::size_t arm) const { return global_means_[arm]; }

 private:
  std::size_t clients_;
  std::size_t arms_;
  families::RewardFamily rewards_;
  std::vector<double> local_means_;  // row-major, client by arm
  std::vector<double> global_means_;
};

}  // namespace pfmab::model
