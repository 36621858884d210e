#include "tidesim/tools/lib/csv_out.hpp"

#include <fmt/core.h>

#include <optional>
#include <string>

#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/tools/lib/result_records.hpp"

namespace tidesim::app {

std::string csv_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

void write_jobs_csv(std::ostream& out, const RunResult& result) {
  require_records(result, "jobs", "jobs.csv");
  out << "policy,seed,job,state,gpus,gpus_last,nodes,submit_s,first_bind_s,start_s,finish_s,wait_s,"
         "jct_s,"
         "oom_kills,restarts,evictions,nvlink_required,nvlink_counted_s,nvlink_contended_s,"
         "job_class,kind,model,batch_size,stated_s,steps,ideal_s,slowdown,step_slowdown,"
         "comm_share,mfu,fabric_contended_s,lost_gpu_s,fabric_span\n";
  for (const auto& run : result.runs) {
    for (const auto& j : run.jobs) {
      std::string nodes;
      for (const auto& n : j.nodes) {
        nodes += (nodes.empty() ? "" : ";") + n;
      }
      std::optional<double> wait;
      if (j.first_bind_s) {
        wait = *j.first_bind_s - j.submit_s;
      }
      const std::optional<double> jct = job_completion_s(j);
      const std::optional<double> slowdown = job_slowdown(j);  // JCT over the run time alone
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", csv_field(run.policy),
          run.seed, csv_field(j.name), j.state, j.gpus, j.gpus_last, csv_field(nodes), j.submit_s,
          csv_number(j.first_bind_s), csv_number(j.start_s), csv_number(j.finish_s),
          csv_number(wait), csv_number(jct), j.oom_kills, j.restarts, j.evictions,
          j.nvlink_required ? "true" : "false", j.nvlink_counted_s, j.nvlink_contended_s);
      std::string span;  // domains per tier, ';'-joined (empty without a fabric)
      for (const int d : j.fabric_span) {
        span += (span.empty() ? "" : ";") + std::to_string(d);
      }
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(j.job_class), csv_field(j.kind),
          csv_field(j.model), j.batch_size, csv_number(j.stated_s), j.steps, csv_number(j.ideal_s),
          csv_number(slowdown), csv_number(j.step_slowdown), csv_number(j.comm_share),
          csv_number(j.mfu), csv_number(j.fabric_contended_s), j.lost_gpu_s, span);
    }
  }
}

void write_node_series_csv(std::ostream& out, const RunResult& result) {
  out << "policy,seed,time_s,node,gpu_utilization,gpu_memory_used_bytes,"
         "gpu_memory_capacity_bytes,gpu_memory_utilization,nvlink_competition_index,"
         "nvlink_utilization_variance,storage_await_ms,gpus_allocated,gpus_allocatable\n";
  for (const auto& run : result.runs) {
    if (!run.series) {
      continue;
    }
    for (const auto& n : run.series->nodes) {
      for (std::size_t i = 0; i < n.t_s.size(); ++i) {
        NodeState state;
        state.gpu_utilization = n.gpu_utilization[i];
        state.gpu_memory_used = n.gpu_memory_used_bytes[i];
        state.gpu_memory_capacity = n.gpu_memory_capacity_bytes;
        std::int64_t used = 0;
        for (const auto b : n.gpu_memory_used_bytes[i]) {
          used += b;
        }
        const std::int64_t capacity = n.gpu_memory_capacity_bytes *
                                      static_cast<std::int64_t>(n.gpu_memory_used_bytes[i].size());
        out << fmt::format(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(run.policy), run.seed, n.t_s[i],
            csv_field(n.node), csv_number(metrics::node_gpu_utilization(state)), used, capacity,
            csv_number(metrics::node_gpu_memory_utilization(state)), n.nvlink_competition_index[i],
            csv_number(metrics::population_variance(n.nvlink_utilization[i])),
            n.storage_await_ms[i], n.gpus_allocated[i], n.gpus_allocatable[i]);
      }
    }
  }
}

void write_card_series_csv(std::ostream& out, const RunResult& result) {
  out << "policy,seed,time_s,node,gpu_id,gpu_utilization,gpu_memory_used_bytes,"
         "nvlink_utilization\n";
  for (const auto& run : result.runs) {
    if (!run.series) {
      continue;
    }
    for (const auto& n : run.series->nodes) {
      for (std::size_t i = 0; i < n.t_s.size(); ++i) {
        const auto& util = n.gpu_utilization[i];
        const auto& mem = n.gpu_memory_used_bytes[i];
        const auto& nvl = n.nvlink_utilization[i];
        const std::size_t cards = std::max({util.size(), mem.size()});
        for (std::size_t c = 0; c < cards; ++c) {
          out << fmt::format("{},{},{},{},{},{},{},{}\n", csv_field(run.policy), run.seed, n.t_s[i],
                             csv_field(n.node), c,
                             c < util.size() ? fmt::format("{}", util[c]) : std::string(),
                             c < mem.size() ? fmt::format("{}", mem[c]) : std::string(),
                             c < nvl.size() ? fmt::format("{}", nvl[c]) : std::string());
        }
      }
    }
  }
}

namespace {

std::string joined(const auto& items) {
  std::string s;
  for (const auto& x : items) {
    s += (s.empty() ? "" : ";") + fmt::format("{}", x);
  }
  return s;
}

}  // namespace

void write_attempts_csv(std::ostream& out, const RunResult& result) {
  require_records(result, "attempts", "attempts.csv");
  out << "policy,seed,job,attempt,pod,node,cards,bound_s,started_s,ended_s,outcome,oom_card,"
         "oom_memory_used_bytes,oom_memory_capacity_bytes,oom_co_located\n";
  for (const auto& run : result.runs) {
    for (const auto& a : run.attempts) {
      const bool oom = a.oom_card.has_value();
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(run.policy), run.seed,
          csv_field(a.job), a.attempt, csv_field(a.pod), csv_field(a.node), joined(a.cards),
          csv_number(a.bound_s), csv_number(a.started_s), csv_number(a.ended_s), a.outcome,
          oom ? fmt::format("{}", *a.oom_card) : "",
          oom ? fmt::format("{}", a.oom_memory_used) : "",
          oom ? fmt::format("{}", a.oom_memory_capacity) : "", csv_field(joined(a.oom_co_located)));
    }
  }
}

}  // namespace tidesim::app
