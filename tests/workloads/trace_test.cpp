#include "tidesim/workloads/trace.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

#include <filesystem>
#include <sstream>
#include <vector>

#include "tests/common/require.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;

using test::message_of;

const char* kOpenb =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p0,12000,16384,1,1000,,LS,Running,0,500,10\n"
    "p1,6000,12288,1,460,,LS,Running,100,1000,100\n"
    "p2,4000,1024,0,0,,BE,Pending,200,260,\n"
    "p3,64000,262144,8,1000,V100M32|A10,LS,Failed,300,900,300\n";

TEST(Trace, OpenbPodsFractionsDurationsAndCensoring) {
  const Trace t = parse_trace(kOpenb, "o.csv");
  EXPECT_EQ(t.format, TraceFormat::kOpenb);
  ASSERT_EQ(t.records.size(), 4u);
  EXPECT_EQ(t.end, 1000s);
  const auto& p0 = t.records[0];
  EXPECT_EQ(p0.gpus_per_pod, 1);
  EXPECT_EQ(p0.gpu_milli, 0);
  EXPECT_EQ(p0.duration, 490s);  // deletion - scheduled
  EXPECT_EQ(p0.memory_bytes, 16384LL << 20);
  EXPECT_FALSE(p0.censored);
  const auto& p1 = t.records[1];
  EXPECT_EQ(p1.gpus_per_pod, 0);
  EXPECT_EQ(p1.gpu_milli, 460);
  EXPECT_EQ(p1.total_gpus(), 1);
  EXPECT_TRUE(p1.censored);  // Running and deleted at the trace's last instant
  const auto& p2 = t.records[2];
  EXPECT_FALSE(p2.scheduled);
  EXPECT_EQ(p2.duration, 60s);  // never scheduled: deletion - creation
  EXPECT_EQ(t.records[3].gpu_spec, "V100M32|A10");
  const TraceStats s = compute_stats(t);
  EXPECT_EQ(s.jobs, 4);
  EXPECT_EQ(s.gpu_histogram, (std::map<int, std::int64_t>{{0, 1}, {1, 2}, {8, 1}}));
  EXPECT_EQ(s.fractional, 1);
  EXPECT_EQ(s.censored, 1);
  EXPECT_EQ(s.unscheduled, 1);
  // Durations 60, 490, 600, 900: p50 = (490 + 600) / 2, p25 = 60 + 0.75 x 430.
  EXPECT_DOUBLE_EQ(s.duration_percentiles.at(50), 545.0);
  EXPECT_DOUBLE_EQ(s.duration_percentiles.at(25), 382.5);
  EXPECT_DOUBLE_EQ(s.duration_mean, 512.5);
}

// Columns are where the offending cell begins, counted in characters (as an editor shows them);
// each expected one is counted by hand in the row it comes from.
TEST(Trace, MalformedRowsNameLineColumnAndField) {
  const std::string head =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  EXPECT_EQ(message_of([&] {
              parse_trace(head +
                              "p0,1,1,1,1000,,LS,Running,0,5,0\np1,x,1,1,1000,,"
                              "LS,Running,0,5,0\n",
                          "bad.csv");
            }),
            "bad.csv:3:4: cpu_milli: 'x' is not an integer");  // p1,x
  EXPECT_EQ(message_of([&] { parse_trace(head + "p0,1,1,1,1000,,LS,Running\n", "short.csv"); }),
            "short.csv:2:26: expected 11 fields, found 8");  // just past the 25 characters
  EXPECT_EQ(message_of([&] { parse_trace(head + "p0,1,1,1,1000,,LS,Running,9,5,9\n", "t.csv"); }),
            "t.csv:2:29: deletion_time: deletion_time is before creation_time");
  EXPECT_EQ(message_of([&] { parse_trace(head + "p0,1,1,2,500,,LS,Running,0,5,0\n", "m.csv"); }),
            "m.csv:2:10: gpu_milli: a pod with 2 GPUs must ask whole GPUs (gpu_milli 1000)");
  EXPECT_EQ(message_of([] { parse_trace("what,ever\n1,2\n", "u.csv"); }),
            "u.csv:1:1: cannot tell the trace format from the header; give --from (native needs "
            "submit_s, openb num_gpu and gpu_milli, philly timestamp and num_gpus, acme and helios "
            "job_id, node_num and state (acme also type), gfs worker_num and gpu_request; pai2020 "
            "is pai_job_table.csv)");
  EXPECT_EQ(message_of([] {
              parse_trace(
                  "timestamp,duration,num_gpus,gpu_time,cluster\n"
                  "2017-10-09 07:01:55,66.0,1,66.0,a\n2017-13-09 07:01:55,1,1,1,a\n",
                  "p.csv");
            }),
            "p.csv:3:1: timestamp: '2017-13-09 07:01:55' is not a time YYYY-MM-DD HH:MM:SS");
  EXPECT_EQ(message_of([] {
              parse_trace("name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli,colour\n", "n.csv");
            }).substr(0, 30),
            "n.csv:1:54: colour: unknown co");  // after the 53 characters of the six before
  // A missing column has no cell: the header's start.
  EXPECT_EQ(message_of([] {
              parse_trace("name,submit_s,pods,gpus_per_pod,gpu_milli\n", "d.csv",
                          TraceFormat::kNative);
            }),
            "d.csv:1:1: duration_s: missing required column");
}

// Found by the trace fuzz target: a header with an unterminated quote let std::invalid_argument
// escape from format detection (exit 1, no place). The error names the opening quote.
TEST(Trace, UnterminatedQuoteInTheHeaderNamesItsLine) {
  EXPECT_EQ(message_of([] { parse_trace("name,\"x\n", "q.csv"); }),
            "q.csv:1:6: unterminated quoted field");
  // In a data row: a quoted field may span lines, so the quote runs to the end of the text.
  EXPECT_EQ(message_of([] {
              parse_trace(
                  "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
                  "a,0,10,1,1,0\n\"b,0,10,1,1,0\nc,0,10,1,1,0\n",
                  "r.csv");
            }),
            "r.csv:3:1: unterminated quoted field");
}

// A quoted field holding a line break (as write_native writes it) is one field of one row; the
// rows after it keep their file lines.
TEST(Trace, QuotedLineBreaksStayInTheirRow) {
  const std::string text =
      "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli,qos\n"
      "\"two\nlines\",0,10,1,1,0,LS\n"
      "b,5,10,1,1,0,\"B\r\nE\"\r\n"
      "c,7,10,1,1,0,\n";
  const Trace t = parse_trace(text, "n.csv");
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(t.records[0].name, "two\nlines");
  EXPECT_EQ(t.records[0].qos, "LS");
  EXPECT_EQ(t.records[1].qos, "B\r\nE");
  EXPECT_EQ(t.records[1].submit, 5s);
  EXPECT_EQ(t.records[2].name, "c");
  EXPECT_EQ((std::vector<int>{t.records[0].line, t.records[1].line, t.records[2].line}),
            (std::vector<int>{2, 4, 6}));
  std::string bad = text;
  bad.replace(bad.rfind("c,7"), 3, "c,x");
  EXPECT_EQ(message_of([&] { parse_trace(bad, "n.csv"); }),
            "n.csv:6:3: submit_s: 'x' is not a number");  // c,x
  // Written back, read again: the same fields.
  std::ostringstream out;
  write_native(t, out);
  const Trace back = parse_trace(out.str(), "w.csv");
  ASSERT_EQ(back.records.size(), 3u);
  EXPECT_EQ(back.records[0].name, "two\nlines");
  EXPECT_EQ(back.records[1].qos, "B\r\nE");
  EXPECT_EQ(back.records[2].line, 6);
}

TEST(Trace, RepeatedJobNamesAreRefusedWithBothLines) {
  // Rows with the same name used to be merged: four rows became two jobs.
  EXPECT_EQ(message_of([] {
              parse_trace(
                  "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
                  "a,0,10,1,1,0\nb,0,10,1,1,0\na,5,10,1,1,0\nb,9,10,1,1,0\n",
                  "dup.csv");
            }),
            "dup.csv:4:1: name: 'a' repeated (first on line 2); job names must be unique");
  const std::string head =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  EXPECT_EQ(message_of([&] {
              parse_trace(
                  head + "p0,1,1,1,1000,,LS,Running,0,5,0\np0,1,1,1,1000,,LS,Running,0,5,0\n",
                  "o.csv");
            }),
            "o.csv:3:1: name: 'p0' repeated (first on line 2); job names must be unique");
}

TEST(Trace, PhillyTimesAndMultiMachineJobs) {
  const Trace t = parse_trace(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
      "2017-10-08 07:01:55,2951.5,16,47224.0,6214e9\n"
      "2017-10-09 07:00:00,10,12,120,6214e9\n",
      "philly.csv");
  EXPECT_EQ(t.format, TraceFormat::kPhilly);
  EXPECT_EQ(t.records[1].submit, 0s);  // the earliest row is time zero
  EXPECT_EQ(t.records[0].submit, 86400s);
  EXPECT_EQ(t.records[2].submit, 86400s - 115s);
  EXPECT_EQ(t.records[1].duration, 2951500ms);
  EXPECT_EQ(t.records[1].pods, 2);  // 16 GPUs on 8-GPU machines
  EXPECT_EQ(t.records[1].gpus_per_pod, 8);
  EXPECT_EQ(t.records[2].pods, 2);  // 12 GPUs: 2 pods of 6
  EXPECT_EQ(t.records[2].gpus_per_pod, 6);
  EXPECT_EQ(t.records[1].total_gpus(), 16);
}

// Dates the calendar does not have rolled into the next month (2017-02-30 was 2017-03-02, so a
// job moved two days); refused with the row and column. 2016-02-29 is a leap day and is read.
TEST(Trace, PhillyImpossibleDatesAreRefused) {
  const std::string head = "duration,timestamp,num_gpus\n10,2017-02-28 00:00:00,1\n";
  // Column 4: the timestamp after "10,".
  EXPECT_EQ(message_of([&] { parse_trace(head + "10,2017-02-30 00:00:00,1\n", "p.csv"); }),
            "p.csv:3:4: timestamp: '2017-02-30 00:00:00' is not a calendar date (2017-02 has 28 "
            "days)");
  EXPECT_EQ(message_of([&] { parse_trace(head + "10,2017-04-31 12:00:00,1\n", "p.csv"); }),
            "p.csv:3:4: timestamp: '2017-04-31 12:00:00' is not a calendar date (2017-04 has 30 "
            "days)");
  EXPECT_EQ(message_of([&] { parse_trace(head + "10,2017-02-29 00:00:00,1\n", "p.csv"); }),
            "p.csv:3:4: timestamp: '2017-02-29 00:00:00' is not a calendar date (2017-02 has 28 "
            "days)");
  // Leap years: 2016-02-29 is one day after 2016-02-28; 2000-02-29 too (divisible by 400).
  const Trace leap = parse_trace(
      "duration,timestamp,num_gpus\n10,2016-02-28 00:00:00,1\n10,2016-02-29 00:00:00,1\n"
      "10,2016-03-01 00:00:00,1\n",
      "p.csv");
  EXPECT_EQ(leap.records[1].submit, 24h);
  EXPECT_EQ(leap.records[2].submit, 48h);
  const Trace y2000 = parse_trace(
      "duration,timestamp,num_gpus\n10,2000-02-28 00:00:00,1\n10,2000-02-29 00:00:00,1\n", "p.csv");
  EXPECT_EQ(y2000.records[1].submit, 24h);
  EXPECT_EQ(message_of([] {
              parse_trace("duration,timestamp,num_gpus\n10,1900-02-29 00:00:00,1\n", "p.csv");
            }),
            "p.csv:2:4: timestamp: '1900-02-29 00:00:00' is not a calendar date (1900-02 has 28 "
            "days)");
}

TEST(Trace, NativeRoundTrip) {
  const Trace t = parse_trace(kOpenb, "o.csv");
  std::ostringstream out;
  write_native(t, out);
  const Trace back = parse_trace(out.str(), "native.csv");
  EXPECT_EQ(back.format, TraceFormat::kNative);
  ASSERT_EQ(back.records.size(), t.records.size());
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    EXPECT_EQ(back.records[i].name, t.records[i].name);
    EXPECT_EQ(back.records[i].submit, t.records[i].submit);
    EXPECT_EQ(back.records[i].duration, t.records[i].duration);
    EXPECT_EQ(back.records[i].gpus_per_pod, t.records[i].gpus_per_pod);
    EXPECT_EQ(back.records[i].gpu_milli, t.records[i].gpu_milli);
    EXPECT_EQ(back.records[i].memory_bytes, t.records[i].memory_bytes);
    EXPECT_EQ(back.records[i].censored, t.records[i].censored);
    EXPECT_EQ(back.records[i].scheduled, t.records[i].scheduled);
    EXPECT_EQ(back.records[i].gpu_spec, t.records[i].gpu_spec);
  }
  const Trace frac = parse_trace(
      "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli\n"
      "a,1.25,0.000001,2,4,0\n",
      "f.csv");
  EXPECT_EQ(frac.records[0].submit, 1250ms);
  EXPECT_EQ(frac.records[0].duration, 1us);
}

std::string shared(const char* name) {
  return std::string(TIDESIM_SHARED_DATA_DIR) + "/traces/" + name;
}

TEST(Trace, RealOpenbDefaultPodList) {
  const auto path = shared("openb_pod_list_default.csv");
  TIDESIM_REQUIRE_FILE(path);
  const TraceStats s = compute_stats(read_trace(path));
  EXPECT_EQ(s.jobs, 8152);
  EXPECT_EQ(s.gpu_histogram,
            (std::map<int, std::int64_t>{{0, 1088}, {1, 6989}, {2, 16}, {4, 15}, {8, 44}}));
  EXPECT_EQ(s.fractional, 3078);  // num_gpu 1 with gpu_milli < 1000
  EXPECT_EQ(s.censored, 34);      // Running at the last deletion_time, 12,902,960 s
  EXPECT_EQ(s.unscheduled, 897);  // Pending, no scheduled_time
  EXPECT_EQ(s.phases.at("Running"), 5193);
}

TEST(Trace, RealPhillyAndOpenbNodes) {
  const auto philly = shared("pollux_philly.csv");
  TIDESIM_REQUIRE_FILE(philly);
  const TraceStats s = compute_stats(read_trace(philly));
  EXPECT_EQ(s.jobs, 82247);
  EXPECT_EQ(s.gpu_histogram.at(1), 76627);
  EXPECT_EQ(s.gpu_histogram.at(128), 3);
  EXPECT_DOUBLE_EQ(s.duration_percentiles.at(50), 1144.0);
  const auto nodes = read_openb_nodes(shared("openb_node_list_gpu_node.csv"));
  EXPECT_EQ(nodes.size(), 1213u);
  EXPECT_EQ(nodes[0].gpu_model, "P100");
  EXPECT_EQ(nodes[0].gpus, 2);
}

}  // namespace
}  // namespace tidesim::workloads
