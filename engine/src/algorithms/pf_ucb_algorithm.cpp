// PF-UCB (Algorithms 1 and 2, Sec. 4) and its enhanced version (Sec. 6)
// through the algorithm interface: its options, its configuration for a
// cell, and its clients and server as a phased algorithm. The rules
// themselves (lengths, radii, elimination, aggregation) are in pf_ucb.cpp.

#include <array>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "pfmab/algorithms/authors_waiting.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/algorithms/registry.hpp"
#include "pfmab/sim/phased.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::algorithms {
namespace {

using io::Value;

const std::string& word_of(const Value& v) { return std::get<std::string>(v); }
double real_of(const Value& v) { return std::get<double>(v); }

void check_preset(const Value& v) { parse_preset(word_of(v)); }
void check_schedule(const Value& v) { theory::parse_schedule_kind(word_of(v)); }
void check_lambda(const Value& v) {
  theory::validate({theory::ScheduleKind::constant, real_of(v), 1.0});
}
void check_schedule_factor(const Value& v) {
  theory::validate({theory::ScheduleKind::doubling, 1.0, real_of(v)});
}
void check_confidence_constant(const Value& v) { theory::validate_confidence_constant(real_of(v)); }
void check_log_term(const Value& v) {
  if (word_of(v) != "T" && word_of(v) != "MT") {
    throw UserError(fmt::format("'{}' is not T (log T) or MT (log(MT))", excerpt(word_of(v))));
  }
}
void check_lengths(const Value& v) { theory::parse_lengths(word_of(v)); }

// Absent: each preset's own, 4 for the paper and 1 for the authors' code.
Value derive_confidence_constant(std::span<const Value> cell) {
  const auto preset = parse_preset(word_of(cell[io::index_of("algorithm.preset")]));
  return preset == Preset::authors_code ? 1.0 : 4.0;
}

using enum io::ValueType;

// Their places in sweep order are those they had before the algorithm
// interface (io::Parameter::order).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::array<io::Parameter, 7> options{{
    {.key = "algorithm.preset", .order = 50, .flags = "--preset", .type = word,
     .fallback = "paper", .sweeps = true,
     .help = "PF-UCB's rules: paper (Algorithm 1) or authors-code (the authors' published code)",
     .check = check_preset},
    {.key = "algorithm.schedule", .order = 100, .flags = "--schedule", .type = word,
     .fallback = "doubling-log", .sweeps = true,
     .help = "f(p): doubling-log (2^p log T), constant (lambda), constant-log (lambda log T), "
             "doubling (2^p)",
     .check = check_schedule},
    {.key = "algorithm.lambda", .order = 110, .flags = "--lambda", .type = real, .fallback = "1",
     .sweeps = true, .help = "lambda of the constant schedules", .check = check_lambda},
    {.key = "algorithm.schedule_factor", .order = 120, .flags = "--schedule-factor", .type = real,
     .fallback = "1", .sweeps = true, .help = "a factor multiplying f(p)",
     .check = check_schedule_factor},
    {.key = "algorithm.confidence_constant", .order = 130, .flags = "--confidence-constant",
     .type = real, .sweeps = true,
     .help = "c_B in B_p = sqrt(c_B L / (M F(p))): 4, or 1 with authors-code",
     .check = check_confidence_constant, .derive = derive_confidence_constant},
    {.key = "algorithm.log_term", .order = 140, .flags = "--log-term", .type = word,
     .fallback = "T", .sweeps = true, .help = "L in B_p: T (log T) or MT (log(MT))",
     .check = check_log_term},
    {.key = "algorithm.lengths", .order = 150, .flags = "--lengths", .type = word,
     .fallback = "paper", .sweeps = true,
     .help = "exploration lengths: paper or large-m (Sec. 4 remark)", .check = check_lengths},
}};
#pragma GCC diagnostic pop

const OptionGroup pf_ucb_options{"PF-UCB", options};

// One replication's clients and server (Algorithms 1 and 2).
class PfUcbState final : public sim::PhasedState {
 public:
  PfUcbState(const sim::Cell& cell, const PfUcbRule& rule)
      : cell_(cell),
        rule_(rule),
        preset_(rule.params().preset),
        alpha_(rule.alpha()),
        full_participation_(cell.spec().participation.full(cell.instance().clients())),
        clients_(cell.instance().clients(), PfUcbClient(cell.instance().arms())),
        server_(cell.instance().arms(), cell.instance().clients()),
        global_counts_(clients_.size()),
        local_counts_(clients_.size()),
        cumulative_(clients_.size(), 0.0) {}

  // Every client has left A: each plays O_m from now on.
  bool finished() const override { return server_.active().empty(); }

  void begin_phase(std::uint64_t phase, std::span<const std::uint32_t> participants) override {
    phase_ = phase;
    for (const auto m : participants) cumulative_[m] += rule_.schedule().f(phase);
  }

  // Global exploration of A(p), then local exploration of A_m(p).
  void plan(std::size_t m, std::vector<sim::Run>& runs) override {
    runs.push_back(run_over(server_.active(), m, global_counts_[m],
                            [&](double factor) { return rule_.global_rounds(phase_, factor); }));
    runs.push_back(run_over(clients_[m].active(), m, local_counts_[m],
                            [&](double factor) { return rule_.local_rounds(phase_, factor); }));
  }

  void record(std::size_t m, std::uint32_t arm, std::uint64_t pulls, double sum) override {
    clients_[m].record(arm, pulls, sum);
  }

  std::uint32_t exploit_arm(std::size_t m) const override {
    return exploitation_feeds_means(preset_) ? clients_[m].exploit_arm_authors(alpha_)
                                             : clients_[m].exploit_arm();
  }

  // Step 5: the participants' means aggregated into mu_bar(p).
  void aggregate(std::span<const std::uint32_t> participants) override {
    server_.aggregate(clients_, participants, preset_, cell_.spec().participation.aggregation);
    mean_inverse_cumulative_ = mean_inverse(cumulative_);
  }

  // Step 6 at participant m: mixed estimates, elimination, fixing; A_m(p+1)
  // (and, enhanced, its gap estimates) sent.
  void update(std::size_t m) override {
    const double radius = confidence_radius(m);
    clients_[m].update(server_.global_means(), alpha_, radius, preset_);
    if (rule_.params().enhanced) server_.receive_gaps(m, clients_[m].gap_estimates(radius));
  }

  void end_phase() override {
    server_.unite(clients_);  // step 7
    if (rule_.params().enhanced) server_.combine_gaps();
  }

  std::optional<std::uint32_t> fixed_arm(std::size_t m) const override {
    return clients_[m].fixed_arm();
  }

  // Under the authors' rule a waiting client's pulls feed its means.
  bool waiting_observes() const override { return exploitation_feeds_means(preset_); }
  void wait_observing(std::size_t m, sim::Fidelity fidelity, pcg32& stream, std::uint64_t slots,
                      std::vector<sim::Segment>& played, const StopToken& stop) override {
    wait_exploiting(fidelity, cell_.instance(), m, stream, clients_[m], alpha_, slots, played,
                    stop);
  }

 private:
  // (1/M) sum_n 1/F_n in client order: infinite while a client has never
  // taken part.
  static double mean_inverse(std::span<const double> cumulative) {
    double sum = 0.0;
    for (const double f : cumulative) sum += 1.0 / f;
    return sum / static_cast<double>(cumulative.size());
  }

  // A run over `arms`, `rounds(factor)` pulls each: factor 1, or for the
  // enhanced algorithm each arm's length factor (Sec. 6).
  template <class Rounds>
  sim::Run run_over(std::span<const std::uint32_t> arms, std::size_t m,
                    std::vector<std::uint64_t>& counts, Rounds rounds) const {
    sim::Run run;
    run.arms = arms;
    run.order = pulls_blocked(preset_) ? sim::Order::blocked : sim::Order::round_robin;
    if (!rule_.params().enhanced) {
      run.rounds = rounds(1.0);
      return run;
    }
    counts.clear();
    for (const auto k : arms) counts.push_back(rounds(server_.length_factor(m, k, alpha_)));
    run.counts = counts;
    return run;
  }

  // B_p (Eqn. (8)) with every client; under partial participation the
  // radius of the estimate the server aggregates (docs/algorithms.md):
  // every client's latest report, or the participants' alone, whose radius
  // counts m's own phases only and ignores which clients were drawn.
  double confidence_radius(std::size_t m) const {
    if (full_participation_) return rule_.confidence_radius(phase_);
    if (cell_.spec().participation.aggregation == sim::Aggregation::participants) {
      return rule_.confidence_radius_at(cumulative_[m]);
    }
    return rule_.confidence_radius_latest(cumulative_[m], mean_inverse_cumulative_);
  }

  const sim::Cell& cell_;
  const PfUcbRule& rule_;
  Preset preset_;
  double alpha_;  // the algorithm's
  bool full_participation_;
  std::vector<PfUcbClient> clients_;
  PfUcbServer server_;
  std::vector<std::vector<std::uint64_t>> global_counts_, local_counts_;  // enhanced lengths
  std::vector<double> cumulative_;        // F_n: sum of f over the phases client n took part in
  double mean_inverse_cumulative_ = 0.0;  // (1/M) sum_n 1/F_n, this phase
  std::uint64_t phase_ = 0;
};

class PfUcb final : public sim::Algorithm {
 public:
  PfUcb(const PfUcbParams& params, const sim::CellContext& cell)
      : rule_(params, cell.alpha, cell.instance.clients(), cell.horizon) {}

  std::string_view name() const override {
    return rule_.params().enhanced ? "pf-ucb-enhanced" : "pf-ucb";
  }
  sim::Protocol protocol() const override { return sim::Protocol::phased; }
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    PfUcbState state(cell, rule_);
    return sim::run_phased(cell, state, seed, replication, stop);
  }
  std::string schedule() const override { return describe(rule_.spec().schedule); }

  // Theorem 2 where it applies: PF-UCB as Algorithm 1 prints it.
  theory::Bounds bounds(const sim::Cell& cell, theory::Games& games,
                        const StopToken& stop) const override {
    const auto& params = rule_.params();
    std::string inapplicable;
    if (params.enhanced) {
      inapplicable = "Theorem 2 bounds plain PF-UCB; the enhanced lengths are not analysed (Sec. 6)";
    } else if (params.preset != Preset::paper) {
      inapplicable = "Theorem 2 is stated for Algorithm 1, not the authors' code";
    } else if (params.rule.lengths != theory::Lengths::paper) {
      inapplicable = "Theorem 2 is stated for the lengths of Sec. 4, not the large-M ones";
    } else if (!cell.spec().participation.full(cell.instance().clients())) {
      inapplicable = "Theorem 2 is stated for every client in every phase";
    } else if (cell.algorithm_alpha() != cell.spec().alpha) {
      inapplicable = "Theorem 2 is stated for the algorithm's alpha equal to the measured one";
    }
    return theory::compute_bounds(cell.instance(), cell.measured(), games, &rule_, cell.horizon(),
                                  cell.spec().comm_cost, inapplicable, stop);
  }

 private:
  PfUcbRule rule_;
};

PfUcbParams params_of(const io::CellValues& v, bool enhanced) {
  PfUcbParams params;
  params.enhanced = enhanced;
  params.preset = parse_preset(v.word("algorithm.preset"));
  params.rule.schedule = {theory::parse_schedule_kind(v.word("algorithm.schedule")),
                          v.real("algorithm.lambda"), v.real("algorithm.schedule_factor")};
  params.rule.confidence_constant = v.real("algorithm.confidence_constant");
  params.rule.log_term = v.word("algorithm.log_term") == "T" ? theory::LogTerm::horizon
                                                             : theory::LogTerm::clients_horizon;
  params.rule.lengths = theory::parse_lengths(v.word("algorithm.lengths"));
  return params;
}

}  // namespace

sim::AlgorithmChoice pf_ucb(PfUcbParams params) {
  return [params](const sim::CellContext& cell) { return std::make_shared<PfUcb>(params, cell); };
}

namespace entries {

extern const AlgorithmEntry pf_ucb{
    "pf-ucb", &pf_ucb_options,
    [](const io::CellValues& values, const sim::CellContext& cell) {
      return algorithms::pf_ucb(params_of(values, false))(cell);
    },
    {}};
extern const AlgorithmEntry pf_ucb_enhanced{
    "pf-ucb-enhanced", &pf_ucb_options,
    [](const io::CellValues& values, const sim::CellContext& cell) {
      return algorithms::pf_ucb(params_of(values, true))(cell);
    },
    {}};

}  // namespace entries
}  // namespace pfmab::algorithms
