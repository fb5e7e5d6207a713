#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "pfmab/families/divergence.hpp"
#include "pfmab/util/limits.hpp"

// The reward families: the law of one local reward X_{k,m}(t) around its
// mean (Sec. 2). Each family is one type in one file of this folder,
// registered by one line of registry.hpp; docs/families.md says what a
// family declares and how to add one. Nothing outside this folder names a
// family: generic code asks a game's RewardFamily what it needs.
namespace pfmab::families {

// A number a family takes beside the mean (Gaussian sigma, Student-t nu):
// the instance key `instance.<name>`, its flag `--<name>`, its default and
// range. A key no family of a cell declares has no effect on it, and is
// refused like every other key with none.
struct FamilyParameter {
  std::string_view name;
  double fallback;
  limits::RealRange range;
  std::string_view help;
};

// The most parameters a family declares.
inline constexpr std::size_t kMaxParameters = 2;

// A stretch of pulls of one arm and the sum of their rewards.
struct Stretch {
  std::uint64_t pulls = 0;
  double sum = 0.0;
};

// Throws std::invalid_argument(what); out of line, so that a sampler's check
// stays small enough to inline.
[[noreturn]] void refuse_rewards(const char* what);

class RewardFamily;

// What generic code asks of a family at set-up, not per draw (the draws go
// through its Sampler type: registry.hpp, with_sampler). One per registered
// family, made from the family's type by the registry.
class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;     // as --rewards takes it: "bernoulli"
  virtual std::string_view display() const = 0;  // as messages say it: "Bernoulli"
  virtual std::span<const FamilyParameter> parameters() const = 0;
  // The means its rewards can have; an instance's means outside are refused.
  virtual const limits::RealRange& means() const = 0;
  // Whether it draws a sum of n rewards in one draw from the sum's exact law;
  // the aggregated mode needs it (docs/fidelity.md).
  virtual bool exact_sums() const = 0;
  // Its KL divergence at `family`'s parameters, or nullptr if it has none
  // the engine can use (then `no_divergence` says why): the tight bound C*
  // and the KL-aware algorithms read the family through it.
  virtual std::unique_ptr<const Divergence> divergence(const RewardFamily& family) const = 0;
  virtual std::string_view no_divergence() const = 0;
  // Whether it has a posterior of the mean that Thompson sampling can draw
  // from (its Posterior type: registry.hpp, with_posterior); if not,
  // `no_posterior` says why and what to use instead.
  virtual bool has_posterior() const = 0;
  virtual std::string_view no_posterior() const = 0;
  // sigma such that a reward is sigma-sub-Gaussian around its mean (Sec. 2's
  // assumption): what a confidence width scales with. Gaussian: sigma;
  // rewards in [0, 1]: 1/2 (Hoeffding).
  virtual double subgaussian_sigma(const RewardFamily& family) const = 0;
  // s in UCB1's bonus s sqrt(2 log t / n): Gaussian sigma; rewards in
  // [0, 1] 1, the width of their range, as Auer, Cesa-Bianchi and Fischer
  // (2002) state it.
  virtual double ucb_scale(const RewardFamily& family) const = 0;
};

// A game's reward family and the values of its parameters: a small value,
// compared and copied freely. Read-only once constructed; valid once
// constructed.
class RewardFamily {
 public:
  RewardFamily();  // Gaussian, sigma 1: the paper's N(mu, 1)
  // The family named `name` (as --rewards takes it), its parameters given in
  // the order it declares them (missing ones at their defaults). Throws
  // UserError for an unknown name, a value out of its range, or more values
  // than the family has parameters.
  explicit RewardFamily(std::string_view name, std::span<const double> values = {});
  RewardFamily(std::string_view name, std::initializer_list<double> values)
      : RewardFamily(name, std::span<const double>(values.begin(), values.size())) {}

  const Family& family() const;
  std::size_t index() const { return index_; }  // its place in the registry
  std::string_view name() const { return family().name(); }
  // The value of the family's parameter `name`; throws std::logic_error if it
  // has none of that name.
  double value(std::string_view name) const;
  // Its parameters' values, in the order the family declares them.
  std::span<const double> values() const { return {values_.data(), count_}; }

  // The family's answers at these values (Family).
  std::unique_ptr<const Divergence> divergence() const { return family().divergence(*this); }
  double subgaussian_sigma() const { return family().subgaussian_sigma(*this); }
  double ucb_scale() const { return family().ucb_scale(*this); }

  bool operator==(const RewardFamily& other) const = default;

 private:
  std::uint8_t index_ = 0;
  std::uint8_t count_ = 0;
  std::array<double, kMaxParameters> values_{};
};

// The registered families' names, as --rewards takes them: "gaussian,
// bernoulli, ...".
std::string family_names();
// Every registered family, in registration order.
std::span<const Family* const> all_families();
// The family named `name` (as --rewards takes it), or nullptr.
const Family* find_family(std::string_view name);

}  // namespace pfmab::families
