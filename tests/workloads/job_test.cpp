#include "tidesim/workloads/job.hpp"

#include <gtest/gtest.h>

namespace tidesim::workloads {
namespace {

TEST(Job, GpusOfTheWholeJob) {
  JobSpec job;
  job.replicas = 3;
  job.pod_template.requests.gpus = 2;
  EXPECT_EQ(job_gpus(job), 6);
  job.pod_template.requests.gpus = 0;
  job.pod_template.requests.gpu_milli = 460;  // a shared card counts as one
  EXPECT_EQ(job_gpus(job), 3);
}

}  // namespace
}  // namespace tidesim::workloads
