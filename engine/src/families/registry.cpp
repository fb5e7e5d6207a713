#include "pfmab/families/registry.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::families {

void refuse_rewards(const char* what) { throw std::invalid_argument(what); }

namespace {

// A registered family's type, seen through the Family interface.
template <class F>
class Entry final : public Family {
  static_assert(F::parameters.size() <= kMaxParameters);
  static_assert(F::exact_sums == SumsExactly<typename F::Sampler>,
                "a family declares exact_sums exactly when its Sampler has sum_of and "
                "until_below_zero");
  static_assert(F::no_posterior.empty() == HasPosterior<F>,
                "a family says why it has no posterior exactly when it has no Posterior");

 public:
  std::string_view name() const override { return F::name; }
  std::string_view display() const override { return F::display; }
  std::span<const FamilyParameter> parameters() const override { return F::parameters; }
  const limits::RealRange& means() const override { return F::means; }
  bool exact_sums() const override { return F::exact_sums; }
  std::unique_ptr<const Divergence> divergence(const RewardFamily& family) const override {
    return F::divergence(family);
  }
  std::string_view no_divergence() const override { return F::no_divergence; }
  bool has_posterior() const override { return HasPosterior<F>; }
  std::string_view no_posterior() const override { return F::no_posterior; }
  double subgaussian_sigma(const RewardFamily& family) const override {
    return F::subgaussian_sigma(family);
  }
  double ucb_scale(const RewardFamily& family) const override { return F::ucb_scale(family); }
};

template <class... F>
std::array<const Family*, sizeof...(F)> entries(std::type_identity<std::tuple<F...>>) {
  static const std::tuple<Entry<F>...> all;
  return {&std::get<Entry<F>>(all)...};
}

const std::array<const Family*, kFamilies>& registry() {
  static const auto all = entries(std::type_identity<Registered>{});
  return all;
}

}  // namespace

std::span<const Family* const> all_families() { return registry(); }

std::string family_names() {
  std::string names;
  for (const auto* family : registry()) {
    names += (names.empty() ? "" : ", ") + std::string(family->name());
  }
  return names;
}

const Family* find_family(std::string_view name) {
  for (const auto* family : registry()) {
    if (family->name() == name) return family;
  }
  return nullptr;
}

RewardFamily::RewardFamily() : RewardFamily(Gaussian::name) {}

RewardFamily::RewardFamily(std::string_view name, std::span<const double> values) {
  const auto& all = registry();
  std::size_t at = 0;
  while (at < all.size() && all[at]->name() != name) ++at;
  if (at == all.size()) {
    throw UserError(fmt::format("unknown reward family '{}' (expected one of: {})", excerpt(name),
                                family_names()));
  }
  const auto declared = all[at]->parameters();
  if (values.size() > declared.size()) {
    throw UserError(fmt::format("{} rewards take {} parameters, not {}", all[at]->display(),
                                declared.size(), values.size()));
  }
  index_ = static_cast<std::uint8_t>(at);
  count_ = static_cast<std::uint8_t>(declared.size());
  for (std::size_t i = 0; i < declared.size(); ++i) {
    values_[i] = i < values.size() ? values[i] : declared[i].fallback;
    limits::check(values_[i], fmt::format("{} reward {}", all[at]->display(), declared[i].name),
                  declared[i].range);
  }
}

const Family& RewardFamily::family() const { return *registry()[index_]; }

double RewardFamily::value(std::string_view name) const {
  const auto declared = family().parameters();
  for (std::size_t i = 0; i < declared.size(); ++i) {
    if (declared[i].name == name) return values_[i];
  }
  throw std::logic_error(
      fmt::format("{} rewards have no parameter '{}'", family().display(), name));
}

}  // namespace pfmab::families
