#pragma once
/// Shockwave's dynamic batch sizes (Zheng et al., NSDI'23; uw-mad-dash/shockwave
/// scheduler/utils.py and scheduler.py; docs/gavel.md, "Shockwave's jobs"): a job's batch size per
/// epoch under its trace's mode (`static`, `accordion`, `gns`), and the epochs of a job.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tidesim::workloads {

/// The model family, initial batch and dataset of a Gavel job type ("LM (batch size 20)").
struct ShockwaveModel {
  std::string family;
  int batch = 0;
  /// Samples per epoch (utils.py dataset_len: CIFAR-10 50,000, ImageNet subset 100,000,
  /// Multi30k 10,000, WikiText-2 59,675, ML-20M 117,907).
  std::int64_t dataset = 0;
  /// The largest batch a dynamic schedule goes to (utils.py bs_limit: ResNet-18 256, ResNet-50
  /// 128, Transformer 128, LM 80, Recommendation 8192).
  int max_batch = 0;
  /// The smallest batch of the family (scheduler.py _simulate_accordion: ResNet-18, ResNet-50 and
  /// Transformer 16, LM 5, Recommendation 512).
  int min_batch = 0;
};

/// The family and batch of `job_type`; nullopt for a type that is not "<family> (batch size N)"
/// of one of the five families above (A3C, CycleGAN: no schedule).
std::optional<ShockwaveModel> shockwave_model(const std::string& job_type);

/// utils.py generate_pickle_file: ceil(total_steps / ceil(dataset / batch)).
std::int64_t shockwave_epochs(const ShockwaveModel& m, std::int64_t total_steps);

/// Whether epoch `epoch` (0-based) is in Accordion's critical regime for the family and initial
/// batch (utils.py get_accordion_bs_pattern): ResNet-18 epochs < 10 (< 20 for 256) and 150..159,
/// 250..259; ResNet-50 epoch mod 30 < 10 (below 600); LM < 10; Recommendation < 30 (512, 1024),
/// < 40 (2048), < 10 (4096, 8192) and 60..69, 80..89; Transformer always.
bool accordion_critical(const ShockwaveModel& m, std::int64_t epoch);

/// Whether epoch `epoch` is in the critical regime as the simulator's rounds test it
/// (scheduler.py _simulate_accordion, `epoch` its ceil of the steps run over an epoch's steps):
/// ResNet-18 epochs < 10 (< 20 for 256) and 150..159, 250..259; ResNet-50 epoch mod 30 < 10; LM
/// < 10; Recommendation < 30 (512, 1024), < 40 (2048), < 10 (4096, 8192); Transformer always.
/// It lacks the planning profile's ResNet-50 bound (600) and Recommendation's 60..69 and 80..89.
bool accordion_critical_at_round(const ShockwaveModel& m, std::int64_t epoch);

/// The batch a job asks for at a round's end in Shockwave's simulator (scheduler.py
/// _simulate_gns and _simulate_accordion set the flag, _scale_bs_and_iters picks the batch):
/// `initial` its model at its initial batch, `batch` its batch now, `epoch` its epochs as the
/// simulator counts them (ceil of the steps run over the steps of an epoch at `batch`).
/// - `gns`: twice `batch` when get_gns_bs_pattern (over max(760, epoch + 2) epochs) has a batch
///   above `batch` at `epoch` or `epoch + 1`;
/// - `accordion`: the family's largest at the initial batch outside the critical regime
///   (accordion_critical_at_round), the initial batch at another batch inside it;
/// nullopt otherwise (`static`, no change due, `batch` at the family's largest for a doubling
/// or at its smallest for a return, or an initial batch at the family's largest: the simulator
/// refuses those).
std::optional<int> shockwave_batch_request(const ShockwaveModel& initial, const std::string& mode,
                                           int batch, std::int64_t epoch, int scale_factor);

/// The batch of every epoch of a job of `epochs` epochs and `scale_factor` GPUs:
/// - `static`: the initial batch throughout;
/// - `accordion` as the simulator runs it (scheduler.py _simulate_accordion): the initial batch in
///   a critical regime, the family's largest outside one; with `planning` the profile of
///   get_accordion_bs_pattern, which also keeps the initial batch in the first 30% of epochs;
/// - `gns`: get_gns_bs_pattern's schedule (a multiple of the initial batch per range of epochs,
///   for the combinations it lists, capped at the family's largest), with its quirk that from
///   the second range on the last epoch keeps the initial batch.
/// std::invalid_argument for another mode.
std::vector<int> shockwave_batches(const ShockwaveModel& m, const std::string& mode,
                                   std::int64_t epochs, int scale_factor, bool planning = false);

}  // namespace tidesim::workloads
