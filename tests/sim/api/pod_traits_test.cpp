// The one NVLink rule (sim/api/pod_traits.hpp), read by the run (NVLink jobs for the contention
// metric and the competition index) and by the load-aware plugins.
#include "tidesim/sim/api/pod_traits.hpp"

#include <gtest/gtest.h>

namespace tidesim {
namespace {

constexpr NvlinkRule kStated{};
constexpr NvlinkRule kWithImage{.detect_pytorch_image = true};

TEST(PodTraits, NvlinkDeclaredByEnvLabelOrAnnotation) {
  PodSpec pod;
  EXPECT_EQ(nvlink_need(pod, kWithImage), NvlinkNeed::kNone);
  pod.env["AI_NV_LINK_REQUIRED"] = "true";
  EXPECT_EQ(nvlink_need(pod, kStated), NvlinkNeed::kDeclared);
  pod.env["AI_NV_LINK_REQUIRED"] = "false";
  EXPECT_EQ(nvlink_need(pod, kStated), NvlinkNeed::kNone);
  pod.env["AI_NV_LINK_REQUIRED"] = "truer";  // "true" in any case, nothing more
  EXPECT_EQ(nvlink_need(pod, kStated), NvlinkNeed::kNone);
  PodSpec labelled;
  labelled.labels["nvl-link-required"] = "True";  // the seed's label, any letter case
  EXPECT_EQ(nvlink_need(labelled, kStated), NvlinkNeed::kDeclared);
  for (const char* key :
       {"nvl-link-required", "nvlink-required", "ai.nvlink-required", "AI_NV_LINK_REQUIRED"}) {
    PodSpec annotated;
    annotated.annotations[key] = "TRUE";
    EXPECT_EQ(nvlink_need(annotated, kStated), NvlinkNeed::kDeclared) << key;
  }
  PodSpec other_key;
  other_key.labels["nvlink"] = "true";  // not one of the declaring keys
  EXPECT_EQ(nvlink_need(other_key, kWithImage), NvlinkNeed::kNone);
}

TEST(PodTraits, NvlinkAutoDetectionIsTheSeedsRuleWithTheImageGuessAsAnOption) {
  PodSpec pod;
  pod.image = "nvcr.io/nvidia/tensorflow:23.01";
  EXPECT_EQ(nvlink_need(pod, kWithImage), NvlinkNeed::kNone);
  pod.image = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime";  // the seed's resnet50-heavy
  EXPECT_EQ(nvlink_need(pod, kWithImage), NvlinkNeed::kAutoDetected);
  EXPECT_EQ(nvlink_need(pod, kStated), NvlinkNeed::kNone);
  EXPECT_FALSE(needs_nvlink(pod, kStated));
  EXPECT_TRUE(needs_nvlink(pod, kWithImage));
  // The annotation is the pod's own opt-in: it counts with or without the image guess.
  PodSpec annotated;
  annotated.annotations["ai.auto-nvlink"] = "true";
  EXPECT_EQ(nvlink_need(annotated, kStated), NvlinkNeed::kAutoDetected);
  EXPECT_EQ(nvlink_need(annotated, kWithImage), NvlinkNeed::kAutoDetected);
  // A declaration wins over detection: the need is reported as declared.
  pod.env["AI_NV_LINK_REQUIRED"] = "true";
  EXPECT_EQ(nvlink_need(pod, kWithImage), NvlinkNeed::kDeclared);
}

// The pod the two former rules disagreed on: workloads' nvlink_required() (the run's flag for the
// contention metric) said yes, the load-aware plugins' declared_nvlink() said no (they read only
// env AI_NV_LINK_REQUIRED and label nvl-link-required, and only a lower-case "true").
TEST(PodTraits, AnnotatedPodTheFormerRulesDisagreedOn) {
  PodSpec pod;
  pod.image = "nvcr.io/nvidia/pytorch:23.10-py3";  // not "pytorch/" but it contains "pytorch"
  pod.annotations["nvlink-required"] = "True";
  EXPECT_EQ(nvlink_need(pod, kStated), NvlinkNeed::kDeclared);
  EXPECT_EQ(nvlink_need(pod, kWithImage), NvlinkNeed::kDeclared);
}

}  // namespace
}  // namespace tidesim
