#include "workloads/job.hpp"

#include <gtest/gtest.h>

namespace tidesim::workloads {
namespace {

TEST(Job, NvlinkRequiredByEnvLabelOrAnnotation) {
  PodSpec pod;
  EXPECT_FALSE(nvlink_required(pod));
  pod.env["AI_NV_LINK_REQUIRED"] = "true";
  EXPECT_TRUE(nvlink_required(pod));
  pod.env["AI_NV_LINK_REQUIRED"] = "false";
  EXPECT_FALSE(nvlink_required(pod));
  PodSpec labelled;
  labelled.labels["nvl-link-required"] = "True";  // the seed's label, any letter case
  EXPECT_TRUE(nvlink_required(labelled));
  PodSpec annotated;
  annotated.annotations["ai.nvlink-required"] = "true";
  EXPECT_TRUE(nvlink_required(annotated));
}

TEST(Job, AutoDetectionIsTheSeedsRule) {
  PodSpec pod;
  pod.image = "nvcr.io/nvidia/tensorflow:23.01";
  EXPECT_FALSE(nvlink_auto_detected(pod));
  pod.image = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime";
  EXPECT_TRUE(nvlink_auto_detected(pod));
  EXPECT_FALSE(nvlink_required(pod));  // detection is a separate rule
  PodSpec annotated;
  annotated.annotations["ai.auto-nvlink"] = "true";
  EXPECT_TRUE(nvlink_auto_detected(annotated));
}

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
