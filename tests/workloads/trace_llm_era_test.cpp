// The LLM-era trace readers (Acme, Helios, PAI-2020, GFS) on fixtures written from the published
// schemas (AcmeTrace and HeliosData READMEs, alibaba/clusterdata cluster-trace-gpu-v2020 and
// cluster-trace-v2026-spot-gpu READMEs), and the cluster summary of trace_summary.hpp. Every
// expected value is worked out by hand from the fixture's rows.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/errors.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/workloads/csv.hpp"
#include "tidesim/workloads/trace.hpp"
#include "tidesim/workloads/trace_gfs.hpp"
#include "tidesim/workloads/trace_pai.hpp"
#include "tidesim/workloads/trace_parts.hpp"
#include "tidesim/workloads/trace_summary.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;
using test::message_of;

const std::string kData = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/";

const TraceRecord& by_name(const Trace& t, const std::string& name) {
  for (const auto& r : t.records) {
    if (r.name == name) {
      return r;
    }
  }
  throw std::runtime_error("no job " + name);
}

TEST(TraceParts, TimestampsWithUtcOffsetsAndPods) {
  std::string problem;
  // 00:18:22 at +08:00 is 16:18:22 UTC the day before.
  EXPECT_EQ(*parse_timestamp("2023-03-01 00:18:22+08:00", problem, true),
            *parse_timestamp("2023-02-28 16:18:22", problem));
  EXPECT_EQ(*parse_timestamp("2023-03-01 00:00:00-01:30", problem, true),
            *parse_timestamp("2023-03-01 01:30:00", problem));
  EXPECT_FALSE(parse_timestamp("2023-03-01 00:00:00+08:00", problem, false));
  EXPECT_FALSE(parse_timestamp("2023-03-01 00:00:00+8:000", problem, true));
  EXPECT_EQ(problem, "'2023-03-01 00:00:00+8:000' is not a time YYYY-MM-DD HH:MM:SS+HH:MM");
  EXPECT_EQ(pods_for(12, 1, 8), 2);  // Philly: 12 GPUs are 2 pods of 6
  EXPECT_EQ(pods_for(8, 1, 8), 1);
  EXPECT_EQ(pods_for(12, 3, 12), 3);  // Acme: 3 nodes of 4
  EXPECT_EQ(pods_for(9, 2, 9), 3);    // 9 GPUs do not split over 2 nodes: 3 pods of 3
  EXPECT_EQ(pods_for(2, 4, 2), 2);    // more nodes than GPUs: a GPU per pod
  EXPECT_EQ(pods_for(0, 0, 1), 1);
}

TEST(TraceAcme, SerenRowsNodesStatesAndTimes) {
  const Trace t = read_trace(kData + "acme_seren_small.csv");
  EXPECT_EQ(t.format, TraceFormat::kAcme);
  ASSERT_EQ(t.records.size(), 10u);
  // The first submission is s9's, 2023-02-28 23:59:00+08:00; s1 came 60 s later.
  const auto& s1 = by_name(t, "s1");
  EXPECT_EQ(s1.submit, 60s);
  EXPECT_EQ(*s1.queue, 30s);
  EXPECT_EQ(*s1.duration, 3600s);
  EXPECT_EQ(s1.pods, 1);
  EXPECT_EQ(s1.gpus_per_pod, 8);
  EXPECT_EQ(s1.cpu_milli, 128'000);
  EXPECT_EQ(s1.end_state, TraceEndState::kCompleted);
  EXPECT_EQ(s1.job_type, "Pretrain");
  const auto& s6 = by_name(t, "s6");  // NODE_FAIL: 4 nodes of 8 GPUs, failed
  EXPECT_EQ(s6.pods, 4);
  EXPECT_EQ(s6.gpus_per_pod, 8);
  EXPECT_EQ(s6.cpu_milli, 128'000);
  EXPECT_EQ(s6.end_state, TraceEndState::kFailed);
  EXPECT_EQ(s6.phase, "NODE_FAIL");
  EXPECT_EQ(*s6.queue, 1800s);
  EXPECT_EQ(*s6.duration, 14400s);
  EXPECT_EQ(by_name(t, "s7").end_state, TraceEndState::kFailed);  // TIMEOUT
  const auto& s8 = by_name(t, "s8");                              // cancelled before it started
  EXPECT_FALSE(s8.scheduled);
  EXPECT_EQ(s8.end_state, TraceEndState::kCancelled);
  EXPECT_EQ(*s8.queue, 300s);
  EXPECT_EQ(*s8.duration, 0s);
  const auto& s10 = by_name(t, "s10");  // 12 GPUs on 3 nodes
  EXPECT_EQ(s10.pods, 3);
  EXPECT_EQ(s10.gpus_per_pod, 4);
  const auto& s4 = by_name(t, "s4");  // a CPU job of node_num 0
  EXPECT_EQ(s4.pods, 1);
  EXPECT_EQ(s4.gpus_per_pod, 0);
  EXPECT_EQ(s4.cpu_milli, 4000);
  // s6 ends last, 2023-03-01 05:30:00+08:00: 5 h 31 min after the first submission.
  EXPECT_EQ(t.end, 5h + 31min);
}

TEST(TraceAcme, KalosMemoryAndFailTimes) {
  const Trace t = read_trace(kData + "acme_kalos_small.csv");
  EXPECT_EQ(t.format, TraceFormat::kAcme);
  const auto& k1 = by_name(t, "k1");
  EXPECT_EQ(k1.pods, 8);
  EXPECT_EQ(k1.gpus_per_pod, 8);
  EXPECT_EQ(k1.cpu_milli, 120'000);
  EXPECT_EQ(k1.memory_bytes, 1000LL << 30);
  EXPECT_EQ(*k1.duration, 8s);
  EXPECT_EQ(*k1.queue, 10s);
  EXPECT_EQ(k1.end_state, TraceEndState::kFailed);
  EXPECT_EQ(by_name(t, "k2").end_state, TraceEndState::kCancelled);
}

TEST(TraceHelios, ClusterLogWithVirtualClusters) {
  const Trace t = read_trace(kData + "helios_small.csv");
  EXPECT_EQ(t.format, TraceFormat::kHelios);
  const auto& j = by_name(t, "1425515");
  EXPECT_EQ(j.pods, 2);
  EXPECT_EQ(j.gpus_per_pod, 8);
  EXPECT_EQ(j.cluster, "vcJkd");
  EXPECT_EQ(*j.queue, 3600s);
  EXPECT_EQ(*j.duration, 7200s);
  EXPECT_EQ(by_name(t, "1425513").end_state, TraceEndState::kCancelled);
  EXPECT_EQ(by_name(t, "1425517").end_state, TraceEndState::kFailed);  // TIMEOUT
}

TEST(TraceGfs, WorkersGpuModelsAndPriorityClass) {
  const Trace t = read_trace(kData + "gfs_jobs_small.csv");
  EXPECT_EQ(t.format, TraceFormat::kGfs);
  const auto& j = by_name(t, "437261");
  EXPECT_EQ(j.pods, 94);
  EXPECT_EQ(j.gpus_per_pod, 1);
  EXPECT_EQ(j.cpu_milli, 15'000);
  EXPECT_EQ(j.gpu_spec, "A100-SXM4-80GB");
  EXPECT_EQ(j.qos, "Spot");
  EXPECT_EQ(j.submit, 9589663s);
  EXPECT_EQ(*j.duration, 71718s);
  EXPECT_EQ(j.end_state, TraceEndState::kUnknown);
  EXPECT_FALSE(j.queue);
  EXPECT_EQ(by_name(t, "500001").total_gpus(), 32);
  // 253689: submitted at 0, runs 15,897,599 s, the trace's last end.
  EXPECT_EQ(t.end, 15897599s);
  const auto nodes =
      read_gfs_nodes(CsvTable(kData + "gfs_nodes_small.csv",
                              {"node_name", "gpu_model", "gpu_capacity_num", "cpu_num"}, {}));
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes[3].gpu_model, "A100-SXM4-80GB");
  EXPECT_EQ(nodes[3].gpus, 8);
  EXPECT_EQ(nodes[3].cpu_milli, 128'000);
}

TEST(TracePai2020, JobsJoinTheirTasksAndInstances) {
  const Trace t = read_trace(kData + "pai2020/pai_job_table.csv");
  EXPECT_EQ(t.format, TraceFormat::kPai2020);
  ASSERT_EQ(t.records.size(), 5u);
  const auto& j1 = by_name(t, "j1");  // 50% of a MISC GPU; launched at 1020 (instance table)
  EXPECT_EQ(j1.gpu_milli, 500);
  EXPECT_EQ(j1.gpus_per_pod, 0);
  EXPECT_EQ(j1.cpu_milli, 6000);
  EXPECT_EQ(j1.gpu_spec, "MISC");
  EXPECT_EQ(*j1.queue, 20s);
  EXPECT_EQ(*j1.duration, 580s);
  EXPECT_EQ(j1.end_state, TraceEndState::kCompleted);
  const auto& j2 = by_name(t, "j2");  // its worker task (2 x 1 GPU), not its ps; failed
  EXPECT_EQ(j2.pods, 2);
  EXPECT_EQ(j2.gpus_per_pod, 1);
  EXPECT_EQ(j2.gpu_spec, "V100");
  EXPECT_EQ(*j2.queue, 35s);  // the earlier of its two instances, 1135
  EXPECT_EQ(*j2.duration, 265s);
  EXPECT_EQ(j2.end_state, TraceEndState::kFailed);
  const auto& j3 = by_name(t, "j3");  // Running: censored at the trace's end, 5050
  EXPECT_TRUE(j3.censored);
  EXPECT_EQ(j3.pods * j3.gpus_per_pod, 8);
  EXPECT_EQ(*j3.duration, 3790s);
  const auto& j4 = by_name(t, "j4");  // Waiting: never started
  EXPECT_FALSE(j4.scheduled);
  EXPECT_EQ(j4.gpu_milli, 250);
  EXPECT_EQ(*j4.duration, 0s);
  const auto& j5 = by_name(t, "j5");  // no instance row: its task's launch, 1060
  EXPECT_EQ(*j5.queue, 10s);
  EXPECT_EQ(*j5.duration, 3990s);
  EXPECT_EQ(j5.gpus_per_pod, 8);
  EXPECT_EQ(t.end, 4050s);
}

TEST(TracePai2020, AHeaderRowEqualToThePublishedOneIsSkipped) {
  const Trace t = parse_pai2020(
      {"job_name,inst_id,user,status,start_time,end_time\nj1,i1,u1,Terminated,10.0,20.0\n", "j"},
      {"j1,w,1.0,Terminated,12.0,20.0,100.0,1.0,100.0,T4\n", "t"}, std::nullopt);
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.records[0].line, 2);
  EXPECT_EQ(*t.records[0].queue, 2s);
  EXPECT_EQ(*t.records[0].duration, 8s);
}

// Bad rows: each error names the file, line and column where the cell begins, and the field.
TEST(TraceLlmEraErrors, BadRowsNameTheirPlace) {
  const std::string acme =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,"
      "queue,gpu_time\n";
  EXPECT_EQ(message_of([&] {
              parse_trace(acme +
                              "s1,u1,1,8,128,Pretrain,RUNNING,2023-03-01 00:00:00+08:00,2023-03-01 "
                              "00:00:30+08:00,2023-03-01 01:00:30+08:00,3600,30,28800.0\n",
                          "a.csv");
            }),
            "a.csv:2:24: state: 'RUNNING' is not a job state: COMPLETED, CANCELLED, FAILED, "
            "TIMEOUT, NODE_FAIL or SUSPENDED");
  EXPECT_EQ(message_of([&] {
              parse_trace(
                  acme +
                      "s1,u1,1,8,128,Pretrain,COMPLETED,2023-03-01 00:00:00+8:00,2023-03-01 "
                      "00:00:30+08:00,2023-03-01 01:00:30+08:00,3600,30,28800.0\n",
                  "a.csv");
            }),
            "a.csv:2:34: submit_time: '2023-03-01 00:00:00+8:00' is not a time "
            "YYYY-MM-DD HH:MM:SS[+HH:MM]");
  EXPECT_EQ(message_of([&] {
              parse_trace(
                  acme +
                      "s1,u1,1,8,128,Pretrain,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 "
                      "00:00:30+08:00,2023-03-01 00:00:10+08:00,3600,30,28800.0\n",
                  "a.csv");
            }),
            "a.csv:2:86: end_time: the job's end is before its start_time");
  EXPECT_EQ(message_of([] {
              parse_trace(
                  "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
                  "duration,queue\n1425512,uVMrF,vchbv,two,16,1,FAILED,2020-06-09 18:41:27,"
                  "2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n",
                  "h.csv");
            }),
            "h.csv:2:21: gpu_num: 'two' is not an integer");
  EXPECT_EQ(message_of([] {
              parse_trace(
                  "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,"
                  "duration,job_type\n437260,57,A100-SXM4-80GB,15,1,16,9589663,41060,BE\n",
                  "g.csv");
            }),
            "g.csv:2:48: job_type: 'BE' is not a job type: HP or Spot");
}

TEST(TraceLlmEraErrors, PaiTablesNameTheirPlace) {
  const NamedText jobs{"j1,i1,u1,Terminated,1000.0,1600.0\n", "jobs.csv"};
  EXPECT_EQ(message_of([&] {
              parse_pai2020(jobs,
                            {"j9,worker,1.0,Terminated,1010.0,1600.0,600.0,29.296875,50.0,MISC\n",
                             "tasks.csv"},
                            std::nullopt);
            }),
            "tasks.csv:1:1: job_name: 'j9' is not in the job table");
  EXPECT_EQ(message_of([&] {
              parse_pai2020({"j1,i1,u1,Killed,1000.0,1600.0\n", "jobs.csv"},
                            {"j1,w,1.0,Terminated,1010.0,1600.0,600.0,2.0,50.0,MISC\n", "t.csv"},
                            std::nullopt);
            }),
            "jobs.csv:1:10: status: 'Killed' is not a status: Terminated, Failed, Running, "
            "Waiting");
  EXPECT_EQ(
      message_of([&] {
        parse_pai2020(
            jobs,
            {"j1,tensorflow,1.0,Terminated,1010.0,1600.0,600.0,29.296875,half,MISC\n", "tasks.csv"},
            std::nullopt);
      }),
      "tasks.csv:1:60: plan_gpu: 'half' is not a number");
  EXPECT_EQ(message_of([&] {
              parse_pai2020(jobs, {"", "tasks.csv"}, std::nullopt);
            }),
            "jobs.csv:1:1: job_name: job 'j1' has no task in tasks.csv");
}

// The cluster summary of the Seren fixture, worked out by hand. GPU jobs s1, s2, s3, s6, s7,
// s8, s10 (7); CPU jobs s4, s5, s9 (3). Run times of the GPU jobs: 3600, 120, 7200, 14400,
// 7200, 0, 1200 (sum 33720, sorted median 3600); queues 30, 5, 300, 1800, 10, 300, 2 (sum 2447,
// median 30); GPUs 8, 16, 1, 32, 4, 2, 12 (sum 75, median 8, max 32).
TEST(TraceSummary, SerenFixtureByHand) {
  const auto v = cluster_summary(read_trace(kData + "acme_seren_small.csv"));
  const auto& cols = cluster_summary_columns();
  ASSERT_EQ(v.size(), cols.size());
  const auto at = [&](const std::string& c) {
    return *v[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), c) - cols.begin())];
  };
  EXPECT_EQ(at("job_num"), 10);
  EXPECT_EQ(at("cpu_job_num"), 3);
  EXPECT_EQ(at("gpu_job_num"), 7);
  EXPECT_DOUBLE_EQ(at("avg_run_time_gpu"), 33720.0 / 7);
  EXPECT_DOUBLE_EQ(at("avg_que_time_gpu"), 2447.0 / 7);
  EXPECT_DOUBLE_EQ(at("avg_gpu_num"), 75.0 / 7);
  EXPECT_EQ(at("med_run_time_gpu"), 3600);
  EXPECT_EQ(at("med_que_time_gpu"), 30);
  EXPECT_EQ(at("med_gpu_num"), 8);
  EXPECT_EQ(at("max_run_time_gpu"), 14400);
  EXPECT_EQ(at("max_gpu"), 32);
  // Completed s1, s10; cancelled s3, s8; failed s2, s6 (NODE_FAIL), s7 (TIMEOUT).
  EXPECT_DOUBLE_EQ(at("complete_rate_gpu"), 2.0 / 7);
  EXPECT_DOUBLE_EQ(at("cancel_rate_gpu"), 2.0 / 7);
  EXPECT_DOUBLE_EQ(at("fail_rate_gpu"), 3.0 / 7);
  // GPU time: completed 3600 x 8 + 1200 x 12 = 43200; cancelled 7200 x 1 + 0 = 7200; failed
  // 120 x 16 + 14400 x 32 + 7200 x 4 = 491520; all 541920.
  EXPECT_EQ(at("complete_gpu_time"), 43200);
  EXPECT_EQ(at("cancel_gpu_time"), 7200);
  EXPECT_EQ(at("fail_gpu_time"), 491520);
  EXPECT_DOUBLE_EQ(at("complete_rate_gpu_time"), 43200.0 / 541920);
  EXPECT_DOUBLE_EQ(at("fail_rate_gpu_time"), 491520.0 / 541920);
  // CPU jobs: run 14, 3, 120; queue 1, 0, 30; one of each state.
  EXPECT_DOUBLE_EQ(at("avg_run_time_cpu"), 137.0 / 3);
  EXPECT_DOUBLE_EQ(at("avg_que_time_cpu"), 31.0 / 3);
  EXPECT_EQ(at("med_run_time_cpu"), 14);
  EXPECT_EQ(at("med_que_time_cpu"), 1);
  EXPECT_DOUBLE_EQ(at("complete_rate_cpu"), 1.0 / 3);
}

TEST(TraceSummary, WhatATraceCannotSayIsEmpty) {
  // GFS has no end states and no queueing times; it has no CPU job rates either.
  const auto v = cluster_summary(read_trace(kData + "gfs_jobs_small.csv"));
  const auto& cols = cluster_summary_columns();
  const auto at = [&](const std::string& c) {
    return v[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), c) - cols.begin())];
  };
  EXPECT_FALSE(at("avg_que_time_gpu"));
  EXPECT_FALSE(at("complete_rate_gpu"));
  EXPECT_FALSE(at("fail_gpu_time"));
  EXPECT_EQ(*at("gpu_job_num"), 5);
  EXPECT_EQ(*at("max_gpu"), 94);
}

}  // namespace
}  // namespace tidesim::workloads
